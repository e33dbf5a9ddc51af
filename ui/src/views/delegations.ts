// The delegation log: requester → target, source badge, duration, outcome; click for the texts.

import { api } from "../model/api";
import { store } from "../model/state";
import type { Delegation } from "../model/types";
import { clear, formatMs, h } from "./dom";

export class DelegationLog {
  readonly el = h("div.delegations");
  private open = new Set<string>();

  async refresh(): Promise<void> {
    try {
      const records = await api.call<Delegation[]>("delegations.recent", { limit: 100 });
      this.render(records.slice().reverse());
    } catch {
      /* reconnecting */
    }
  }

  private render(records: Delegation[]): void {
    if (!records.length) return clear(this.el, h("p.muted", {}, "No delegations yet."));
    clear(this.el, ...records.map((r) => this.item(r)));
  }

  private item(r: Delegation): HTMLElement {
    const key = `${r.at_ms}:${r.target}:${r.prompt_chars}`;
    const requester = r.requester ? (store.agentById(r.requester)?.name ?? r.requester) : "you";
    const details = h(
      "details.deleg",
      { open: this.open.has(key), dataset: { source: r.source, target: r.target } },
      h(
        "summary",
        {},
        h("span.badge.source", { class: r.source }, r.source),
        h("span.deleg-who", {}, `${requester} → ${r.target}`),
        h("span.spacer"),
        h("span.muted", {}, formatMs(r.duration_ms)),
        h("span.pill", { class: r.ok ? "ok" : "fail" }, r.ok ? "ok" : (r.code ?? "failed")),
      ),
      h("div.deleg-meta.muted", {}, `${new Date(r.at_ms).toLocaleString()} · ${r.action}`),
      h("div.deleg-label", {}, "Prompt"),
      h("pre.deleg-text", {}, r.prompt),
      h("div.deleg-label", {}, "Reply"),
      h("pre.deleg-text", {}, r.reply ?? "—"),
    );
    details.addEventListener("toggle", () => {
      if (details.open) this.open.add(key);
      else this.open.delete(key);
    });
    return details;
  }
}

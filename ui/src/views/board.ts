// The work-state board: each agent's status, intent, ticket, progress and queue.

import { api } from "../model/api";
import { store } from "../model/state";
import type { WorkRow } from "../model/types";
import { goToCell } from "./banner";
import { clear, h } from "./dom";

export class Board {
  readonly el = h("div.board");

  constructor() {
    // An agent's files change without any event: while the board is shown, ask again.
    setInterval(() => {
      if (!this.el.isConnected) return;
      for (const row of this.el.querySelectorAll<HTMLElement>(".board-row")) {
        const name = row.dataset.agent;
        if (name && store.agents.find((a) => a.name === name)?.workspace === "worktree") {
          void this.worktree(name);
        }
      }
    }, SUMMARY_EVERY_MS);
  }

  async refresh(): Promise<void> {
    try {
      const { agents } = await api.call<{ agents: WorkRow[] }>("workstate.get");
      this.render(agents);
    } catch {
      /* reconnecting: the next refresh fills it */
    }
  }

  private render(rows: WorkRow[]): void {
    if (!rows.length) return clear(this.el, h("p.muted", {}, "No agents yet."));
    clear(this.el, ...rows.map(row));
    for (const r of rows) {
      if (store.agents.find((a) => a.name === r.name)?.workspace === "worktree") {
        void this.worktree(r.name);
      }
    }
  }

  // A worktree agent's files changed and commits ahead: asked at most every few seconds per
  // agent (the board is redrawn on every event), shown from the last answer meanwhile.
  private readonly summaries = new Map<string, { at: number; text: string }>();

  private async worktree(name: string): Promise<void> {
    const known = this.summaries.get(name);
    if (!known || Date.now() - known.at > SUMMARY_EVERY_MS) {
      try {
        const s = await api.call<{ files: number; ahead: number }>("workspace.summary", { name });
        const text = `worktree: ${s.files} file(s) changed, ${s.ahead} commit(s) ahead`;
        this.summaries.set(name, { at: Date.now(), text });
      } catch {
        return;
      }
    }
    const row = this.el.querySelector(`.board-row[data-agent="${CSS.escape(name)}"]`);
    const text = this.summaries.get(name)?.text;
    if (!row || !text) return;
    const line = row.querySelector(".worktree");
    if (line) line.textContent = text;
    else row.querySelector(".board-head")?.after(h("div.board-line.worktree", {}, text));
  }
}

const SUMMARY_EVERY_MS = 3000;

function row(r: WorkRow): HTMLElement {
  const nodeId = r.node_id;
  return h(
    "div.board-row",
    { dataset: { agent: r.name } },
    h(
      "div.board-head",
      {},
      h("span.status-dot", { class: r.live ? r.status : "off" }),
      h("strong", {}, r.name),
      h("span.pill", { class: r.status }, r.status),
      r.live ? h("span.badge", {}, r.mode ?? "live") : h("span.badge.off", {}, "stopped"),
      r.queued ? h("span.badge.warn", {}, `${r.queued} queued`) : null,
      h("span.spacer"),
      nodeId ? h("button.btn.small", { onclick: () => void goToCell(nodeId) }, "Go to cell") : null,
    ),
    r.intent ? h("div.board-line", {}, h("span.muted", {}, "intent "), r.intent) : null,
    r.ticket ? h("div.board-line", {}, h("span.muted", {}, "ticket "), r.ticket) : null,
    r.progress ? h("div.board-line", {}, h("span.muted", {}, "progress "), r.progress) : null,
    r.last_delegation
      ? h("div.board-line", {}, h("span.muted", {}, "last delegation "), r.last_delegation)
      : null,
  );
}

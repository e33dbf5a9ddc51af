// The work-state board: each agent's status, intent, ticket, progress and queue.

import { api } from "../model/api";
import type { WorkRow } from "../model/types";
import { goToCell } from "./banner";
import { clear, h } from "./dom";

export class Board {
  readonly el = h("div.board");

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
  }
}

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

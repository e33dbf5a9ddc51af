// One error banner at the top: a clear sentence per error code, with an action when there is one.

import { ApiFailure } from "../model/api";
import { describeError } from "../model/errors";
import { CELL_GONE, refusalActions } from "../model/picker";
import { store } from "../model/state";
import type { ApiError, Problem } from "../model/types";
import { describeProblem } from "../model/workstate";
import { clear, h } from "./dom";

const host = h("div.banner-host");

export function bannerHost(): HTMLElement {
  return host;
}

/** The banner for `err`; `leafId` is the cell the failed action was for (it may offer to move
 * an agent running elsewhere into it). */
export function showError(err: unknown, context?: string, leafId?: string): void {
  const e: ApiError =
    err instanceof ApiFailure ? err.error : { code: "INTERNAL", message: String(err) };
  const actions = refusalActions(e, leafId ?? null).map((action) =>
    action.kind === "go-to"
      ? h("button.btn", { onclick: () => (hide(), void goToCell(action.nodeId)) }, "Go to cell")
      : h(
          "button.btn",
          { onclick: () => (hide(), void moveHere(e.agent_id, action.leafId)) },
          "Move it here",
        ),
  );
  const { title, text } = describeError(e);
  clear(
    host,
    h(
      "div.banner",
      { role: "alert", dataset: { code: e.code } },
      h("span.banner-code", {}, title),
      h("span.banner-text", {}, context ? `${context}: ${text}` : text),
      ...actions,
      h("button.btn.ghost", { onclick: hide, title: "Dismiss" }, "✕"),
    ),
  );
}

/** The problems `problems.list` found at open: the first in the banner, the others under it. */
export function showProblems(problems: readonly Problem[]): void {
  const rows = problems.filter((p) => p && typeof p === "object");
  if (!rows.length) return;
  const now = Date.now();
  const nameOf = (x: string) => store.nameOf(x);
  const [first, ...rest] = rows.map((p) => ({
    code: String(p.code),
    ...describeProblem(p, now, nameOf),
  }));
  const more = rest.length
    ? h(
        "details.banner-more",
        {},
        h("summary", {}, `${rest.length} more problem${rest.length === 1 ? "" : "s"}`),
        h(
          "ul.problem-list",
          {},
          ...rest.map((p) =>
            h("li.problem", { dataset: { code: p.code } }, h("strong", {}, `${p.title}: `), p.text),
          ),
        ),
      )
    : null;
  clear(
    host,
    h(
      "div.banner.problems",
      { role: "alert", dataset: { code: first.code, count: String(rows.length) } },
      h("span.banner-code", {}, first.title),
      h("div.banner-text", {}, first.text, more),
      h("button.btn.ghost", { onclick: hide, title: "Dismiss" }, "✕"),
    ),
  );
}

export function showNotice(text: string, action?: { label: string; run: () => void }): void {
  const button = action
    ? [h("button.btn", { onclick: () => (hide(), action.run()) }, action.label)]
    : [];
  clear(
    host,
    h(
      "div.banner.notice",
      { role: "status" },
      h("span.banner-text", {}, text),
      ...button,
      ...(action ? [h("button.btn.ghost", { onclick: hide, title: "Dismiss" }, "✕")] : []),
    ),
  );
}

export function hide(): void {
  clear(host);
}

/** Show the live agent `agentId` in cell `leafId` (its other cell becomes empty). */
export async function moveHere(agentId: string | undefined, leafId: string): Promise<void> {
  const agent = store.agentById(agentId ?? null);
  if (!agent) return showNotice("That agent is gone.");
  try {
    await store.moveAgent(agent.name, leafId);
  } catch (err) {
    showError(err, `Move ${agent.name}`);
  }
}

/** Show the tab holding a cell and make the cell flash; say so if the cell is gone. */
export async function goToCell(nodeId: string): Promise<void> {
  const found = store.findLeaf(nodeId);
  if (!found) return showNotice(CELL_GONE);
  if (store.layouts?.active_tab !== found.tab.id) {
    try {
      await store.applyLayout({ op: "set_active_tab", tab_id: found.tab.id });
    } catch (err) {
      showError(err);
      return;
    }
  }
  requestAnimationFrame(() => {
    const el = document.querySelector<HTMLElement>(`[data-leaf="${nodeId}"]`);
    if (!el) return;
    el.classList.remove("flash");
    void el.offsetWidth;
    el.classList.add("flash");
    // The keyboard goes there too (the workspace owns focus: main.ts listens).
    window.dispatchEvent(new CustomEvent(FOCUS_CELL_EVENT, { detail: nodeId }));
  });
}

/** Asks the workspace to focus a cell (``detail``: its leaf id). */
export const FOCUS_CELL_EVENT = "idea:focus-cell";

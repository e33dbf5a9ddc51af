// One error banner at the top: a clear sentence per error code, with an action when there is one.

import { ApiFailure } from "../model/api";
import { describeError } from "../model/errors";
import { store } from "../model/state";
import type { ApiError } from "../model/types";
import { clear, h } from "./dom";

const host = h("div.banner-host");

export function bannerHost(): HTMLElement {
  return host;
}

export function showError(err: unknown, context?: string): void {
  const e: ApiError =
    err instanceof ApiFailure ? err.error : { code: "INTERNAL", message: String(err) };
  const actions: HTMLElement[] = [];
  if (e.code === "AGENT_ALREADY_RUNNING" && e.node_id) {
    const nodeId = e.node_id;
    actions.push(
      h("button.btn", { onclick: () => (hide(), void goToCell(nodeId)) }, "Go to cell"),
    );
  }
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

export function showNotice(text: string): void {
  clear(host, h("div.banner.notice", { role: "status" }, h("span.banner-text", {}, text)));
}

export function hide(): void {
  clear(host);
}

/** Show the tab holding a cell and make the cell flash. */
export async function goToCell(nodeId: string): Promise<void> {
  const found = store.findLeaf(nodeId);
  if (!found) return;
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
  });
}

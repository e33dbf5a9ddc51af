// One error banner at the top: a clear sentence per error code, with an action when there is one.

import { ApiFailure } from "./api";
import { clear, h } from "./dom";
import { store } from "./state";
import type { ApiError } from "./types";

const host = h("div.banner-host");

export function bannerHost(): HTMLElement {
  return host;
}

const TITLES: Record<string, string> = {
  NOT_FOUND: "Not found",
  INVALID: "Invalid request",
  MISSING_FIELD: "Missing field",
  AGENT_ALREADY_RUNNING: "Agent already running",
  TIMEOUT: "Timed out",
  FORBIDDEN: "Forbidden",
  CONFLICT: "Conflict",
  CORRUPT_FILE: "Corrupt file moved aside",
  INTERNAL: "Internal error",
  AGENT_FAILED: "Agent failed",
  UNAVAILABLE: "Unavailable",
};

function sentence(e: ApiError): string {
  switch (e.code) {
    case "AGENT_ALREADY_RUNNING":
      return e.node_id
        ? "This agent is already running in another cell. An agent has one live session at a time."
        : "This agent is already running in the background.";
    case "MISSING_FIELD":
      return `The field "${e.field ?? "?"}" is required. ${e.message}`;
    case "CORRUPT_FILE":
      return `${e.path ?? "A state file"} could not be read and was moved to ${e.quarantined_to ?? "a backup"}.`;
    case "TIMEOUT":
      return `${e.message} (the agent is still alive).`;
    default:
      return e.message;
  }
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
  clear(
    host,
    h(
      "div.banner",
      { role: "alert", dataset: { code: e.code } },
      h("span.banner-code", {}, TITLES[e.code] ?? e.code),
      h("span.banner-text", {}, context ? `${context}: ${sentence(e)}` : sentence(e)),
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

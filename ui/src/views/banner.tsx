// One error banner at the top: a clear sentence per error code, with an action when there is one.
// Rendered by Preact into one host element; each banner shown is a new element (keyed), so a
// screen reader announces it as it did the first.

import { Fragment, render, type ComponentChildren } from "preact";

import { ApiFailure } from "../model/api";
import { describeError } from "../model/errors";
import { CELL_GONE, refusalActions } from "../model/picker";
import { store } from "../model/state";
import type { ApiError, Problem } from "../model/types";
import { describeProblem } from "../model/workstate";
import { rootElement } from "./reactive";

const host = rootElement("banner-host");
let shown = 0;

export function bannerHost(): HTMLElement {
  return host;
}

/** Replace what the banner shows, synchronously (callers and tests read it at once). */
function show(banner: ComponentChildren): void {
  render(<Fragment key={++shown}>{banner}</Fragment>, host);
}

/** The banner for `err`; `leafId` is the cell the failed action was for (it may offer to move
 * an agent running elsewhere into it). */
export function showError(err: unknown, context?: string, leafId?: string): void {
  const e: ApiError =
    err instanceof ApiFailure ? err.error : { code: "INTERNAL", message: String(err) };
  const { title, text } = describeError(e);
  show(
    <div class="banner" role="alert" data-code={e.code}>
      <span class="banner-code">{title}</span>
      <span class="banner-text">{context ? `${context}: ${text}` : text}</span>
      {refusalActions(e, leafId ?? null).map((action) =>
        action.kind === "go-to" ? (
          <button class="btn" onClick={() => (hide(), void goToCell(action.nodeId))}>
            Go to cell
          </button>
        ) : (
          <button class="btn" onClick={() => (hide(), void moveHere(e.agent_id, action.leafId))}>
            Move it here
          </button>
        ),
      )}
      <Dismiss />
    </div>,
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
  show(
    <div
      class="banner problems"
      role="alert"
      data-code={first.code}
      data-count={String(rows.length)}
    >
      <span class="banner-code">{first.title}</span>
      <div class="banner-text">
        {first.text}
        {rest.length ? (
          <details class="banner-more">
            <summary>{`${rest.length} more problem${rest.length === 1 ? "" : "s"}`}</summary>
            <ul class="problem-list">
              {rest.map((p, i) => (
                <li key={i} class="problem" data-code={p.code}>
                  <strong>{`${p.title}: `}</strong>
                  {p.text}
                </li>
              ))}
            </ul>
          </details>
        ) : null}
      </div>
      <Dismiss />
    </div>,
  );
}

export function showNotice(text: string, action?: { label: string; run: () => void }): void {
  show(
    <div class="banner notice" role="status">
      <span class="banner-text">{text}</span>
      {action ? (
        <>
          <button class="btn" onClick={() => (hide(), action.run())}>
            {action.label}
          </button>
          <Dismiss />
        </>
      ) : null}
    </div>,
  );
}

export function hide(): void {
  render(null, host);
}

function Dismiss() {
  return (
    <button class="btn ghost" title="Dismiss" onClick={hide}>
      ✕
    </button>
  );
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

// Keyboard shortcuts of the workspace: one table (matched here, listed by the "?" help popover),
// handled on window so they also work with focus inside an xterm (which lets them through).

import { h } from "./dom";

export type Action =
  | "next"
  | "prev"
  | "splitRight"
  | "splitDown"
  | "close"
  | "picker"
  | "openProject"
  | "help";

type Shortcut = { action: Action; keys: string; label: string; match(e: KeyboardEvent): boolean };

// e.code for letters: Alt(+Shift) changes e.key on some layouts (macOS Option).
const alt = (e: KeyboardEvent, shift: boolean) =>
  e.altKey && e.shiftKey === shift && !e.ctrlKey && !e.metaKey;

export const SHORTCUTS: Shortcut[] = [
  {
    action: "next",
    keys: "Alt+→",
    label: "Focus the next cell",
    match: (e) => alt(e, false) && e.key === "ArrowRight",
  },
  {
    action: "prev",
    keys: "Alt+←",
    label: "Focus the previous cell",
    match: (e) => alt(e, false) && e.key === "ArrowLeft",
  },
  {
    action: "splitRight",
    keys: "Alt+Shift+→",
    label: "Split the focused cell right",
    match: (e) => alt(e, true) && e.key === "ArrowRight",
  },
  {
    action: "splitDown",
    keys: "Alt+Shift+↓",
    label: "Split the focused cell down",
    match: (e) => alt(e, true) && e.key === "ArrowDown",
  },
  {
    action: "close",
    keys: "Alt+Shift+W",
    label: "Close the focused cell",
    match: (e) => alt(e, true) && e.code === "KeyW",
  },
  {
    action: "picker",
    keys: "Alt+Shift+A",
    label: "Open the agent picker of the focused cell",
    match: (e) => alt(e, true) && e.code === "KeyA",
  },
  {
    action: "openProject",
    keys: "Alt+Shift+O",
    label: "Open another project",
    match: (e) => alt(e, true) && e.code === "KeyO",
  },
  {
    action: "help",
    keys: "Alt+Shift+/",
    label: "Show or hide this help",
    match: (e) => alt(e, true) && e.code === "Slash",
  },
];

/** The action of a keydown, or null (also what a terminal asks before eating a key). */
export function shortcutOf(e: KeyboardEvent): Action | null {
  if (e.type !== "keydown" && e.type !== "keypress" && e.type !== "keyup") return null;
  return SHORTCUTS.find((s) => s.match(e))?.action ?? null;
}

/** Route shortcut keydowns anywhere in the page to a handler. */
export function installShortcuts(run: (action: Action) => void): void {
  window.addEventListener("keydown", (e) => {
    if (e.isComposing) return;
    const action = shortcutOf(e);
    if (!action) return;
    e.preventDefault();
    e.stopPropagation();
    run(action);
  });
}

/** The "?" button of the top bar and its popover listing the shortcuts. */
export class HelpButton {
  readonly popover = h(
    "div.help-popover",
    { role: "dialog", hidden: true, "aria-label": "Keyboard shortcuts" },
    h("div.help-title", {}, "Keyboard shortcuts"),
    h(
      "table.help-keys",
      {},
      ...SHORTCUTS.map((s) =>
        h("tr", { dataset: { action: s.action } }, h("td", {}, h("kbd", {}, s.keys)), h("td", {}, s.label)),
      ),
    ),
    h("p.muted", {}, "They work in terminals too. Click a cell to focus it."),
  );
  readonly button = h(
    "button.btn.small.help-toggle",
    { title: "Keyboard shortcuts", onclick: () => this.toggle() },
    "?",
  );
  readonly el = h("span.help", {}, this.button, this.popover);

  constructor() {
    document.addEventListener("pointerdown", (e) => {
      if (!this.popover.hidden && !this.el.contains(e.target as Node)) this.popover.hidden = true;
    });
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape") this.popover.hidden = true;
    });
  }

  toggle(): void {
    this.popover.hidden = !this.popover.hidden;
  }
}

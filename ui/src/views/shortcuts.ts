// Keyboard shortcuts of the workspace, handled on window. Which key runs what, and where, is the
// one table of model/keys.ts (the "?" help and the command palette read it too); this module
// only tells the router where a key press happened and runs what it says.

import { type Action, COMMANDS, keyLabel, type KeyPlace, placeNote, routeKey } from "../model/keys";
import { h } from "./dom";

export type { Action } from "../model/keys";

const NOT_TEXT = new Set([
  "button",
  "checkbox",
  "radio",
  "submit",
  "reset",
  "image",
  "color",
  "file",
  "range",
]);

/** Where a key press happens: in a terminal (xterm's text area), a text box, or elsewhere. */
export function placeOf(target: EventTarget | null): KeyPlace {
  const el = target instanceof Element ? target : null;
  if (!el) return "page";
  if (el.closest(".xterm")) return "terminal";
  if (el instanceof HTMLElement && el.isContentEditable) return "editable";
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return "editable";
  if (el instanceof HTMLInputElement && !NOT_TEXT.has(el.type)) return "editable";
  return "page";
}

let state = { maximized: false };

/** Whether xterm should handle this key itself (false: the workspace takes it). */
export function terminalKeeps(e: KeyboardEvent): boolean {
  return routeKey(e, "terminal", state) === null;
}

/** Route shortcut keydowns anywhere in the page to a handler; `now` says what the workspace is in. */
export function installShortcuts(
  run: (action: Action) => void,
  now: () => { maximized: boolean },
): void {
  window.addEventListener("keydown", (e) => {
    if (e.isComposing || e.defaultPrevented) return;
    state = now();
    const routed = routeKey(e, placeOf(e.target), state);
    if (!routed || routed.native) return;
    e.preventDefault();
    e.stopPropagation();
    run(routed.action);
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
      ...COMMANDS.filter((c) => c.bindings.length).map((c) =>
        h(
          "tr",
          { dataset: { action: c.action } },
          h(
            "td",
            {},
            ...c.bindings.flatMap((b, i) => [
              i > 0 ? " " : null,
              h("kbd", { title: placeNote(b) || "everywhere" }, keyLabel(b.spec)),
            ]),
          ),
          h("td", {}, c.label, ...notes(c.bindings)),
        ),
      ),
    ),
    h(
      "p.muted",
      {},
      "Alt+←/→ jump by word in text boxes and terminals: F6 and Shift+F6 move between cells from " +
        "anywhere. Ctrl+Shift+P lists every command.",
    ),
  );
  readonly button = h(
    "button.btn.small.help-toggle",
    {
      title: "Keyboard shortcuts",
      "aria-label": "Keyboard shortcuts",
      "aria-haspopup": "dialog",
      onclick: () => this.toggle(),
    },
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

function notes(bindings: (typeof COMMANDS)[number]["bindings"]): (HTMLElement | null)[] {
  const words = bindings
    .filter((b) => placeNote(b))
    .map((b) => `${keyLabel(b.spec)}: ${placeNote(b)}`);
  return words.length ? [h("span.help-note.muted", {}, ` (${words.join("; ")})`)] : [];
}

// Keyboard shortcuts of the workspace, handled on window. Which key runs what, and where, is the
// one table of model/keys.ts (the "?" help and the command palette read it too); this module
// only tells the router where a key press happened and runs what it says. The "?" sheet of the
// keys is rendered by Preact from the same table.

import { signal } from "@preact/signals";
import { Fragment, render } from "preact";

import { type Action, COMMANDS, keyLabel, type KeyPlace, placeNote, routeKey } from "../model/keys";

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
  readonly el = document.createElement("span");
  readonly open = signal(false);

  constructor() {
    this.el.className = "help";
    render(<Help help={this} />, this.el);
    document.addEventListener("pointerdown", (e) => {
      if (this.open.value && !this.el.contains(e.target as Node)) this.open.value = false;
    });
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape") this.open.value = false;
    });
  }

  toggle(): void {
    this.open.value = !this.open.value;
  }
}

type Binding = (typeof COMMANDS)[number]["bindings"][number];

function Help({ help }: { help: HelpButton }) {
  return (
    <>
      <button
        class="btn small help-toggle"
        title="Keyboard shortcuts"
        aria-label="Keyboard shortcuts"
        aria-haspopup="dialog"
        onClick={() => help.toggle()}
      >
        ?
      </button>
      <div
        class="help-popover"
        role="dialog"
        hidden={!help.open.value}
        aria-label="Keyboard shortcuts"
      >
        <div class="help-title">Keyboard shortcuts</div>
        <table class="help-keys">
          {COMMANDS.filter((c) => c.bindings.length).map((c) => (
            <tr key={c.action} data-action={c.action}>
              <td>
                {c.bindings.map((b, i) => (
                  <Fragment key={i}>
                    {i > 0 ? " " : null}
                    <kbd title={placeNote(b) || "everywhere"}>{keyLabel(b.spec)}</kbd>
                  </Fragment>
                ))}
              </td>
              <td>
                {c.label}
                <Notes bindings={c.bindings} />
              </td>
            </tr>
          ))}
        </table>
        <p class="muted">
          Alt+←/→ jump by word in text boxes and terminals: F6 and Shift+F6 move between cells from
          anywhere. Ctrl+Shift+P lists every command.
        </p>
      </div>
    </>
  );
}

/** Where a command's keys work when not everywhere, after its label. */
function Notes({ bindings }: { bindings: readonly Binding[] }) {
  const words = bindings
    .filter((b) => placeNote(b))
    .map((b) => `${keyLabel(b.spec)}: ${placeNote(b)}`);
  return words.length ? <span class="help-note muted">{` (${words.join("; ")})`}</span> : null;
}

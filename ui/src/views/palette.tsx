// The command palette (Ctrl+Shift+P): every command of the key table with its keys, filtered by
// typing, ↑/↓ to choose, Enter to run. A modal dialog: the focus stays in it, and Escape gives it
// back to where it was before the command runs there. Rendered by Preact inside the overlay,
// at once on each change (the focus and the scroll follow what it drew).

import { render } from "preact";

import type { Action } from "../model/keys";
import { allChoices, type Choice, filterChoices, moveSelection } from "../model/palette";
import { rootElement } from "./reactive";

let ids = 0;

export class CommandPalette {
  readonly el = rootElement("palette-overlay");
  readonly listId = `palette-list-${++ids}`;
  private query = "";
  private shown: Choice[] = [];
  private selected = -1;
  private returnTo: HTMLElement | null = null;

  constructor(private readonly run: (action: Action) => void) {
    this.el.hidden = true;
    this.el.addEventListener("keydown", (e) => this.onKey(e));
    this.el.addEventListener("pointerdown", (e) => {
      if (e.target === this.el) this.close(); // a click beside the dialog
    });
    // Keep the focus inside: whatever else gets it (a click on the list) gives it to the input.
    this.el.addEventListener("focusout", (e) => {
      if (!this.el.hidden && !this.el.contains(e.relatedTarget as Node)) {
        queueMicrotask(() => !this.el.hidden && this.input()?.focus());
      }
    });
    this.draw();
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  /** What the palette shows: the query, the matching choices and the one selected. */
  get view(): { query: string; shown: readonly Choice[]; selected: number } {
    return { query: this.query, shown: this.shown, selected: this.selected };
  }

  toggle(): void {
    if (this.isOpen) this.close();
    else this.open();
  }

  open(): void {
    const active = document.activeElement;
    this.returnTo = active instanceof HTMLElement && active !== document.body ? active : null;
    this.el.hidden = false;
    this.filter("");
    this.input()?.focus();
  }

  /** Hide it and give the focus back (the command then acts where the user was). */
  close(): void {
    if (this.el.hidden) return;
    this.el.hidden = true;
    const back = this.returnTo;
    this.returnTo = null;
    if (back?.isConnected) back.focus();
  }

  /** Show the choices matching `query`, the first selected. */
  filter(query: string): void {
    this.query = query;
    this.shown = filterChoices(allChoices(), query);
    this.select(this.shown.length ? 0 : -1);
  }

  choose(i: number): void {
    const choice = this.shown[i];
    if (!choice) return;
    this.close();
    this.run(choice.action);
  }

  private onKey(e: KeyboardEvent): void {
    if (e.isComposing) return;
    const n = this.shown.length;
    if (e.key === "ArrowDown") this.select(moveSelection(this.selected, 1, n));
    else if (e.key === "ArrowUp") this.select(moveSelection(this.selected, -1, n));
    else if (e.key === "PageDown") this.select(Math.min(n - 1, this.selected + 8));
    else if (e.key === "PageUp") this.select(Math.max(0, this.selected - 8));
    else if (e.key === "Enter") this.choose(this.selected);
    else if (e.key === "Escape") this.close();
    else if (e.key === "Tab")
      this.input()?.focus(); // nothing else to go to: focus stays
    else return;
    e.preventDefault();
    e.stopPropagation();
  }

  private select(i: number): void {
    this.selected = i;
    this.draw();
    const item = i >= 0 ? this.el.querySelector(`#${CSS.escape(`${this.listId}-${i}`)}`) : null;
    item?.scrollIntoView({ block: "nearest" });
  }

  private draw(): void {
    render(<Palette palette={this} />, this.el);
  }

  private input(): HTMLInputElement | null {
    return this.el.querySelector<HTMLInputElement>("input.palette-input");
  }
}

function Palette({ palette }: { palette: CommandPalette }) {
  const { query, shown, selected } = palette.view;
  const listId = palette.listId;
  return (
    <div class="palette" role="dialog" aria-modal="true" aria-label="Command palette">
      <input
        class="palette-input"
        type="text"
        placeholder="Type a command"
        spellcheck={false}
        autocomplete="off"
        role="combobox"
        aria-expanded="true"
        aria-autocomplete="list"
        aria-label="Command"
        aria-controls={listId}
        aria-activedescendant={selected >= 0 ? `${listId}-${selected}` : undefined}
        value={query}
        onInput={(e) => palette.filter(e.currentTarget.value)}
      />
      <ul class="palette-list" role="listbox" id={listId} aria-label="Commands">
        {shown.map((c, i) => (
          <li
            key={c.action}
            class="palette-item"
            role="option"
            id={`${listId}-${i}`}
            aria-selected={i === selected ? "true" : "false"}
            data-action={c.action}
            onPointerDown={(e) => e.preventDefault()} // keep the focus in the input
            onClick={() => palette.choose(i)}
          >
            <span class="palette-label">{c.label}</span>
            <span class="palette-group muted">{c.group}</span>
            <span class="palette-keys">
              {c.keys.map((k) => (
                <kbd key={k}>{k}</kbd>
              ))}
            </span>
          </li>
        ))}
        {shown.length ? null : (
          <li class="palette-empty muted" role="option" aria-disabled="true" aria-selected="false">
            No command matches
          </li>
        )}
      </ul>
    </div>
  );
}

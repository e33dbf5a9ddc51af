// The command palette (Ctrl+Shift+P): every command of the key table with its keys, filtered by
// typing, ↑/↓ to choose, Enter to run. A modal dialog: the focus stays in it, and Escape gives it
// back to where it was before the command runs there.

import type { Action } from "../model/keys";
import { allChoices, type Choice, filterChoices, moveSelection } from "../model/palette";
import { clear, h } from "./dom";

let ids = 0;

export class CommandPalette {
  private input = h("input.palette-input", {
    type: "text",
    placeholder: "Type a command",
    spellcheck: false,
    autocomplete: "off",
    role: "combobox",
    "aria-expanded": "true",
    "aria-autocomplete": "list",
    "aria-label": "Command",
  });
  private list = h("ul.palette-list", {
    role: "listbox",
    id: `palette-list-${++ids}`,
    "aria-label": "Commands",
  });
  private dialog = h(
    "div.palette",
    { role: "dialog", "aria-modal": "true", "aria-label": "Command palette" },
    this.input,
    this.list,
  );
  readonly el = h("div.palette-overlay", { hidden: true }, this.dialog);
  private shown: Choice[] = [];
  private selected = -1;
  private returnTo: HTMLElement | null = null;

  constructor(private readonly run: (action: Action) => void) {
    this.input.setAttribute("aria-controls", this.list.id);
    this.input.addEventListener("input", () => this.render(0));
    this.el.addEventListener("keydown", (e) => this.onKey(e));
    this.el.addEventListener("pointerdown", (e) => {
      if (e.target === this.el) this.close(); // a click beside the dialog
    });
    // Keep the focus inside: whatever else gets it (a click on the list) gives it to the input.
    this.el.addEventListener("focusout", (e) => {
      if (!this.el.hidden && !this.el.contains(e.relatedTarget as Node)) {
        queueMicrotask(() => !this.el.hidden && this.input.focus());
      }
    });
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  toggle(): void {
    if (this.isOpen) this.close();
    else this.open();
  }

  open(): void {
    const active = document.activeElement;
    this.returnTo = active instanceof HTMLElement && active !== document.body ? active : null;
    this.el.hidden = false;
    this.input.value = "";
    this.render(0);
    this.input.focus();
  }

  /** Hide it and give the focus back (the command then acts where the user was). */
  close(): void {
    if (this.el.hidden) return;
    this.el.hidden = true;
    const back = this.returnTo;
    this.returnTo = null;
    if (back?.isConnected) back.focus();
  }

  private choose(i: number): void {
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
      this.input.focus(); // nothing else to go to: focus stays
    else return;
    e.preventDefault();
    e.stopPropagation();
  }

  private render(selected: number): void {
    this.shown = filterChoices(allChoices(), this.input.value);
    clear(
      this.list,
      ...this.shown.map((c, i) =>
        h(
          "li.palette-item",
          {
            role: "option",
            id: `${this.list.id}-${i}`,
            dataset: { action: c.action },
            onpointerdown: (e: Event) => e.preventDefault(), // keep the focus in the input
            onclick: () => this.choose(i),
          },
          h("span.palette-label", {}, c.label),
          h("span.palette-group.muted", {}, c.group),
          h("span.palette-keys", {}, ...c.keys.map((k) => h("kbd", {}, k))),
        ),
      ),
      this.shown.length
        ? null
        : h(
            "li.palette-empty.muted",
            { role: "option", "aria-disabled": "true" },
            "No command matches",
          ),
    );
    this.select(this.shown.length ? selected : -1);
  }

  private select(i: number): void {
    this.selected = i;
    [...this.list.children].forEach((li, j) => li.setAttribute("aria-selected", String(j === i)));
    const item = i >= 0 ? (this.list.children[i] as HTMLElement | undefined) : undefined;
    if (item) {
      this.input.setAttribute("aria-activedescendant", item.id);
      item.scrollIntoView({ block: "nearest" });
    } else this.input.removeAttribute("aria-activedescendant");
  }
}

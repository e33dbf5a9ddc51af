// The active tab's cell tree: nested flex splits with draggable dividers. Cells live as long as
// their leaf is in some tab: switching tabs takes them out of the page and puts them back, so a
// terminal keeps its attach and its scrollback (it refits when shown again). One cell is
// "focused" (ring drawn; the target of the keyboard shortcuts), remembered per tab; one may be
// maximised over the others (Escape or the same key restores it). Preact renders the tree
// (splits.tsx); each cell is its own CellView, made here before the tree renders and put into its
// pane by ref (the same element for as long as the cell lives), so a render never rebuilds one.

import { render } from "preact";

import { MAXIMIZED_KEY, type Maximized, readMaximized, withMaximized } from "../model/maximized";
import { equalSizes, isEqual, parentSplit, splitRefusal } from "../model/sizes";
import { store } from "../model/state";
import { focusAfterClose, leafIds, leaves, splitDirection, stepFocus } from "../model/tree";
import type { LayoutNode, Leaf, Split } from "../model/types";
import { showError, showNotice } from "./banner";
import { type CellActions, CellView } from "./cell";
import type { Action } from "./shortcuts";
import { Tree, type TreeHost } from "./splits";

type CellAction = Extract<
  Action,
  | "next"
  | "prev"
  | "splitRight"
  | "splitDown"
  | "close"
  | "picker"
  | "maximize"
  | "equalize"
  | "find"
  | "copy"
  | "paste"
>;

export class Workspace implements TreeHost {
  readonly el = workspaceElement();
  private cells = new Map<string, CellView>();
  private renderedTab = "";
  private dragging = false;
  private treeKey = "";
  private focusedId = "";
  /** The cell command running now (see run). */
  private pending: Promise<void> = Promise.resolve();
  private focusByTab = new Map<string, string>();
  private maximizedId = "";
  private root: LayoutNode | null = null;

  constructor() {
    const track = (e: Event) => {
      const cell = (e.target as HTMLElement | null)?.closest?.<HTMLElement>(".cell");
      const id = cell?.dataset.leaf;
      if (id && this.cells.has(id) && id !== this.focusedId) {
        this.focusedId = id;
        this.drawFocus();
      }
    };
    this.el.addEventListener("focusin", track);
    this.el.addEventListener("pointerdown", track, true);
  }

  render(): void {
    if (this.dragging) return;
    const tab = store.activeTab();
    const treeKey = JSON.stringify(tab);
    if (treeKey === this.treeKey) {
      // Same tree: only the cells' contents may change (agents went live, status...).
      for (const cell of this.cells.values()) cell.refresh();
      this.drawFocus();
      return;
    }
    this.treeKey = treeKey;
    if (this.renderedTab) this.focusByTab.set(this.renderedTab, this.focusedId);
    const switched = (tab?.id ?? "") !== this.renderedTab;
    this.root = tab?.root ?? null;
    for (const leaf of leaves(tab?.root)) this.place(leaf);
    render(<Tree root={this.root} host={this} />, this.el);
    this.el.setAttribute("aria-labelledby", tab ? `tab-${tab.id}` : "");
    // A cell is gone once no tab holds its leaf; the others wait out of the page.
    const kept = new Set((store.layouts?.tabs ?? []).flatMap((t) => leafIds(t.root)));
    const shown = new Set(this.root ? leafIds(this.root) : []);
    for (const [id, cell] of this.cells) {
      if (!kept.has(id)) {
        cell.dispose();
        this.cells.delete(id);
      } else if (!shown.has(id)) cell.refresh(); // agents may have changed meanwhile
    }
    this.renderedTab = tab?.id ?? "";
    if (switched) {
      this.focusedId = this.focusByTab.get(this.renderedTab) ?? "";
      this.maximizedId = keptMaximized()[this.renderedTab] ?? ""; // as it was before a reload
    }
    if (!this.order().some((c) => c.leafId === this.maximizedId)) this.maximizedId = "";
    this.drawMaximized();
    this.drawFocus();
    for (const cell of this.order()) cell.shown();
  }

  /** The focused cell's leaf id ("" when the tab has none). */
  get focused(): string {
    return this.focusedId;
  }

  get maximized(): boolean {
    return this.maximizedId !== "";
  }

  /** Cells of the active tab in reading order (the order of next/previous). */
  private order(): CellView[] {
    return (this.root ? leafIds(this.root) : [])
      .map((id) => this.cells.get(id))
      .filter((c): c is CellView => !!c);
  }

  private drawFocus(): void {
    const order = this.order();
    if (!order.some((c) => c.leafId === this.focusedId)) this.focusedId = order[0]?.leafId ?? "";
    for (const cell of this.cells.values()) cell.setFocused(cell.leafId === this.focusedId);
  }

  private drawMaximized(): void {
    this.el.classList.toggle("has-maximized", this.maximizedId !== "");
    for (const cell of this.cells.values()) cell.setMaximized(cell.leafId === this.maximizedId);
  }

  /** Focus a cell: the ring and the keyboard (its terminal, composer or picker). */
  focusCell(leafId: string): void {
    const cell = this.cells.get(leafId);
    if (!cell) return;
    this.focusedId = leafId;
    this.drawFocus();
    cell.focus();
  }

  /**
   * Run a command on a cell: the one whose header asked, else the focused one (keys, palette).
   * One at a time, in order: a key pressed again before the server answered the last split acts
   * on what that split left (the new, focused cell at its new size), not on the cell before it.
   */
  run(action: CellAction, leafId?: string): Promise<void> {
    const next = this.pending.then(() => this.runNow(action, leafId ?? this.focusedId));
    this.pending = next.catch(() => undefined);
    return next;
  }

  private async runNow(action: CellAction, leafId: string): Promise<void> {
    const order = this.order();
    const cell =
      order.find((c) => c.leafId === leafId) ?? order.find((c) => c.leafId === this.focusedId);
    if (!cell) return;
    switch (action) {
      case "next":
      case "prev": {
        const target = stepFocus(ids(order), cell.leafId, action === "next" ? 1 : -1);
        if (target && this.maximizedId) this.maximize(target); // the maximised cell follows
        if (target) this.focusCell(target);
        return;
      }
      case "splitRight":
      case "splitDown":
        return this.split(cell, splitDirection(action));
      case "close": {
        const neighbour = focusAfterClose(ids(order), cell.leafId);
        if ((await cell.close()) && neighbour) this.focusCell(neighbour);
        return;
      }
      case "picker":
        cell.openPicker();
        return;
      case "maximize":
        this.maximize(this.maximizedId === cell.leafId ? "" : cell.leafId);
        this.focusCell(cell.leafId);
        return;
      case "equalize":
        return this.equalize(cell.leafId);
      case "find":
      case "copy":
      case "paste": {
        const term = cell.terminal();
        if (!term) return showNotice("The focused cell shows no terminal.");
        if (action === "find") term.find();
        else if (action === "copy") term.copy();
        else await term.paste();
        return;
      }
    }
  }

  private maximize(leafId: string): void {
    this.maximizedId = leafId;
    this.drawMaximized();
    try {
      localStorage.setItem(
        MAXIMIZED_KEY,
        JSON.stringify(withMaximized(keptMaximized(), this.renderedTab, leafId)),
      );
    } catch {
      // no storage (private mode, quota): the cell is maximised until the page reloads
    }
  }

  /** Split unless a half would be under the minimum cell size; the focus goes to the new cell. */
  private async split(cell: CellView, direction: Split["direction"]): Promise<void> {
    // A maximised cell is split in its place, at its place's size: restore it first.
    if (this.maximizedId) this.maximize("");
    const box = cell.el.getBoundingClientRect();
    const refusal = splitRefusal({ width: box.width, height: box.height }, direction);
    if (refusal) {
      const instead = refusal.instead;
      showNotice(
        refusal.message,
        instead
          ? {
              label: instead === "row" ? "Split right" : "Split down",
              run: () => void this.run(instead === "row" ? "splitRight" : "splitDown", cell.leafId),
            }
          : undefined,
      );
      cell.focus();
      return;
    }
    const id = await cell.split(direction);
    if (id) this.focusCell(id); // rendered already: the store notified its subscribers
  }

  private async equalize(leafId: string): Promise<void> {
    const split = this.root ? parentSplit(this.root, leafId) : null;
    if (!split) return showNotice("This cell is alone in its tab: there is nothing to equalize.");
    if (isEqual(split.sizes)) return;
    await this.resize(split, equalSizes(split.children.length));
  }

  async resize(split: Split, sizes: number[]): Promise<void> {
    try {
      await store.applyLayout({ op: "resize", split_id: split.id, sizes });
    } catch (e) {
      showError(e, "Resize");
    }
  }

  /** Drop every cell (their terminal attaches died with the connection). */
  reset(): void {
    for (const cell of this.cells.values()) cell.dispose();
    this.cells.clear();
    this.renderedTab = "";
    this.treeKey = "";
    this.root = null;
    this.maximizedId = "";
    this.focusByTab.clear();
  }

  get activeTabId(): string {
    return this.renderedTab;
  }

  /** The leaf's cell, made the first time it is shown, told of its leaf after. */
  private place(leaf: Leaf): void {
    const cell = this.cells.get(leaf.id);
    if (cell) return cell.update(leaf);
    const act: CellActions = (action, leafId) => void this.run(action as CellAction, leafId);
    this.cells.set(leaf.id, new CellView(leaf, act));
  }

  cellElement(leafId: string): HTMLElement {
    return this.cells.get(leafId)!.el;
  }

  drag(active: boolean): void {
    this.dragging = active;
  }
}

/** The element the workspace renders into: the tab panel the tab bar's tabs control. */
function workspaceElement(): HTMLDivElement {
  const el = document.createElement("div");
  el.className = "workspace";
  el.setAttribute("role", "tabpanel");
  el.id = "workspace";
  return el;
}

function ids(cells: CellView[]): string[] {
  return cells.map((c) => c.leafId);
}

function keptMaximized(): Maximized {
  try {
    return readMaximized(localStorage.getItem(MAXIMIZED_KEY));
  } catch {
    return {};
  }
}

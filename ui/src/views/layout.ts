// The active tab's cell tree: nested flex splits with draggable dividers; cells are kept across
// re-renders (a terminal is not re-attached because a sibling moved), disposed when gone. One cell
// is "focused" (ring drawn; the target of the keyboard shortcuts).

import { store } from "../model/state";
import { dragSizes, focusAfterClose, leafIds, paneFlex, splitDirection, stepFocus } from "../model/tree";
import type { LayoutNode, Split } from "../model/types";
import { showError } from "./banner";
import { CellView } from "./cell";
import { h } from "./dom";
import type { Action } from "./shortcuts";

export class Workspace {
  readonly el = h("div.workspace");
  private cells = new Map<string, CellView>();
  private renderedTab = "";
  private dragging = false;
  private treeKey = "";
  private focusedId = "";
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
    this.root = tab?.root ?? null;
    const seen = new Set<string>();
    const root = tab ? this.renderNode(tab.root, seen) : h("div.cell-placeholder", {}, "No tab");
    this.el.replaceChildren(root);
    for (const [id, cell] of this.cells) {
      if (!seen.has(id)) {
        cell.dispose();
        this.cells.delete(id);
      }
    }
    this.renderedTab = tab?.id ?? "";
    this.drawFocus();
  }

  /** The focused cell's leaf id ("" when the tab has none). */
  get focused(): string {
    return this.focusedId;
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

  /** Focus a cell: the ring and the keyboard (its terminal, composer or picker). */
  focusCell(leafId: string): void {
    const cell = this.cells.get(leafId);
    if (!cell) return;
    this.focusedId = leafId;
    this.drawFocus();
    cell.focus();
  }

  /** Run a keyboard shortcut's action on the focused cell. */
  async run(action: Action): Promise<void> {
    const order = this.order();
    const i = order.findIndex((c) => c.leafId === this.focusedId);
    const cell = order[i];
    if (!cell) return;
    switch (action) {
      case "next":
      case "prev": {
        const target = stepFocus(ids(order), cell.leafId, action === "next" ? 1 : -1);
        if (target) this.focusCell(target);
        return;
      }
      case "splitRight":
      case "splitDown": {
        const id = await cell.split(splitDirection(action));
        if (id) this.focusCell(id);
        return;
      }
      case "close": {
        const neighbour = focusAfterClose(ids(order), cell.leafId);
        if ((await cell.close()) && neighbour) this.focusCell(neighbour);
        return;
      }
      case "picker":
        cell.openPicker();
        return;
    }
  }

  /** Drop every cell (their terminal attaches died with the connection). */
  reset(): void {
    for (const cell of this.cells.values()) cell.dispose();
    this.cells.clear();
    this.renderedTab = "";
    this.treeKey = "";
    this.root = null;
  }

  get activeTabId(): string {
    return this.renderedTab;
  }

  private renderNode(node: LayoutNode, seen: Set<string>): HTMLElement {
    if (node.type === "leaf") {
      seen.add(node.id);
      let cell = this.cells.get(node.id);
      if (cell) cell.update(node);
      else this.cells.set(node.id, (cell = new CellView(node)));
      return cell.el;
    }
    const el = h("div.split", { class: node.direction, dataset: { split: node.id } });
    node.children.forEach((child, i) => {
      if (i > 0) el.append(this.divider(node, el, i));
      const pane = h("div.pane", {}, this.renderNode(child, seen));
      pane.style.flex = paneFlex(node.sizes, i);
      el.append(pane);
    });
    return el;
  }

  private divider(split: Split, container: HTMLElement, index: number): HTMLElement {
    const div = h("div.divider", { class: split.direction, title: "Drag to resize" });
    div.addEventListener("pointerdown", (down) => {
      down.preventDefault();
      div.setPointerCapture(down.pointerId);
      this.dragging = true;
      div.classList.add("dragging");
      const panes = [...container.children].filter((c) => c.classList.contains("pane")) as HTMLElement[];
      let sizes = [...split.sizes];
      const total = split.direction === "row" ? container.clientWidth : container.clientHeight;
      const startPos = split.direction === "row" ? down.clientX : down.clientY;
      const move = (ev: PointerEvent) => {
        const pos = split.direction === "row" ? ev.clientX : ev.clientY;
        sizes = dragSizes(split.sizes, index, (pos - startPos) / Math.max(total, 1));
        panes[index - 1].style.flex = paneFlex(sizes, index - 1);
        panes[index].style.flex = paneFlex(sizes, index);
      };
      const up = () => {
        div.removeEventListener("pointermove", move);
        div.removeEventListener("pointerup", up);
        div.removeEventListener("pointercancel", up);
        div.classList.remove("dragging");
        this.dragging = false;
        store
          .applyLayout({ op: "resize", split_id: split.id, sizes })
          .catch((e) => showError(e, "Resize"));
      };
      div.addEventListener("pointermove", move);
      div.addEventListener("pointerup", up);
      div.addEventListener("pointercancel", up);
    });
    return div;
  }
}

function ids(cells: CellView[]): string[] {
  return cells.map((c) => c.leafId);
}

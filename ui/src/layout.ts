// The active tab's cell tree: nested flex splits with draggable dividers; cells are kept across
// re-renders (a terminal is not re-attached because a sibling moved), disposed when gone.

import { showError } from "./banner";
import { CellView } from "./cell";
import { h } from "./dom";
import { store } from "./state";
import type { LayoutNode, Split } from "./types";

const MIN_FRACTION = 0.05;

export class Workspace {
  readonly el = h("div.workspace");
  private cells = new Map<string, CellView>();
  private renderedTab = "";
  private dragging = false;
  private treeKey = "";

  render(): void {
    if (this.dragging) return;
    const tab = store.activeTab();
    const treeKey = JSON.stringify(tab);
    if (treeKey === this.treeKey) {
      // Same tree: only the cells' contents may change (agents went live, status...).
      for (const cell of this.cells.values()) cell.refresh();
      return;
    }
    this.treeKey = treeKey;
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
  }

  /** Drop every cell (their terminal attaches died with the connection). */
  reset(): void {
    for (const cell of this.cells.values()) cell.dispose();
    this.cells.clear();
    this.renderedTab = "";
    this.treeKey = "";
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
      pane.style.flex = `${node.sizes[i] ?? 1} 1 0`;
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
      const sizes = [...split.sizes];
      const total = split.direction === "row" ? container.clientWidth : container.clientHeight;
      const startPos = split.direction === "row" ? down.clientX : down.clientY;
      const a = index - 1;
      const b = index;
      const pair = sizes[a] + sizes[b];
      const start = sizes[a];
      const sum = sizes.reduce((x, y) => x + y, 0);
      const move = (ev: PointerEvent) => {
        const pos = split.direction === "row" ? ev.clientX : ev.clientY;
        const delta = ((pos - startPos) / Math.max(total, 1)) * sum;
        const min = MIN_FRACTION * sum;
        sizes[a] = Math.min(Math.max(start + delta, min), pair - min);
        sizes[b] = pair - sizes[a];
        panes[a].style.flex = `${sizes[a]} 1 0`;
        panes[b].style.flex = `${sizes[b]} 1 0`;
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

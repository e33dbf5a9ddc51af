// The tab's tree as Preact renders it: nested flex splits, each child in a pane sized by its
// split, a divider between each two. A cell's element is put into its pane by ref and is the
// pane's only child, kept as it is; a divider's drag sizes its two panes in place, without a
// render, and the workspace sends the new sizes once it is let go.

import type { TargetedPointerEvent } from "preact";

import { equalSizes, isEqual, minShares } from "../model/sizes";
import { dragSizes, paneFlex } from "../model/tree";
import type { LayoutNode, Split } from "../model/types";

/** What the tree asks of the workspace that renders it. */
export type TreeHost = {
  /** The element of a leaf's cell (the workspace makes the cells before the tree renders). */
  cellElement(leafId: string): HTMLElement;
  /** Send a split's new sizes to the server. */
  resize(split: Split, sizes: number[]): Promise<void>;
  /** A divider is dragged (true) or let go: the workspace renders nothing meanwhile. */
  drag(active: boolean): void;
};

type NodeProps = { node: LayoutNode; host: TreeHost };

/** The tab's tree: its splits, or its one cell in a pane of its own; no tab, a placeholder. */
export function Tree({ root, host }: { root: LayoutNode | null; host: TreeHost }) {
  if (!root) return <div class="cell-placeholder">No tab</div>;
  if (root.type === "leaf") return <Pane node={root} host={host} />;
  return <SplitView split={root} host={host} />;
}

function SplitView({ split, host }: { split: Split; host: TreeHost }) {
  return (
    <div class={`split ${split.direction}`} data-split={split.id}>
      {split.children.flatMap((child, i) => [
        ...(i > 0
          ? [<Divider key={`divider-${child.id}`} split={split} index={i} host={host} />]
          : []),
        <Pane key={child.id} node={child} host={host} flex={paneFlex(split.sizes, i)} />,
      ])}
    </div>
  );
}

/** A pane holds a split, or a cell's element put in by ref (its only child, kept as it is). */
function Pane({ node, host, flex }: NodeProps & { flex?: string }) {
  const style = flex ? { flex } : undefined;
  if (node.type === "split") {
    return (
      <div class="pane" style={style}>
        <SplitView split={node} host={host} />
      </div>
    );
  }
  const cell = host.cellElement(node.id);
  const mount = (pane: HTMLDivElement | null) => {
    if (pane && pane.firstChild !== cell) pane.replaceChildren(cell);
  };
  return <div class="pane" style={style} ref={mount} />;
}

type DividerProps = { split: Split; index: number; host: TreeHost };

/** Between panes `index - 1` and `index`: dragged, it resizes them (the server keeps the sizes
 * once let go); double-clicked, it makes the split's panes equal. */
function Divider({ split, index, host }: DividerProps) {
  const onDblClick = () => {
    if (!isEqual(split.sizes)) void host.resize(split, equalSizes(split.children.length));
  };
  const onPointerDown = (down: TargetedPointerEvent<HTMLDivElement>) => {
    down.preventDefault();
    const div = down.currentTarget;
    const container = div.parentElement!;
    div.setPointerCapture(down.pointerId);
    host.drag(true);
    div.classList.add("dragging");
    const panes = [...container.children].filter((c) =>
      c.classList.contains("pane"),
    ) as HTMLElement[];
    let sizes = [...split.sizes];
    const total = split.direction === "row" ? container.clientWidth : container.clientHeight;
    const mins = minShares(split, total);
    const startPos = split.direction === "row" ? down.clientX : down.clientY;
    // While dragged, the two panes are sized here, not rendered: nothing else moves.
    const move = (ev: PointerEvent) => {
      const pos = split.direction === "row" ? ev.clientX : ev.clientY;
      sizes = dragSizes(split.sizes, index, (pos - startPos) / Math.max(total, 1), mins);
      panes[index - 1].style.flex = paneFlex(sizes, index - 1);
      panes[index].style.flex = paneFlex(sizes, index);
    };
    const up = () => {
      div.removeEventListener("pointermove", move);
      div.removeEventListener("pointerup", up);
      div.removeEventListener("pointercancel", up);
      div.classList.remove("dragging");
      host.drag(false);
      if (sizes.every((s, i) => s === split.sizes[i])) return; // a click, or a double-click
      void host.resize(split, sizes);
    };
    div.addEventListener("pointermove", move);
    div.addEventListener("pointerup", up);
    div.addEventListener("pointercancel", up);
  };
  return (
    <div
      class={`divider ${split.direction}`}
      title="Drag to resize; double-click to equalize"
      role="separator"
      aria-orientation={split.direction === "row" ? "vertical" : "horizontal"}
      onDblClick={onDblClick}
      onPointerDown={onPointerDown}
    />
  );
}

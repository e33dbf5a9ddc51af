// Cell sizes in pixels: the smallest a cell may get, whether a split still leaves both halves at
// least that big, the share each pane of a split must keep while a divider is dragged, and the
// sizes that make a split's panes equal. Pure (the workspace measures, these decide), so the rules
// are tested without a browser.

import type { LayoutNode, Split } from "./types";

/** A cell narrower or lower than this is refused by a split (its header folds into "⋯" well
 * before: see style.css): about 28 columns by 6 rows of a 13 px terminal under its header. */
export const MIN_CELL = { width: 240, height: 140 } as const;
/** The width of a divider between two panes (style.css .divider). */
export const DIVIDER_PX = 5;

export type Box = { width: number; height: number };
export type Direction = Split["direction"];

/** The length a split direction divides: widths for a row, heights for a column. */
function along(box: Box, direction: Direction): number {
  return direction === "row" ? box.width : box.height;
}

function minAlong(direction: Direction): number {
  return direction === "row" ? MIN_CELL.width : MIN_CELL.height;
}

/** Whether splitting a cell of this size in `direction` leaves both halves at the minimum (the
 * server halves the cell's share; a divider comes between the halves). */
export function splitFits(cell: Box, direction: Direction): boolean {
  return (along(cell, direction) - DIVIDER_PX) / 2 >= minAlong(direction);
}

export type SplitRefusal = { message: string; instead: Direction | null };

/** Null when the split fits; else why not, and the other direction when that one fits. */
export function splitRefusal(cell: Box, direction: Direction): SplitRefusal | null {
  if (splitFits(cell, direction)) return null;
  const other: Direction = direction === "row" ? "column" : "row";
  const what = direction === "row" ? "narrow to split right" : "low to split down";
  const min = direction === "row" ? `${MIN_CELL.width} px wide` : `${MIN_CELL.height} px high`;
  const instead = splitFits(cell, other) ? other : null;
  const hint = instead
    ? ` It can be split ${instead === "row" ? "right" : "down"}.`
    : " Close a cell, or maximise this one.";
  return {
    message: `This cell is too ${what}: both halves would be under ${min}.${hint}`,
    instead,
  };
}

/**
 * The smallest length a node can take along `direction` (px): a cell's minimum; a split that
 * divides that same direction needs all its children's minimums and the dividers between them;
 * a split across it needs its largest child's.
 */
export function minExtent(node: LayoutNode, direction: Direction): number {
  if (node.type === "leaf") return minAlong(direction);
  const mins = node.children.map((c) => minExtent(c, direction));
  if (node.direction !== direction) return Math.max(0, ...mins);
  return mins.reduce((a, b) => a + b, 0) + DIVIDER_PX * Math.max(0, node.children.length - 1);
}

/**
 * Each child's minimum as a share of the split's sum of sizes, for `dragSizes`: its minimum
 * length over the length the panes share (the split's length less its dividers).
 */
export function minShares(split: Split, lengthPx: number): number[] {
  const sum = split.sizes.reduce((a, b) => a + b, 0);
  const panes = lengthPx - DIVIDER_PX * Math.max(0, split.children.length - 1);
  if (!(panes > 0) || !(sum > 0)) return split.children.map(() => 0);
  return split.children.map((c) => (minExtent(c, split.direction) / panes) * sum);
}

/** Sizes that make every pane of a split the same length (what `layouts.apply resize` takes). */
export function equalSizes(count: number): number[] {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`no split of ${count} panes`);
  return Array.from({ length: count }, () => 1 / count);
}

/** Whether the sizes are already equal (Equalize then has nothing to do). */
export function isEqual(sizes: readonly number[]): boolean {
  return sizes.every((s) => Math.abs(s - sizes[0]) < 1e-9);
}

/** The split directly holding `leafId`, or null (the leaf is the root, or is not in the tree). */
export function parentSplit(root: LayoutNode, leafId: string): Split | null {
  if (root.type === "leaf") return null;
  if (root.children.some((c) => c.id === leafId)) return root;
  for (const c of root.children) {
    const found = parentSplit(c, leafId);
    if (found) return found;
  }
  return null;
}

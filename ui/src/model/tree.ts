// The cell tree of a tab as the UI reads it: reading order, focus moves and divider drags. The
// tree itself is the server's (`layouts.apply` splits, closes and normalises sizes); these pure
// functions are what the workspace decides on its own, so they are tested without a DOM.

import type { Leaf, LayoutNode, Split } from "./types";

/** No pane is dragged below this share of its split (a thin but still visible cell). */
export const MIN_FRACTION = 0.05;

/** The cells of a tree in reading order: depth first, left to right (the server's order too);
 * none for what is not a node. */
export function leaves(node: LayoutNode | undefined): Leaf[] {
  if (!node || typeof node !== "object") return [];
  if (node.type === "leaf") return [node];
  return Array.isArray(node.children) ? node.children.flatMap(leaves) : [];
}

/** The ids of `leaves`. */
export function leafIds(node: LayoutNode): string[] {
  return leaves(node).map((leaf) => leaf.id);
}

/** The cell focused after `current` when stepping forward (1) or back (-1), wrapping around. */
export function stepFocus(order: readonly string[], current: string, step: 1 | -1): string | null {
  if (order.length === 0) return null;
  const i = order.indexOf(current);
  if (i < 0) return order[0];
  return order[(i + step + order.length) % order.length];
}

/** The cell focused once `closing` is gone: the previous one, else the next; null if alone. */
export function focusAfterClose(order: readonly string[], closing: string): string | null {
  const i = order.indexOf(closing);
  if (i < 0 || order.length < 2) return null;
  return order[i > 0 ? i - 1 : 1];
}

/** The `layouts.apply` split direction of a shortcut: right = side by side, down = stacked. */
export function splitDirection(action: "splitRight" | "splitDown"): Split["direction"] {
  return action === "splitRight" ? "row" : "column";
}

/**
 * Sizes after dragging the divider before child `index` by `moved`, a share of the whole split
 * (pointer travel / container length; positive = right or down). Only the two panes beside the
 * divider change, their sum stays, and each keeps at least its minimum share: `mins[i]` (in the
 * units of `sizes`; sizes.ts `minShares` turns pixel minimums into these), else MIN_FRACTION of
 * the split. When the pair is too small for both minimums it is shared in proportion to them, so
 * every size stays positive as the server requires.
 */
export function dragSizes(
  sizes: readonly number[],
  index: number,
  moved: number,
  mins?: readonly number[],
): number[] {
  const a = index - 1;
  const b = index;
  if (a < 0 || b >= sizes.length) throw new RangeError(`no divider before child ${index}`);
  const out = [...sizes];
  const sum = sizes.reduce((x, y) => x + y, 0);
  const pair = sizes[a] + sizes[b];
  let minA = Math.max(mins?.[a] ?? MIN_FRACTION * sum, 0);
  let minB = Math.max(mins?.[b] ?? MIN_FRACTION * sum, 0);
  if (minA + minB >= pair) {
    // Not enough room for both: share the pair in proportion to the minimums (halves if none).
    const weight = minA + minB > 0 ? minA / (minA + minB) : 0.5;
    minA = pair * weight;
    minB = pair - minA;
  }
  const wanted = sizes[a] + (Number.isFinite(moved) ? moved : 0) * sum;
  out[a] = Math.min(Math.max(wanted, minA), pair - minB);
  out[b] = pair - out[a];
  if (!(out[a] > 0 && out[b] > 0)) return [...sizes]; // a pair of minimums at 0: keep as it was
  return out;
}

/** The CSS flex of child `i` of a split: its size as the grow factor. */
export function paneFlex(sizes: readonly number[], i: number): string {
  return `${sizes[i] ?? 1} 1 0`;
}

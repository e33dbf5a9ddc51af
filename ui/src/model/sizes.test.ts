import { describe, expect, it } from "vitest";

import {
  DIVIDER_PX,
  equalSizes,
  isEqual,
  MIN_CELL,
  minExtent,
  minShares,
  parentSplit,
  splitFits,
  splitRefusal,
} from "./sizes";
import { dragSizes } from "./tree";
import type { LayoutNode, Leaf, Split } from "./types";

const leaf = (id: string): Leaf => ({
  type: "leaf",
  id,
  agent: null,
  view: "terminal",
  agent_was_running: false,
  conversation_id: null,
});
const split = (
  id: string,
  direction: Split["direction"],
  children: LayoutNode[],
  sizes?: number[],
): Split => ({
  type: "split",
  id,
  direction,
  children,
  sizes: sizes ?? children.map(() => 1 / children.length),
});

describe("splitting stops at the minimum cell size", () => {
  const twice = 2 * MIN_CELL.width + DIVIDER_PX;

  it("splits a cell right while both halves stay at the minimum width", () => {
    expect(splitFits({ width: twice, height: 100 }, "row")).toBe(true);
    expect(splitFits({ width: twice - 1, height: 1000 }, "row")).toBe(false);
    expect(splitFits({ width: 1090, height: 800 }, "row")).toBe(true);
  });

  it("splits down while both halves stay at the minimum height", () => {
    const high = 2 * MIN_CELL.height + DIVIDER_PX;
    expect(splitFits({ width: 100, height: high }, "column")).toBe(true);
    expect(splitFits({ width: 2000, height: high - 1 }, "column")).toBe(false);
  });

  it("halving a wide workspace stops after a few splits, never below the minimum", () => {
    let width = 1090;
    let splits = 0;
    while (splitFits({ width, height: 800 }, "row")) {
      width = (width - DIVIDER_PX) / 2;
      splits++;
      expect(width).toBeGreaterThanOrEqual(MIN_CELL.width);
    }
    expect(splits).toBe(2); // 1090 → 542 → 268; a third would be 131 (the screenshot's 130 px)
  });

  it("says why a split is refused and offers the other direction when it fits", () => {
    expect(splitRefusal({ width: 1000, height: 800 }, "row")).toBeNull();
    const narrow = splitRefusal({ width: 300, height: 800 }, "row")!;
    expect(narrow.instead).toBe("column");
    expect(narrow.message).toMatch(/too narrow to split right/);
    expect(narrow.message).toMatch(new RegExp(`${MIN_CELL.width} px`));
    expect(narrow.message).toMatch(/split down/);
    const low = splitRefusal({ width: 300, height: 200 }, "column")!;
    expect(low.instead).toBeNull();
    expect(low.message).toMatch(/too low to split down/);
  });
});

describe("minimum extents of a tree", () => {
  const tree = split("r", "row", [
    leaf("a"),
    split("c", "column", [leaf("b"), leaf("d")]),
    leaf("e"),
  ]);

  it("adds the minimums of panes side by side, with their dividers", () => {
    expect(minExtent(leaf("a"), "row")).toBe(MIN_CELL.width);
    expect(minExtent(tree, "row")).toBe(3 * MIN_CELL.width + 2 * DIVIDER_PX);
  });

  it("takes the largest minimum across the split's direction", () => {
    expect(minExtent(tree, "column")).toBe(2 * MIN_CELL.height + DIVIDER_PX);
    expect(minExtent(split("x", "column", [leaf("p"), leaf("q")]), "row")).toBe(MIN_CELL.width);
  });

  it("turns them into shares of the split that a drag keeps", () => {
    const s = split("s", "row", [leaf("a"), split("c", "row", [leaf("b"), leaf("d")])], [0.5, 0.5]);
    const length = 1000;
    const shares = minShares(s, length);
    const panes = length - DIVIDER_PX;
    expect(shares[0]).toBeCloseTo(MIN_CELL.width / panes);
    expect(shares[1]).toBeCloseTo((2 * MIN_CELL.width + DIVIDER_PX) / panes);
    expect(minShares(s, 0)).toEqual([0, 0]);
  });
});

describe("dragging a divider", () => {
  it("stops each pane at its own minimum share", () => {
    const mins = [0.2, 0.4];
    expect(dragSizes([0.5, 0.5], 1, -1, mins)).toEqual([0.2, 0.8]);
    const right = dragSizes([0.5, 0.5], 1, 1, mins);
    expect(right[0]).toBeCloseTo(0.6);
    expect(right[1]).toBeCloseTo(0.4);
  });

  it("shares a pair too small for both minimums in proportion to them", () => {
    const out = dragSizes([0.3, 0.3, 0.4], 1, 0.5, [0.3, 0.6, 0.1]);
    expect(out[0]).toBeCloseTo(0.2);
    expect(out[1]).toBeCloseTo(0.4);
    expect(out[2]).toBe(0.4);
  });

  it("keeps sizes positive with minimums of zero", () => {
    const out = dragSizes([0.5, 0.5], 1, -5, [0, 0]);
    expect(out).toEqual([0.5, 0.5]);
  });
});

describe("equalize", () => {
  it("gives every pane the same share, summing to 1", () => {
    expect(equalSizes(2)).toEqual([0.5, 0.5]);
    const three = equalSizes(3);
    expect(three.reduce((a, b) => a + b, 0)).toBeCloseTo(1);
    expect(isEqual(three)).toBe(true);
    expect(isEqual([0.7, 0.3])).toBe(false);
    expect(() => equalSizes(0)).toThrow(RangeError);
  });

  it("acts on the split that holds the focused cell", () => {
    const inner = split("c", "column", [leaf("b"), leaf("d")], [0.8, 0.2]);
    const tree = split("r", "row", [leaf("a"), inner], [0.3, 0.7]);
    expect(parentSplit(tree, "d")).toBe(inner);
    expect(parentSplit(tree, "a")?.id).toBe("r");
    expect(parentSplit(tree, "zz")).toBeNull();
    expect(parentSplit(leaf("a"), "a")).toBeNull();
  });
});

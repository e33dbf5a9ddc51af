import { describe, expect, it } from "vitest";

import fixture from "./testdata/layouts.json";
import {
  dragSizes,
  focusAfterClose,
  leafIds,
  MIN_FRACTION,
  paneFlex,
  splitDirection,
  stepFocus,
} from "./tree";
import type { Layouts, LayoutNode, Split } from "./types";

// What the server made and stored for each op (tests/unit/domain/test_layout_ui_fixture.py
// checks this file against idea/domain/layout/).
type Step = {
  name: string;
  op: { op: string; leaf_id?: string; direction?: string; split_id?: string; sizes?: number[] };
  new_ids: { leaf_id?: string; split_id?: string };
  layouts: Layouts;
  leaves: string[];
};
const start = fixture.start as unknown as Layouts;
const steps = fixture.steps as unknown as Step[];

function step(name: string): { before: Layouts; after: Step } {
  const i = steps.findIndex((s) => s.name === name);
  if (i < 0) throw new Error(`no step ${name}`);
  return { before: i === 0 ? start : steps[i - 1].layouts, after: steps[i] };
}

function root(layouts: Layouts): LayoutNode {
  const tab = layouts.tabs.find((t) => t.id === layouts.active_tab);
  if (!tab) throw new Error("no active tab");
  return tab.root;
}

function parentOf(node: LayoutNode, id: string): Split | null {
  if (node.type === "leaf") return null;
  if (node.children.some((c) => c.id === id)) return node;
  for (const child of node.children) {
    const found = parentOf(child, id);
    if (found) return found;
  }
  return null;
}

function byId(node: LayoutNode, id: string): LayoutNode | null {
  if (node.id === id) return node;
  if (node.type === "leaf") return null;
  for (const child of node.children) {
    const found = byId(child, id);
    if (found) return found;
  }
  return null;
}

describe("reading order", () => {
  it("is the server's cell order for every stored layout", () => {
    expect(leafIds(root(start))).toEqual(["a"]);
    for (const s of steps) expect(leafIds(root(s.layouts)), s.name).toEqual(s.leaves);
  });
});

describe("split", () => {
  it("right asks for a row split and the new cell comes right after the old one", () => {
    const { before, after } = step("split a right");
    expect(splitDirection("splitRight")).toBe(after.op.direction);
    const fresh = after.new_ids.leaf_id!;
    const parent = parentOf(root(after.layouts), fresh)!;
    expect(parent.direction).toBe("row");
    expect(parent.children.map((c) => c.id)).toEqual(["a", fresh]);
    expect(leafIds(root(before))).toEqual(["a"]);
    // Focus moves to the new cell; from there "next" wraps back to the old one.
    expect(stepFocus(after.leaves, "a", 1)).toBe(fresh);
    expect(stepFocus(after.leaves, fresh, 1)).toBe("a");
  });

  it("down asks for a column split and the new cell comes below the old one", () => {
    const { after } = step("split b down");
    expect(splitDirection("splitDown")).toBe(after.op.direction);
    const fresh = after.new_ids.leaf_id!;
    const parent = parentOf(root(after.layouts), fresh)!;
    expect(parent.direction).toBe("column");
    expect(parent.children.map((c) => c.id)).toEqual(["b", fresh]);
    expect(parent.sizes).toEqual([0.5, 0.5]);
  });

  it("beside a cell of a same-direction split halves that cell's share only", () => {
    const { before, after } = step("split a right again");
    const old = byId(root(before), "s1") as Split;
    const now = byId(root(after.layouts), "s1") as Split;
    expect(now.children.map((c) => c.id)).toEqual(["a", "d", "s2"]);
    expect(now.sizes).toEqual([old.sizes[0] / 2, old.sizes[0] / 2, old.sizes[1]]);
    expect(after.leaves).toEqual(["a", "d", "b", "c"]);
  });
});

describe("close", () => {
  it("gives the closed cell's share to its previous sibling and focuses the previous cell", () => {
    const { before, after } = step("close d");
    const order = leafIds(root(before));
    expect(focusAfterClose(order, "d")).toBe("a");
    const old = byId(root(before), "s1") as Split;
    const now = byId(root(after.layouts), "s1") as Split;
    expect(now.children.map((c) => c.id)).toEqual(["a", "s2"]);
    expect(now.sizes[0]).toBeCloseTo(old.sizes[0] + old.sizes[1]);
    expect(now.sizes[1]).toBe(old.sizes[2]);
    expect(after.leaves).not.toContain("d");
  });

  it("of a first cell focuses the next one; a split left with one child is replaced by it", () => {
    const { before, after } = step("close a");
    expect(focusAfterClose(leafIds(root(before)), "a")).toBe("b");
    const r = root(after.layouts);
    expect(r.id).toBe("s2");
    expect(byId(r, "s1")).toBeNull();
    expect(after.leaves).toEqual(["b", "c"]);
  });

  it("of the last cell keeps that cell, emptied, and the focus stays on it", () => {
    const { before, after } = step("close c, the last cell");
    expect(root(before)).toMatchObject({ type: "leaf", id: "c", agent: "agent-1" });
    expect(focusAfterClose(leafIds(root(before)), "c")).toBeNull();
    expect(root(after.layouts)).toMatchObject({ type: "leaf", id: "c", agent: null });
    expect(stepFocus(after.leaves, "c", 1)).toBe("c");
    expect(stepFocus(after.leaves, "c", -1)).toBe("c");
  });

  it("of a cell that is not in the order moves the focus nowhere", () => {
    expect(focusAfterClose(["a", "b"], "zz")).toBeNull();
  });
});

describe("focus next and previous", () => {
  const order = ["a", "d", "b", "c"];

  it("steps in reading order and wraps at both ends", () => {
    expect(stepFocus(order, "a", 1)).toBe("d");
    expect(stepFocus(order, "d", 1)).toBe("b");
    expect(stepFocus(order, "c", 1)).toBe("a");
    expect(stepFocus(order, "a", -1)).toBe("c");
    expect(stepFocus(order, "b", -1)).toBe("d");
  });

  it("goes to the first cell from a cell that is gone, and nowhere in an empty tab", () => {
    expect(stepFocus(order, "gone", 1)).toBe("a");
    expect(stepFocus(order, "gone", -1)).toBe("a");
    expect(stepFocus([], "a", 1)).toBeNull();
  });
});

describe("resize by dragging a divider", () => {
  const sizes = [0.5, 0.25, 0.25];
  const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0);

  it("moves only the two panes beside the divider and keeps their sum", () => {
    const out = dragSizes(sizes, 1, 0.1);
    expect(out[0]).toBeCloseTo(0.6);
    expect(out[1]).toBeCloseTo(0.15);
    expect(out[2]).toBe(0.25);
    expect(sum(out)).toBeCloseTo(1);
    expect(sizes).toEqual([0.5, 0.25, 0.25]); // the input is not changed
  });

  it("is the identity when the pointer did not move", () => {
    expect(dragSizes(sizes, 2, 0)).toEqual(sizes);
    expect(dragSizes(sizes, 2, Number.NaN)).toEqual(sizes);
  });

  it("stops each pane at the minimum share, in both directions", () => {
    const right = dragSizes(sizes, 1, 10);
    expect(right[1]).toBeCloseTo(MIN_FRACTION);
    expect(right[0]).toBeCloseTo(0.75 - MIN_FRACTION);
    const left = dragSizes(sizes, 1, -10);
    expect(left[0]).toBeCloseTo(MIN_FRACTION);
    expect(left[1]).toBeCloseTo(0.75 - MIN_FRACTION);
  });

  it("scales the minimum and the travel with sizes the server has not normalised", () => {
    const out = dragSizes([2, 1, 1], 1, 0.25); // a quarter of the width = 1 unit of 4
    // Clamped at 5 % of 4 = 0.2.
    expect(out[0]).toBeCloseTo(2.8);
    expect(out[1]).toBeCloseTo(0.2);
    expect(out[2]).toBe(1);
  });

  it("never makes a size zero or negative, even for a pair thinner than the minimum", () => {
    const thin = [0.01, 0.01, 0.98];
    for (const moved of [-1, -0.01, 0, 0.003, 0.5, 1]) {
      const out = dragSizes(thin, 1, moved);
      expect(
        out.every((x) => x > 0),
        `moved ${moved}: ${out}`,
      ).toBe(true);
      expect(out[0] + out[1]).toBeCloseTo(0.02);
    }
  });

  it("refuses a divider that does not exist", () => {
    expect(() => dragSizes(sizes, 0, 0.1)).toThrow(RangeError);
    expect(() => dragSizes(sizes, 3, 0.1)).toThrow(RangeError);
  });
});

describe("sizes through the server", () => {
  it("keep the proportions the UI sent once the server stored them normalised", () => {
    const { after } = step("resize s1");
    const sent = after.op.sizes!;
    const stored = (byId(root(after.layouts), "s1") as Split).sizes;
    expect(sum(stored)).toBeCloseTo(1);
    const grow = (xs: number[]) => xs.map((_, i) => Number(paneFlex(xs, i).split(" ")[0]) / xs[0]);
    expect(grow(stored)).toEqual(grow(sent));
  });

  it("after a drag are what the server accepts: one positive size per child", () => {
    for (const s of steps) {
      const walk = (node: LayoutNode): void => {
        if (node.type === "leaf") return;
        for (let i = 1; i < node.children.length; i++) {
          for (const moved of [-2, -0.2, 0.2, 2]) {
            const out = dragSizes(node.sizes, i, moved);
            expect(out).toHaveLength(node.children.length);
            expect(out.every((x) => Number.isFinite(x) && x > 0)).toBe(true);
          }
        }
        node.children.forEach(walk);
      };
      walk(root(s.layouts));
    }
  });

  it("render as flex grow factors, 1 for a missing size", () => {
    expect(paneFlex([0.75, 0.25], 0)).toBe("0.75 1 0");
    expect(paneFlex([0.75], 1)).toBe("1 1 0");
  });

  function sum(xs: number[]): number {
    return xs.reduce((x, y) => x + y, 0);
  }
});

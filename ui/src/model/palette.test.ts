import { describe, expect, it } from "vitest";

import { COMMANDS } from "./keys";
import { allChoices, filterChoices, moveSelection } from "./palette";

const choices = allChoices();
const labels = (q: string) => filterChoices(choices, q).map((c) => c.label);

describe("the palette lists", () => {
  it("every command of the key table, with its keys", () => {
    expect(choices.map((c) => c.action)).toEqual(COMMANDS.map((c) => c.action));
    const split = choices.find((c) => c.action === "splitRight")!;
    expect(split.keys).toEqual(["Alt+Shift+→"]);
    expect(choices.find((c) => c.action === "panel")!.keys).toEqual([]);
  });

  it("all of them, in order, for an empty query", () => {
    expect(filterChoices(choices, "  ")).toEqual(choices);
  });
});

describe("filtering", () => {
  it("puts a label starting with the words first", () => {
    expect(labels("split")).toEqual([
      "Split right",
      "Split down",
      "Equalize the sizes of the focused cell's split",
    ]);
    expect(labels("split r")[0]).toBe("Split right");
    expect(labels("SPLIT DOWN")[0]).toBe("Split down");
  });

  it("matches letters in order within a word ('spr' finds Split right)", () => {
    expect(labels("splt")[0]).toMatch(/^Split/);
    expect(labels("fnd")).toContain("Find in the terminal");
  });

  it("needs every word to match", () => {
    expect(labels("split zebra")).toEqual([]);
    expect(labels("xyzzy")).toEqual([]);
  });

  it("finds a command by its keys or its group", () => {
    expect(labels("ctrl+shift+p")).toEqual(["Command palette"]);
    expect(labels("f6")).toEqual(["Focus the next cell", "Focus the previous cell"]);
    expect(labels("terminal")).toContain("Paste into the terminal");
  });

  it("ranks a whole word above letters spread out", () => {
    const out = labels("tab");
    expect(out.slice(0, 3).sort()).toEqual(["New tab", "Next tab", "Previous tab"]);
  });
});

describe("moving the selection", () => {
  it("wraps at both ends and starts at an end", () => {
    expect(moveSelection(0, 1, 3)).toBe(1);
    expect(moveSelection(2, 1, 3)).toBe(0);
    expect(moveSelection(0, -1, 3)).toBe(2);
    expect(moveSelection(-1, 1, 3)).toBe(0);
    expect(moveSelection(-1, -1, 3)).toBe(2);
    expect(moveSelection(1, 10, 3)).toBe(2);
    expect(moveSelection(0, 1, 0)).toBe(-1);
  });
});

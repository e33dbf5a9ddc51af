import { describe, expect, it } from "vitest";

import {
  asMarkdown,
  folds,
  foldNote,
  MARKDOWN_MAX_CHARS,
  Pieces,
  size,
  STEP_CHARS,
  STEP_LINES,
  stepEnd,
} from "./longtext";

describe("Pieces", () => {
  it("keeps each appended piece as it came: an append never copies the text so far", () => {
    const t = new Pieces();
    const piece = "x".repeat(1000);
    for (let i = 0; i < 1000; i++) t.append(piece);
    expect(t.length).toBe(1_000_000);
    expect(t.pieceCount).toBe(1000); // not joined into one string per delta
    t.append("");
    expect(t.pieceCount).toBe(1000);
  });

  it("slices across pieces like a string", () => {
    const whole = "The quick brown fox jumps over the lazy dog";
    const t = new Pieces();
    for (let i = 0; i < whole.length; i += 5) t.append(whole.slice(i, i + 5));
    for (const [a, b] of [
      [0, 3],
      [3, 11],
      [4, 5],
      [0, whole.length],
      [40, 99],
      [-3, 2],
      [20, 10],
      [7, undefined],
    ]) {
      expect(t.slice(a as number, b as number | undefined)).toBe(
        whole.slice(Math.max(0, a as number), b as number | undefined),
      );
    }
  });

  it("joins once when the whole text is asked for, then appends after it", () => {
    const t = new Pieces("ab");
    t.append("cd");
    expect(t.toString()).toBe("abcd");
    expect(t.pieceCount).toBe(1);
    t.append("e");
    expect(t.slice(3)).toBe("de");
    expect(`${t}`).toBe("abcde");
  });
});

describe("stepEnd: what one step of a long entry shows", () => {
  it("is the whole text when it fits in a step", () => {
    expect(stepEnd("short", 0)).toBe(5);
    expect(stepEnd("a\nb\n", 0)).toBe(4);
  });

  it("cuts a single long line at the step's size", () => {
    const line = "y".repeat(1_000_000);
    expect(stepEnd(line, 0)).toBe(STEP_CHARS);
    expect(stepEnd(line, STEP_CHARS)).toBe(2 * STEP_CHARS);
    expect(stepEnd(line, 1_000_000 - 10)).toBe(1_000_000);
  });

  it("holds at most STEP_LINES lines", () => {
    const text = "l\n".repeat(3 * STEP_LINES);
    expect(stepEnd(text, 0)).toBe(2 * STEP_LINES);
    expect(text.slice(0, stepEnd(text, 0)).split("\n").length - 1).toBe(STEP_LINES);
    expect(stepEnd(text, 2 * STEP_LINES)).toBe(4 * STEP_LINES);
  });

  it("ends past a newline in the second half of its reach, not in the middle of a line", () => {
    const text = `${"a".repeat(STEP_CHARS - 100)}\n${"b".repeat(STEP_CHARS)}`;
    expect(stepEnd(text, 0)).toBe(STEP_CHARS - 99);
    // A newline early in reach would make a tiny step: the step is cut at its size instead.
    const early = `ab\n${"c".repeat(2 * STEP_CHARS)}`;
    expect(stepEnd(early, 0)).toBe(STEP_CHARS);
  });

  it("never splits a surrogate pair", () => {
    const text = `${"a".repeat(STEP_CHARS - 1)}😀${"b".repeat(10)}`;
    expect(stepEnd(text, 0)).toBe(STEP_CHARS - 1);
  });

  it("reads the same from pieces as from a string", () => {
    const whole = "word ".repeat(50_000);
    const t = new Pieces();
    for (let i = 0; i < whole.length; i += 777) t.append(whole.slice(i, i + 777));
    expect(stepEnd(t, 0)).toBe(stepEnd(whole, 0));
    expect(stepEnd(t, 12_345)).toBe(stepEnd(whole, 12_345));
  });
});

describe("folding and formatting thresholds", () => {
  it("folds an entry one step does not hold: a long line, or many short lines", () => {
    expect(folds("x".repeat(STEP_CHARS))).toBe(false);
    expect(folds("x".repeat(STEP_CHARS + 1))).toBe(true);
    expect(folds("x\n".repeat(STEP_LINES))).toBe(false);
    expect(folds("x\n".repeat(STEP_LINES + 1))).toBe(true);
  });

  it("formats Markdown only up to its threshold", () => {
    expect(asMarkdown(MARKDOWN_MAX_CHARS)).toBe(true);
    expect(asMarkdown(MARKDOWN_MAX_CHARS + 1)).toBe(false);
  });

  it("says how much is shown of how much", () => {
    expect(size(812)).toBe("812 B");
    expect(size(65_536)).toBe("64 KiB");
    expect(size(1_000_000)).toBe("977 KiB");
    expect(size(1_572_864)).toBe("1.5 MiB");
    expect(foldNote(65_536, 1_000_000)).toBe("Showing 64 KiB of 977 KiB");
  });
});

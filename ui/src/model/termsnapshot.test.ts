// @vitest-environment jsdom
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { type IBuffer, Terminal } from "@xterm/xterm";
import { describe, expect, it } from "vitest";
import cases from "./testdata/snapshots.json";

// Snapshots of the server's terminal screen (idea/infrastructure/terminal/snapshot.py), made by
// tests/unit/infrastructure/terminal/test_screen.py: written into a fresh xterm.js terminal, each
// must show what the program's own output shows there, and leave it in the same state for what
// the program writes next.

interface Case {
  name: string;
  rows: number;
  cols: number;
  stream: string;
  snapshot: string;
  exact: boolean;
  after: string;
}

function terminal(rows: number, cols: number): Terminal {
  const term = new Terminal({ rows, cols, allowProposedApi: true });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = "11";
  return term;
}

function write(term: Terminal, data: string): Promise<void> {
  return new Promise((done) => term.write(data, done));
}

/** 31 and 38;5;1 are one entry of the palette (the screen keeps the first for both). */
function colour(isDefault: boolean, isRGB: boolean, value: number): string {
  return isDefault ? "default" : `${isRGB ? "rgb" : "palette"} ${value}`;
}

/** The viewport's cells (an erased cell and a written blank look the same), cursor and mode. */
function viewport(buffer: IBuffer, rows: number, cols: number): unknown[] {
  const lines = [];
  for (let y = 0; y < rows; y++) {
    const line = buffer.getLine(buffer.baseY + y);
    const cells = [];
    for (let x = 0; x < cols; x++) {
      const c = line?.getCell(x);
      if (!c) continue;
      cells.push([
        c.getChars() || (c.getWidth() ? " " : ""),
        c.getWidth(),
        colour(c.isFgDefault(), c.isFgRGB(), c.getFgColor()),
        colour(c.isBgDefault(), c.isBgRGB(), c.getBgColor()),
        [c.isBold(), c.isItalic(), c.isUnderline(), c.isBlink(), c.isInverse()].map(Boolean),
        Boolean(c.isStrikethrough()),
      ]);
    }
    lines.push(cells);
  }
  return [buffer.type, buffer.cursorX, buffer.cursorY, lines];
}

function state(term: Terminal): unknown {
  const { rows, cols } = term;
  return {
    active: viewport(term.buffer.active, rows, cols),
    normal: viewport(term.buffer.normal, rows, cols),
    modes: term.modes,
  };
}

describe("a screen snapshot in xterm.js", () => {
  for (const c of cases as Case[]) {
    it(c.name, async () => {
      const program = terminal(c.rows, c.cols);
      const redrawn = terminal(c.rows, c.cols);
      await write(program, c.stream);
      await write(redrawn, c.snapshot);
      expect(state(redrawn)).toEqual(state(program));
      await write(program, c.after);
      await write(redrawn, c.after);
      expect(state(redrawn)).toEqual(state(program));
      program.dispose();
      redrawn.dispose();
    });
  }
});

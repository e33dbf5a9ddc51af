// Test hook (e2e tests and benches): what each terminal is, read without reaching into xterm's
// DOM (the WebGL renderer draws no text elements). window.ideaTerminals.get(agentName) asks the
// terminal registered last under that name, at the moment it is read.

import type { Terminal } from "@xterm/xterm";

import type { Renderer } from "../model/termprefs";
import type { TermView } from "../model/termview";

export type TerminalProbe = {
  cols: number;
  rows: number;
  renderer: Renderer;
  fontSize: number;
  /** What the fit addon would make of the cell now: equal to cols/rows once fitted. */
  proposed: { cols: number; rows: number } | null;
  /** The buffer's lines, soft-wrapped rows joined, trailing blanks trimmed. */
  lines(): string[];
  /** Output frames' characters parsed so far (not the scrollback, nor re-syncs): benches. */
  written: number;
  /** Re-sync frames received (the scrollback: asked for, or output this client was too slow for). */
  resyncs: number;
  /** Bytes of frame text parsed since the attach (output, re-syncs and screens): what the page
   * took of the terminal. */
  parsed: number;
  /** Screen frames received (the current screen instead of output the view did not need). */
  screens: number;
  /** How the view shows the terminal, as the server was told. */
  view: TermView;
  /** The `n` rows of the buffer up to the cursor's, as drawn (not joined). */
  tail(n: number): string[];
  /** Resolves with performance.now() once the cursor's row, trimmed, is `text` (checked after
   * each parsed write): the keystroke bench's echo. */
  whenCursorRow(text: string): Promise<number>;
  /** The terminal's size when the attach's scrollback was written into it. */
  replayedAt: { cols: number; rows: number } | null;
};

/** What only the terminal's view knows, beside its xterm `Terminal`. */
export type ProbeFacts = Pick<
  TerminalProbe,
  "renderer" | "written" | "resyncs" | "screens" | "view" | "replayedAt" | "parsed"
> & {
  proposed: { cols: number; rows: number } | undefined;
};

const probes = new Map<string, () => TerminalProbe>();
(
  window as unknown as { ideaTerminals: { get(name: string): TerminalProbe | undefined } }
).ideaTerminals = {
  get: (name) => probes.get(name)?.(),
};

/** Answer for `name` with `probe` until the returned function is called. */
export function registerProbe(name: string, probe: () => TerminalProbe): () => void {
  probes.set(name, probe);
  return () => {
    if (probes.get(name) === probe) probes.delete(name); // not a newer terminal's
  };
}

export function probeOf(t: Terminal, facts: ProbeFacts): TerminalProbe {
  const { proposed } = facts;
  return {
    cols: t.cols,
    rows: t.rows,
    renderer: facts.renderer,
    fontSize: t.options.fontSize ?? 0,
    proposed:
      proposed && Number.isFinite(proposed.cols)
        ? { cols: proposed.cols, rows: proposed.rows }
        : null,
    lines: () => bufferLines(t),
    written: facts.written,
    resyncs: facts.resyncs,
    screens: facts.screens,
    parsed: facts.parsed,
    view: facts.view,
    replayedAt: facts.replayedAt,
    tail: (n) => {
      const buf = t.buffer.active;
      const rows: string[] = [];
      const end = buf.baseY + buf.cursorY; // below the cursor are rows not written yet
      for (let y = Math.max(0, end - n + 1); y <= end; y++) {
        rows.push(buf.getLine(y)?.translateToString(true) ?? "");
      }
      return rows;
    },
    whenCursorRow: (text) =>
      new Promise<number>((resolve) => {
        const row = () => {
          const buf = t.buffer.active;
          return (
            buf
              .getLine(buf.baseY + buf.cursorY)
              ?.translateToString(true)
              .trim() ?? ""
          );
        };
        if (row() === text) return resolve(performance.now());
        const sub = t.onWriteParsed(() => {
          if (row() !== text) return;
          sub.dispose();
          resolve(performance.now());
        });
      }),
  };
}

function bufferLines(t: Terminal): string[] {
  const buf = t.buffer.active;
  const out: string[] = [];
  for (let y = 0; y < buf.length; y++) {
    const line = buf.getLine(y);
    if (!line) continue;
    const text = line.translateToString(true);
    if (line.isWrapped && out.length) out[out.length - 1] += text;
    else out.push(text);
  }
  while (out.length && !out[out.length - 1]) out.pop();
  return out;
}

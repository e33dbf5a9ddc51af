// A terminal cell: xterm.js attached to an agent's PTY (terminal.attach, binary frames, write,
// resize). Invariant: the scrollback is replayed into a terminal already fitted to its cell, and
// the PTY was told that size first, so a reload or a re-attach draws what the program drew.

import { FitAddon } from "@xterm/addon-fit";
import { SearchAddon } from "@xterm/addon-search";
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { WebLinksAddon } from "@xterm/addon-web-links";
import { WebglAddon } from "@xterm/addon-webgl";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { api } from "../model/api";
import { TERMINAL_THEME } from "../model/theme";
import {
  chooseRenderer,
  FONT_SIZE_KEY,
  type FontStep,
  readFontSize,
  RENDERER_KEY,
  type Renderer,
  stepFontSize,
  type WebglProbe,
} from "../model/termprefs";
import { showError, showNotice } from "./banner";
import { h } from "./dom";
import { openMenu } from "./menu";
import { terminalKeeps } from "./shortcuts";

// attach_id null: the terminal ended by itself; scrollback is its last output (exit_code set).
type AttachResult = {
  attach_id: string | null;
  agent_id: string;
  scrollback: string;
  exit_code?: number | null;
};

/** How long a terminal without the keyboard gathers output before drawing it. */
const BACKGROUND_MS = 250;

export const FONT_FAMILY = "'DejaVu Sans Mono', 'Cascadia Mono', Menlo, monospace";

// --- preferences shared by every terminal ------------------------------------------------------

const fontListeners = new Set<(size: number) => void>();

function stored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null; // storage disabled: defaults
  }
}

export function terminalFontSize(): number {
  return readFontSize(stored(FONT_SIZE_KEY));
}

/** Ctrl+= / Ctrl+- / Ctrl+0: every terminal takes the new size, remembered across reloads. */
export function stepTerminalFont(step: FontStep): void {
  const size = stepFontSize(terminalFontSize(), step);
  try {
    localStorage.setItem(FONT_SIZE_KEY, String(size));
  } catch {
    // not remembered, still applied
  }
  for (const l of fontListeners) l(size);
}

let probe: WebglProbe | null = null;

/** Whether this browser has WebGL 2, and on what (asked once, the context given back at once). */
function webglProbe(): WebglProbe {
  if (probe) return probe;
  probe = { available: false, renderer: null };
  try {
    const gl = document.createElement("canvas").getContext("webgl2");
    if (gl) {
      const info = gl.getExtension("WEBGL_debug_renderer_info");
      probe = {
        available: true,
        renderer: info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : null,
      };
      gl.getExtension("WEBGL_lose_context")?.loseContext();
    }
  } catch {
    // no WebGL: the DOM renderer
  }
  return probe;
}

/** A link in a terminal: the system browser from the desktop window, a new tab in a browser. */
function openLink(uri: string): void {
  const bridge = (window as { pywebview?: { api?: { open_url?: (url: string) => unknown } } })
    .pywebview?.api;
  if (typeof bridge?.open_url === "function") {
    Promise.resolve(bridge.open_url(uri)).catch((e) => showError(e, "Open link"));
    return;
  }
  window.open(uri, "_blank", "noopener,noreferrer");
}

/** The width and height of one character cell of the terminal font (for a PTY's first size). */
export function charCell(fontSize = terminalFontSize()): { width: number; height: number } {
  const ctx = document.createElement("canvas").getContext("2d");
  if (!ctx) return { width: fontSize * 0.6, height: Math.ceil(fontSize * 1.2) };
  ctx.font = `${fontSize}px ${FONT_FAMILY}`;
  return { width: ctx.measureText("W").width || fontSize * 0.6, height: Math.ceil(fontSize * 1.2) };
}

// Test hook (e2e tests and benches): what each terminal is, read without reaching into xterm's
// DOM (the WebGL renderer draws no text elements). window.ideaTerminals.get(agentName).
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
  /** Re-sync frames received (the server dropped output this client was too slow for). */
  resyncs: number;
  /** The `n` rows of the buffer up to the cursor's, as drawn (not joined). */
  tail(n: number): string[];
  /** Resolves with performance.now() once the cursor's row, trimmed, is `text` (checked after
   * each parsed write): the keystroke bench's echo. */
  whenCursorRow(text: string): Promise<number>;
  /** The terminal's size when the attach's scrollback was written into it. */
  replayedAt: { cols: number; rows: number } | null;
};
const probes = new Map<string, () => TerminalProbe>();
(
  window as unknown as { ideaTerminals: { get(name: string): TerminalProbe | undefined } }
).ideaTerminals = {
  get: (name) => probes.get(name)?.(),
};

// --- the view ---------------------------------------------------------------------------------

export class TerminalView {
  readonly el: HTMLElement;
  private host = h("div.terminal-host");
  private term: Terminal;
  private fit = new FitAddon();
  private search = new SearchAddon({ highlightLimit: 500 });
  private webgl: WebglAddon | null = null;
  private renderer: Renderer = "dom";
  private findBar: FindBar;
  private attachId: string | null = null;
  private unroute: (() => void) | null = null;
  private observer: ResizeObserver;
  private opened = false;
  private wantFocus = false;
  private lastSize = "";
  private disposed = false;
  private resizeTimer: ReturnType<typeof setTimeout> | undefined;
  private copyTimer: ReturnType<typeof setTimeout> | undefined;
  private written = 0;
  private held: string[] = [];
  private heldTimer: ReturnType<typeof setTimeout> | undefined;
  private resyncs = 0;
  private replayedAt: { cols: number; rows: number } | null = null;
  private onFont = (size: number) => this.setFontSize(size);
  private probeFn = () => this.probe();

  constructor(private readonly agentName: string) {
    this.term = new Terminal({
      fontFamily: FONT_FAMILY,
      fontSize: terminalFontSize(),
      cursorBlink: true,
      scrollback: 10000,
      allowProposedApi: true, // unicode versions and the search's match decorations
      theme: { ...TERMINAL_THEME },
    });
    this.findBar = new FindBar(this.search, () => this.focus());
    this.el = h("div.terminal-view", { dataset: { agent: agentName } }, this.host, this.findBar.el);
    this.el.addEventListener("contextmenu", (e) => this.contextMenu(e));
    // Opened, fitted and attached once the cell has a size: see show().
    this.observer = new ResizeObserver(() => this.show());
    this.observer.observe(this.el);
    fontListeners.add(this.onFont);
    probes.set(agentName, this.probeFn);
  }

  focus(): void {
    if (!this.opened) {
      this.wantFocus = true;
      return;
    }
    this.term.focus();
  }

  /** The cell is (again) in the page: open the terminal the first time, refit it after. */
  show(): void {
    if (
      this.disposed ||
      !this.el.isConnected ||
      this.el.clientWidth === 0 ||
      this.el.clientHeight === 0
    )
      return;
    if (this.opened) return this.scheduleFit();
    this.opened = true;
    this.open();
    this.fit.fit();
    this.noteSize();
    void this.attach();
    if (this.wantFocus) this.term.focus();
  }

  private open(): void {
    const t = this.term;
    t.open(this.host);
    t.loadAddon(this.fit);
    t.loadAddon(this.search);
    t.loadAddon(new Unicode11Addon());
    t.unicode.activeVersion = "11";
    t.loadAddon(new WebLinksAddon((_event, uri) => openLink(uri)));
    this.useRenderer(chooseRenderer(stored(RENDERER_KEY), webglProbe()));
    // Workspace shortcuts are not typed into the PTY: xterm skips them and they bubble to window.
    t.attachCustomKeyEventHandler((e) => terminalKeeps(e));
    t.textarea?.addEventListener("focus", () => this.flushHeld());
    t.onData((data) => {
      api.call("terminal.write", { name: this.agentName, data }).catch((e) => showError(e));
    });
    t.onSelectionChange(() => {
      // Copy on select, once the selection settles (not at every pointer move of a drag).
      clearTimeout(this.copyTimer);
      this.copyTimer = setTimeout(() => {
        const text = t.getSelection();
        if (text) void copyToClipboard(text);
      }, 120);
    });
  }

  private useRenderer(wanted: Renderer): void {
    if (wanted === "webgl") {
      try {
        const gl = new WebglAddon();
        gl.onContextLoss(() => {
          // The browser took the context back (too many, a GPU reset): the DOM renderer from now.
          gl.dispose();
          if (this.webgl === gl) this.webgl = null;
          this.setRenderer("dom");
        });
        this.term.loadAddon(gl);
        this.webgl = gl;
        return this.setRenderer("webgl");
      } catch {
        this.webgl = null; // no WebGL 2 after all: the DOM renderer
      }
    }
    this.setRenderer("dom");
  }

  private setRenderer(r: Renderer): void {
    this.renderer = r;
    this.el.dataset.renderer = r;
  }

  private async attach(): Promise<void> {
    try {
      // Both are answered in order: the PTY has the terminal's size before the scrollback is
      // snapshotted, and the terminal has it before the scrollback is written.
      const { rows, cols } = this.term;
      this.lastSize = `${rows}x${cols}`;
      api.call("terminal.resize", { name: this.agentName, rows, cols }).catch(() => {});
      const r = await api.call<AttachResult>("terminal.attach", { name: this.agentName });
      if (this.disposed) {
        if (r.attach_id)
          void api.call("terminal.detach", { attach_id: r.attach_id }).catch(() => {});
        return;
      }
      if (r.attach_id === null) {
        // Its last words: why it ended, at the size it had (no PTY to resize any more).
        this.term.write(r.scrollback);
        this.term.write(`\r\n\x1b[2m[exited with code ${Number(r.exit_code)}]\x1b[0m\r\n`);
        this.fit.fit();
        return;
      }
      this.attachId = r.attach_id;
      this.replayedAt = { cols: this.term.cols, rows: this.term.rows };
      this.write(r.scrollback, false);
      this.unroute = api.attachFrames(r.attach_id, (kind, text) => {
        if (kind === 2) {
          this.resyncs++;
          this.held = []; // the re-sync's scrollback holds them
          this.term.reset();
          return this.write(text, false);
        }
        this.output(text);
      });
      this.doFit(); // the cell may have changed size while the attach was on its way
    } catch (e) {
      showError(e, `Attach ${this.agentName}`);
    }
  }

  /**
   * Output of the PTY. The terminal being typed into draws it at once; the others gather it
   * for BACKGROUND_MS and draw it in one go: the same bytes, parsed in the same order, but one
   * redraw instead of one per frame, so many busy terminals leave the page time for the echo
   * of the keys being typed.
   */
  private output(text: string): void {
    if (this.term.textarea && document.activeElement === this.term.textarea) {
      this.flushHeld();
      return this.write(text, true);
    }
    this.held.push(text);
    this.heldTimer ??= setTimeout(() => this.flushHeld(), BACKGROUND_MS);
  }

  private flushHeld(): void {
    clearTimeout(this.heldTimer);
    this.heldTimer = undefined;
    if (!this.held.length || this.disposed) return;
    const text = this.held.join("");
    this.held = [];
    this.write(text, true);
  }

  private write(text: string, counted: boolean): void {
    if (!text) return;
    if (!counted) return this.term.write(text);
    this.term.write(text, () => {
      this.written += text.length;
    });
  }

  private scheduleFit(): void {
    clearTimeout(this.resizeTimer);
    this.resizeTimer = setTimeout(() => this.doFit(), 30);
  }

  private doFit(): void {
    if (this.disposed || !this.opened || !this.el.isConnected || this.el.clientWidth === 0) return;
    this.fit.fit();
    this.noteSize();
    const size = `${this.term.rows}x${this.term.cols}`;
    if (size === this.lastSize || !this.attachId) return;
    this.lastSize = size;
    api
      .call("terminal.resize", { name: this.agentName, rows: this.term.rows, cols: this.term.cols })
      .catch(() => {});
  }

  private noteSize(): void {
    this.el.dataset.cols = String(this.term.cols);
    this.el.dataset.rows = String(this.term.rows);
  }

  private setFontSize(size: number): void {
    this.term.options.fontSize = size;
    this.el.dataset.fontSize = String(size);
    this.doFit();
  }

  // --- commands (keys, the palette, the context menu) ---

  find(): void {
    if (this.opened) this.findBar.open(this.term.getSelection());
  }

  copy(): void {
    const text = this.term.getSelection();
    if (text) void copyToClipboard(text);
  }

  /** Paste from the clipboard (the palette, the context menu); Ctrl+Shift+V is the browser's own. */
  async paste(): Promise<void> {
    this.term.focus();
    try {
      const text = await navigator.clipboard.readText();
      if (text) this.term.paste(text);
      return;
    } catch {
      // not allowed here: the browser's paste, into xterm's text area
    }
    if (document.execCommand("paste")) return;
    showNotice(
      "This window may not read the clipboard: press Ctrl+Shift+V in the terminal to paste.",
    );
  }

  private contextMenu(e: MouseEvent): void {
    // A browser has its own menu (xterm puts its text area under the pointer, so Paste works);
    // the desktop window has none: this one.
    if (!(window as { pywebview?: unknown }).pywebview) return;
    e.preventDefault();
    const selected = this.term.hasSelection();
    openMenu(
      { x: e.clientX, y: e.clientY },
      [
        {
          label: "Copy",
          keys: "Ctrl+Shift+C",
          disabled: !selected,
          id: "copy",
          run: () => this.copy(),
        },
        { label: "Paste", keys: "Ctrl+Shift+V", id: "paste", run: () => void this.paste() },
        { label: "Select all", id: "select-all", run: () => this.term.selectAll() },
        { label: "Find…", keys: "Ctrl+Shift+F", id: "find", run: () => this.find() },
        { label: "Clear", id: "clear", run: () => this.term.clear() },
      ],
      "Terminal",
      this.term.textarea ?? null,
    );
  }

  private probe(): TerminalProbe {
    const t = this.term;
    const proposed = this.opened ? this.fit.proposeDimensions() : undefined;
    return {
      cols: t.cols,
      rows: t.rows,
      renderer: this.renderer,
      fontSize: t.options.fontSize ?? 0,
      proposed:
        proposed && Number.isFinite(proposed.cols)
          ? { cols: proposed.cols, rows: proposed.rows }
          : null,
      lines: () => bufferLines(t),
      written: this.written,
      resyncs: this.resyncs,
      replayedAt: this.replayedAt,
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

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.resizeTimer);
    clearTimeout(this.copyTimer);
    clearTimeout(this.heldTimer);
    this.observer.disconnect();
    fontListeners.delete(this.onFont);
    if (probes.get(this.agentName) === this.probeFn) probes.delete(this.agentName);
    this.unroute?.();
    if (this.attachId) {
      void api.call("terminal.detach", { attach_id: this.attachId }).catch(() => {});
    }
    this.term.dispose();
  }
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

async function copyToClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // The desktop window may refuse the async clipboard: the copy command, which xterm answers
    // with its selection while its text area has the focus.
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    }
  }
}

/** Find in a terminal: Enter / Shift+Enter for the next / previous match, Escape closes. */
class FindBar {
  readonly el: HTMLElement;
  private input = h("input.find-input", {
    type: "text",
    placeholder: "Find",
    "aria-label": "Find in terminal",
    spellcheck: false,
  });
  private count = h("span.find-count.muted", { "aria-live": "polite" });
  private query = "";

  constructor(
    private readonly search: SearchAddon,
    private readonly back: () => void,
  ) {
    this.el = h(
      "div.find-bar",
      { role: "search", hidden: true },
      this.input,
      this.count,
      h(
        "button.btn.small.icon",
        {
          "aria-label": "Previous match",
          title: "Previous match (Shift+Enter)",
          onclick: () => this.step(-1),
        },
        "↑",
      ),
      h(
        "button.btn.small.icon",
        { "aria-label": "Next match", title: "Next match (Enter)", onclick: () => this.step(1) },
        "↓",
      ),
      h(
        "button.btn.small.icon",
        { "aria-label": "Close find", title: "Close (Escape)", onclick: () => this.close() },
        "✕",
      ),
    );
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") this.step(e.shiftKey ? -1 : 1);
      else if (e.key === "Escape") this.close();
      else return;
      e.preventDefault();
      e.stopPropagation();
    });
    this.input.addEventListener("input", () => this.step(1, true));
    search.onDidChangeResults(({ resultIndex, resultCount }) => {
      this.count.textContent = !this.query
        ? ""
        : resultCount === 0
          ? "No results"
          : resultIndex < 0
            ? `${resultCount}+ matches`
            : `${resultIndex + 1} of ${resultCount}`;
      this.el.classList.toggle("none", !!this.query && resultCount === 0);
    });
  }

  open(selection: string): void {
    this.el.hidden = false;
    if (selection && !selection.includes("\n")) this.input.value = selection;
    this.input.focus();
    this.input.select();
    if (this.input.value) this.step(1, true);
  }

  private step(direction: 1 | -1, incremental = false): void {
    this.query = this.input.value;
    if (!this.query) {
      this.search.clearDecorations();
      this.count.textContent = "";
      this.el.classList.remove("none");
      return;
    }
    const options = {
      incremental,
      decorations: {
        matchBackground: "#3d4a6b",
        matchOverviewRuler: "#7aa2f7",
        activeMatchBackground: "#7a5c1e",
        activeMatchColorOverviewRuler: "#e0af68",
      },
    };
    if (direction > 0) this.search.findNext(this.query, options);
    else this.search.findPrevious(this.query, options);
  }

  close(): void {
    this.el.hidden = true;
    this.search.clearDecorations();
    this.back();
  }
}

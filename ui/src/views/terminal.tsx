// A terminal cell: xterm.js attached to an agent's PTY (terminal.attach, binary frames, write,
// resize). Invariant: the scrollback is replayed into a terminal already fitted to its cell, and
// the PTY was told that size first, so a reload or a re-attach draws what the program drew.
// The server is told how the terminal is shown (live, glance, hidden: model/termview.ts) and sends
// that much; a view sent only a screen asks for the history when the user wants it (scrolling
// back, searching, selecting all).
// Preact renders the view's elements once (the host xterm opens into, the find bar); xterm
// draws into its host by itself, so output never renders anything again.

import { FitAddon } from "@xterm/addon-fit";
import { SearchAddon } from "@xterm/addon-search";
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { WebLinksAddon } from "@xterm/addon-web-links";
import { WebglAddon } from "@xterm/addon-webgl";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { createRef, type Ref, render } from "preact";

import { api } from "../model/api";
import { TERMINAL_THEME } from "../model/theme";
import { chooseRenderer, RENDERER_KEY, type Renderer } from "../model/termprefs";
import { Acker, type TermView, viewOf } from "../model/termview";
import { showError, showNotice } from "./banner";
import { drawQueued, drawSoon } from "./termbatch";
import { FindBar, FindBarView } from "./findbar";
import { openMenu } from "./menu";
import { rootElement } from "./reactive";
import { terminalKeeps } from "./shortcuts";
import { copyToClipboard, openLink, stored, webglProbe } from "./termenv";
import { FONT_FAMILY, onFontSize, terminalFontSize } from "./termfont";
import { probeOf, registerProbe, type TerminalProbe } from "./termprobe";

export { charCell } from "./termfont"; // a cell sizes a PTY before its terminal exists

export class TerminalView {
  readonly el = rootElement("terminal-view");
  private host = createRef<HTMLDivElement>();
  private term: Terminal;
  private fit = new FitAddon();
  private search = new SearchAddon({ highlightLimit: 500 });
  private webgl: WebglAddon | null = null;
  private renderer: Renderer = "dom";
  private readonly findBar: FindBar;
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
  private resyncs = 0;
  private screens = 0;
  private view: TermView = "hidden";
  private intersecting = true; // until the observer says otherwise: a shown cell is on screen
  /** Only the current screen is drawn (a kind-3 frame): the history is on the server. */
  private historyOnServer = false;
  private historyAsked = false;
  private visibility: IntersectionObserver | null = null;
  private readonly acker = new Acker(
    (parsed) => this.send("terminal.ack", parsed),
    () => this.view === "live",
  );
  private replayedAt: { cols: number; rows: number } | null = null;
  private readonly unsubscribe: (() => void)[];

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
    this.el.dataset.agent = agentName;
    render(<TerminalShell host={this.host} findBar={this.findBar} />, this.el);
    this.el.addEventListener("contextmenu", (e) => this.contextMenu(e));
    // Opened, fitted and attached once the cell has a size: see show().
    this.observer = new ResizeObserver(() => this.show());
    this.observer.observe(this.el);
    if (typeof IntersectionObserver !== "undefined") {
      this.visibility = new IntersectionObserver((entries) => {
        this.intersecting = entries[entries.length - 1].isIntersecting;
        this.noteView();
      });
      this.visibility.observe(this.el);
    }
    const onPage = () => this.noteView();
    document.addEventListener("visibilitychange", onPage);
    this.unsubscribe = [
      () => document.removeEventListener("visibilitychange", onPage),
      onFontSize((size) => this.setFontSize(size)),
      registerProbe(agentName, () => this.probe()),
    ];
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
    t.open(this.host.current!);
    t.loadAddon(this.fit);
    t.loadAddon(this.search);
    t.loadAddon(new Unicode11Addon());
    t.unicode.activeVersion = "11";
    t.loadAddon(new WebLinksAddon((_event, uri) => openLink(uri)));
    this.useRenderer(chooseRenderer(stored(RENDERER_KEY), webglProbe()));
    // Workspace shortcuts are not typed into the PTY: xterm skips them and they bubble to window.
    t.attachCustomKeyEventHandler((e) => terminalKeeps(e));
    t.textarea?.addEventListener("focus", () => this.noteView());
    t.textarea?.addEventListener("blur", () => this.noteView());
    // Scrolling back into what is only on the server: ask for it.
    this.host.current!.addEventListener("wheel", (e) => e.deltaY < 0 && this.wantHistory(), {
      passive: true,
    });
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
      this.view = this.currentView();
      const r = await api.call("terminal.attach", { name: this.agentName, view: this.view });
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
      this.historyOnServer = r.screen;
      this.write(r.scrollback, false);
      this.unroute = api.attachFrames(r.attach_id, (kind, text, bytes) =>
        this.frame(kind, text, bytes),
      );
      this.doFit(); // the cell may have changed size while the attach was on its way
      this.noteView(); // it may have changed while the attach was on its way
    } catch (e) {
      showError(e, `Attach ${this.agentName}`);
    }
  }

  /** A frame of the attach (ui/API.md §3): output to append, or a reset and what replaces it:
   * the scrollback (2), the current screen alone (3). Every one is acknowledged once parsed. */
  private frame(kind: number, text: string, bytes: number): void {
    if (this.view !== "live") return drawSoon(() => this.draw(kind, text, bytes));
    drawQueued(); // this terminal's own earlier frames, if it was not live a moment ago
    this.draw(kind, text, bytes);
  }

  private draw(kind: number, text: string, bytes: number): void {
    if (this.disposed) return;
    if (kind !== 1) {
      // The reset goes in the stream (RIS), after what is still queued to be parsed before it.
      text = `\x1bc${text}`;
      this.historyOnServer = kind === 3;
      this.historyAsked = false;
      if (kind === 2) this.resyncs++;
      else this.screens++;
    }
    this.term.write(text, () => {
      if (kind === 1) this.written += text.length;
      if (kind === 2) this.findBar.refresh(); // the history came: what the bar looks for may too
      this.acker.add(bytes);
    });
  }

  private write(text: string, counted: boolean): void {
    if (!text) return;
    if (!counted) return this.term.write(text);
    this.term.write(text, () => {
      this.written += text.length;
    });
  }

  private currentView(): TermView {
    const textarea = this.term.textarea;
    return viewOf({
      shown: this.el.isConnected && this.el.clientWidth > 0 && this.el.clientHeight > 0,
      pageVisible: document.visibilityState !== "hidden",
      intersecting: this.visibility === null || this.intersecting,
      focused: !!textarea && document.activeElement === textarea,
    });
  }

  /** Tell the server when how the terminal is shown changed (after the attach). */
  private noteView(): void {
    if (this.disposed) return;
    const view = this.currentView();
    this.el.dataset.view = view;
    if (view === this.view || !this.attachId) return;
    this.view = view;
    this.acker.told();
    this.send("terminal.view", this.acker.parsed, view);
    if (view === "live") this.acker.flush();
  }

  /** The user wants what is only on the server (scrolling back, searching): one re-sync. */
  private wantHistory(): void {
    if (!this.historyOnServer || this.historyAsked || !this.attachId) return;
    this.historyAsked = true;
    void api.call("terminal.history", { attach_id: this.attachId }).catch(() => {});
  }

  private send(method: "terminal.ack" | "terminal.view", parsed: number, view?: TermView): void {
    const attach_id = this.attachId;
    if (!attach_id) return;
    const call =
      method === "terminal.ack"
        ? api.call("terminal.ack", { attach_id, parsed })
        : api.call("terminal.view", { attach_id, parsed, view: view ?? this.view });
    call.catch(() => {}); // detached or disconnected meanwhile: a new attach starts anew
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
    if (!this.opened) return;
    this.wantHistory();
    this.findBar.open(this.term.getSelection());
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
        { label: "Select all", id: "select-all", run: () => this.selectAll() },
        { label: "Find…", keys: "Ctrl+Shift+F", id: "find", run: () => this.find() },
        { label: "Clear", id: "clear", run: () => this.term.clear() },
      ],
      "Terminal",
      this.term.textarea ?? null,
    );
  }

  private selectAll(): void {
    this.wantHistory();
    this.term.selectAll();
  }

  private probe(): TerminalProbe {
    return probeOf(this.term, {
      renderer: this.renderer,
      written: this.written,
      resyncs: this.resyncs,
      screens: this.screens,
      view: this.view,
      parsed: this.acker.parsed,
      replayedAt: this.replayedAt,
      proposed: this.opened ? this.fit.proposeDimensions() : undefined,
    });
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.resizeTimer);
    clearTimeout(this.copyTimer);
    this.acker.dispose();
    this.observer.disconnect();
    this.visibility?.disconnect();
    for (const stop of this.unsubscribe) stop();
    this.unroute?.();
    if (this.attachId) {
      void api.call("terminal.detach", { attach_id: this.attachId }).catch(() => {});
    }
    this.term.dispose();
  }
}

/** The view's elements: the host xterm opens into, and the find bar under it. */
function TerminalShell({ host, findBar }: { host: Ref<HTMLDivElement>; findBar: FindBar }) {
  return (
    <>
      <div class="terminal-host" ref={host} />
      <FindBarView bar={findBar} />
    </>
  );
}

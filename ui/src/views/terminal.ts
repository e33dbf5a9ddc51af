// A terminal cell: xterm.js attached to an agent's PTY (terminal.attach, binary frames, write, resize).

import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { api } from "../model/api";
import { showError } from "./banner";
import { h } from "./dom";
import { shortcutOf } from "./shortcuts";

// attach_id null: the terminal ended by itself; scrollback is its last output (exit_code set).
type AttachResult = {
  attach_id: string | null;
  agent_id: string;
  scrollback: string;
  exit_code?: number | null;
};

export class TerminalView {
  readonly el = h("div.terminal-view");
  private term = new Terminal({
    fontFamily: "'DejaVu Sans Mono', 'Cascadia Mono', Menlo, monospace",
    fontSize: 13,
    cursorBlink: true,
    scrollback: 10000,
    theme: { background: "#0f1115", foreground: "#d7dae0", cursor: "#7aa2f7" },
  });
  private fit = new FitAddon();
  private attachId: string | null = null;
  private unroute: (() => void) | null = null;
  private observer: ResizeObserver;
  private lastSize = "";
  private disposed = false;
  private resizeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly agentName: string) {
    this.term.loadAddon(this.fit);
    this.term.open(this.el);
    // Workspace shortcuts are not typed into the PTY: xterm skips them and they bubble to window.
    this.term.attachCustomKeyEventHandler((e) => shortcutOf(e) === null);
    this.term.onData((data) => {
      api.call("terminal.write", { name: this.agentName, data }).catch((e) => showError(e));
    });
    this.observer = new ResizeObserver(() => this.scheduleFit());
    this.observer.observe(this.el);
    void this.attach();
  }

  focus(): void {
    this.term.focus();
  }

  private async attach(): Promise<void> {
    try {
      const r = await api.call<AttachResult>("terminal.attach", { name: this.agentName });
      if (this.disposed) {
        if (r.attach_id) void api.call("terminal.detach", { attach_id: r.attach_id }).catch(() => {});
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
      this.term.write(r.scrollback);
      const attachId = r.attach_id;
      this.unroute = api.attachFrames(attachId, (kind, text) => {
        if (kind === 2) this.term.reset();
        this.term.write(text);
      });
      this.lastSize = "";
      this.scheduleFit();
    } catch (e) {
      showError(e, `Attach ${this.agentName}`);
    }
  }

  private scheduleFit(): void {
    clearTimeout(this.resizeTimer);
    this.resizeTimer = setTimeout(() => this.doFit(), 30);
  }

  private doFit(): void {
    if (this.disposed || !this.el.isConnected || this.el.clientWidth === 0) return;
    this.fit.fit();
    const size = `${this.term.rows}x${this.term.cols}`;
    if (size === this.lastSize || !this.attachId) return;
    this.lastSize = size;
    api
      .call("terminal.resize", { name: this.agentName, rows: this.term.rows, cols: this.term.cols })
      .catch(() => {});
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.resizeTimer);
    this.observer.disconnect();
    this.unroute?.();
    if (this.attachId) {
      void api.call("terminal.detach", { attach_id: this.attachId }).catch(() => {});
    }
    this.term.dispose();
  }
}

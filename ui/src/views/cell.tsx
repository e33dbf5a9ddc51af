// One cell of the layout: a header (agent, picker, split/close: views/cellheader.tsx) and a body
// (picker, terminal, chat: views/cellbody.tsx), rendered by Preact at each update, at once: the
// workspace moves the focus right after. The body is made again only when what it shows changes.

import { render } from "preact";

import { api } from "../model/api";
import type { Action } from "../model/keys";
import { store } from "../model/state";
import type { AgentRow, Leaf, View } from "../model/types";
import { showError } from "./banner";
import { type Body, bodyState, CellBody } from "./cellbody";
import { CellHeader, type HeaderActions, otherView } from "./cellheader";
import { charCell, TerminalView } from "./terminal";

/** What a cell asks of the workspace (splits, close, maximise...: they move the focus or size
 * other cells, which only the workspace knows). */
export type CellActions = (action: Action, leafId: string) => void;

export class CellView {
  readonly el: HTMLElement;
  private body: Body | null = null;
  private bodyKey = "";
  private bodies = 0; // bumped when the body must be made again
  private pickerOpen = false;
  private maximized = false;
  private leaf: Leaf;
  private readonly actions: HeaderActions = {
    act: (action) => this.act(action, this.leaf.id),
    togglePicker: () => this.togglePicker(),
    switchView: (agent) => void this.switchView(agent),
    stop: (agent) => void this.stop(agent),
    hasTerminal: () => !!this.terminal(),
  };

  constructor(
    leaf: Leaf,
    private readonly act: CellActions,
  ) {
    this.leaf = leaf;
    this.el = document.createElement("div");
    this.el.className = "cell";
    this.el.tabIndex = -1;
    this.el.dataset.leaf = leaf.id;
    this.el.setAttribute("role", "group");
    this.update(leaf);
  }

  update(leaf: Leaf): void {
    this.leaf = leaf;
    const agent = store.agentById(leaf.agent);
    this.el.dataset.view = leaf.view;
    this.el.dataset.agent = agent?.name ?? "";
    this.el.setAttribute("aria-label", agent ? `${agent.name} (${leaf.view})` : "Empty cell");
    const state = bodyState(agent, leaf);
    const key = `${agent?.id ?? ""}|${leaf.view}|${state}|${this.pickerOpen}|${
      this.pickerOpen || state === "empty"
        ? store.agents.map((a) => `${a.id}${a.live}${a.node_id}`).join()
        : ""
    }`;
    const fresh = key !== this.bodyKey;
    const active = document.activeElement;
    const hadFocus = fresh && this.el.contains(active) && active !== this.el;
    if (fresh) {
      this.bodyKey = key;
      this.bodies++;
    }
    const canSwitch = !!agent && this.canSwitchView(agent);
    render(
      <>
        <CellHeader
          agent={agent}
          view={leaf.view}
          pickerOpen={this.pickerOpen}
          maximized={this.maximized}
          canSwitch={canSwitch}
          liveHere={!!agent?.live && agent.node_id === leaf.id}
          actions={this.actions}
        />
        <CellBody
          key={this.bodies}
          agent={agent}
          leaf={leaf}
          state={state}
          pickerOpen={this.pickerOpen}
          onBody={(body) => (this.body = body)}
          pick={(a, view) => void this.pick(a, view)}
          launch={(a, view, reattach) => void this.launch(a, view, reattach)}
        />
      </>,
      this.el,
    );
    if (hadFocus) this.focus();
  }

  get leafId(): string {
    return this.leaf.id;
  }

  /** Draw (or drop) the focus ring; the workspace keeps which cell is focused. */
  setFocused(focused: boolean): void {
    this.el.classList.toggle("focused", focused);
  }

  /** Shown over the whole workspace (or back in its place). */
  setMaximized(maximized: boolean): void {
    if (maximized === this.maximized) return;
    this.maximized = maximized;
    this.el.classList.toggle("maximized", maximized);
    this.update(this.leaf);
  }

  /** The cell is in the page again (its tab was shown): a terminal refits. */
  shown(): void {
    this.terminal()?.show();
  }

  /** The terminal this cell shows, if it shows one. */
  terminal(): TerminalView | null {
    return this.body instanceof TerminalView ? this.body : null;
  }

  /** Move keyboard focus into the cell: its terminal, chat composer, first picker choice, or itself. */
  focus(): void {
    if (this.body?.focus) return this.body.focus();
    const first = this.el.querySelector<HTMLElement>(
      ".cell-body .picker-main:not(:disabled), .cell-body button:not(:disabled)",
    );
    (first ?? this.el).focus();
  }

  /** Show the agent picker (keyboard: it stays open; the click button toggles). */
  openPicker(): void {
    if (this.leaf.agent && !this.pickerOpen) this.togglePicker();
    this.focus();
  }

  /** Re-render from the store (agents changed; the leaf did not). */
  refresh(): void {
    this.update(this.leaf);
  }

  private togglePicker(): void {
    this.pickerOpen = !this.pickerOpen;
    this.update(this.leaf);
  }

  private async pick(agent: AgentRow, view: View): Promise<void> {
    this.pickerOpen = false;
    try {
      if (this.leaf.agent !== agent.id || this.leaf.view !== view) {
        await store.applyLayout({ op: "bind", leaf_id: this.leaf.id, agent_id: agent.id, view });
      }
      await this.launch(agent, view, false);
    } catch (e) {
      showError(e, `Open ${agent.name}`, this.leaf.id);
      this.update(this.leaf);
    }
  }

  private async launch(agent: AgentRow, view: View, reattach: boolean): Promise<void> {
    const size = estimateSize(this.el.querySelector(".cell-body") ?? this.el);
    try {
      await api.call("session.launch", {
        name: agent.name,
        node_id: this.leaf.id,
        mode: view === "chat" ? "structured" : "terminal",
        reattach,
        ...size,
      });
    } catch (e) {
      showError(e, `Launch ${agent.name}`, this.leaf.id);
    }
    await store.reloadAgents();
  }

  /** Live here, and its profile also runs in the other view. */
  private canSwitchView(agent: AgentRow): boolean {
    if (!agent.live || agent.node_id !== this.leaf.id) return false;
    const mode = otherView(this.leaf.view) === "chat" ? "structured" : "terminal";
    return (store.profile(agent.profile)?.modes ?? []).includes(mode);
  }

  /** One live session per agent: switching views stops this one and starts the other mode here. */
  private async switchView(agent: AgentRow): Promise<void> {
    const other = otherView(this.leaf.view);
    const ends = this.leaf.view === "chat" ? "chat session" : "terminal session";
    if (!confirm(`Restart ${agent.name} as a ${other}? Its ${ends} ends.`)) return;
    try {
      await api.call("session.stop", { name: agent.name });
      await store.applyLayout({
        op: "bind",
        leaf_id: this.leaf.id,
        agent_id: agent.id,
        view: other,
      });
      await this.launch(agent, other, false);
    } catch (e) {
      showError(e, `Restart ${agent.name}`);
      await store.reloadAgents();
    }
  }

  private async stop(agent: AgentRow): Promise<void> {
    try {
      await api.call("session.stop", { name: agent.name });
    } catch (e) {
      showError(e);
    }
    await store.reloadAgents();
  }

  /** Split this cell; the new empty cell's id, or null on failure (shown in the banner). */
  async split(direction: "row" | "column"): Promise<string | null> {
    try {
      const r = await store.applyLayout<{ leaf_id: string }>({
        op: "split",
        leaf_id: this.leaf.id,
        direction,
      });
      return r.leaf_id;
    } catch (e) {
      showError(e, "Split");
      return null;
    }
  }

  async close(): Promise<boolean> {
    try {
      await store.applyLayout({ op: "close", leaf_id: this.leaf.id });
      return true;
    } catch (e) {
      showError(e, "Close cell");
      return false;
    }
  }

  dispose(): void {
    render(null, this.el); // the body's objects are disposed as it unmounts
    this.body = null;
    this.el.remove();
  }
}

/** Rows/cols a terminal will get in this cell (the view fits exactly before it attaches). */
function estimateSize(el: Element): { rows: number; cols: number } {
  const cell = charCell();
  // The terminal's padding (style.css .terminal-view) and xterm's scrollbar.
  const rows = Math.floor((el.clientHeight - 4) / cell.height);
  const cols = Math.floor((el.clientWidth - 6 - 14) / cell.width);
  return { rows: Math.min(Math.max(rows, 5), 500), cols: Math.min(Math.max(cols, 20), 1000) };
}

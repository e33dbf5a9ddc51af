// One cell of the layout: a header (agent, picker, split/close) and a body (picker, terminal, chat).

import { api } from "../model/api";
import { type Action, commandKeys, commandOf } from "../model/keys";
import { store } from "../model/state";
import type { AgentRow, Leaf, View } from "../model/types";
import { goToCell, moveHere, showError } from "./banner";
import { ChatView } from "./chat";
import { clear, h } from "./dom";
import { hostPill } from "./hostpill";
import { closeMenu, type MenuItem, openMenu } from "./menu";
import { agentPicker } from "./picker";
import { charCell, TerminalView } from "./terminal";

type Body = { el: HTMLElement; dispose(): void; focus?(): void };

/** What a cell asks of the workspace (splits, close, maximise...: they move the focus or size
 * other cells, which only the workspace knows). */
export type CellActions = (action: Action, leafId: string) => void;

/** The keys of a command, for a button's tooltip: "Split right (Alt+Shift+→)". */
function withKeys(label: string, action: Action): string {
  const keys = commandKeys(commandOf(action));
  return keys.length ? `${label} (${keys.join(", ")})` : label;
}

export class CellView {
  readonly el: HTMLElement;
  private header = h("div.cell-header");
  private bodyHost = h("div.cell-body");
  private body: Body | null = null;
  private bodyKey = "";
  private pickerOpen = false;
  private maximized = false;
  private leaf: Leaf;

  constructor(
    leaf: Leaf,
    private readonly act: CellActions,
  ) {
    this.leaf = leaf;
    this.el = h(
      "div.cell",
      { tabIndex: -1, dataset: { leaf: leaf.id }, role: "group" },
      this.header,
      this.bodyHost,
    );
    this.update(leaf);
  }

  update(leaf: Leaf): void {
    this.leaf = leaf;
    const agent = store.agentById(leaf.agent);
    this.el.dataset.view = leaf.view;
    this.el.dataset.agent = agent?.name ?? "";
    this.el.setAttribute("aria-label", agent ? `${agent.name} (${leaf.view})` : "Empty cell");
    this.renderHeader(agent);
    const state = !agent
      ? "empty"
      : agent.live && agent.node_id === leaf.id
        ? "here"
        : agent.live && agent.node_id
          ? `elsewhere:${agent.node_id}`
          : agent.live
            ? "background"
            : agent.hibernated && leaf.view === "chat"
              ? "asleep"
              : agent.last_exit && leaf.view === "terminal"
                ? `ended:${agent.last_exit.at_ms}`
                : "stopped";
    const key = `${agent?.id ?? ""}|${leaf.view}|${state}|${this.pickerOpen}|${
      this.pickerOpen || state === "empty"
        ? store.agents.map((a) => `${a.id}${a.live}${a.node_id}`).join()
        : ""
    }`;
    if (key !== this.bodyKey) {
      this.bodyKey = key;
      this.setBody(this.makeBody(agent, state));
    }
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
    this.renderHeader(store.agentById(this.leaf.agent));
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
    const first = this.bodyHost.querySelector<HTMLElement>(
      ".picker-main:not(:disabled), button:not(:disabled)",
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

  private renderHeader(agent: AgentRow | undefined): void {
    const leafId = this.leaf.id;
    const act = (action: Action) => () => this.act(action, leafId);
    const canSwitch = !!agent && this.canSwitchView(agent);
    const liveHere = !!agent?.live && agent.node_id === leafId;
    const maxLabel = this.maximized ? "Restore" : "Maximise";
    const more = h(
      "button.btn.small.icon.cell-more",
      {
        "aria-label": "More cell actions",
        "aria-haspopup": "menu",
        "aria-expanded": "false",
        title: "More",
      },
      "⋯",
    );
    more.addEventListener("click", () => {
      if (more.getAttribute("aria-expanded") === "true") return closeMenu();
      openMenu(more, this.menuItems(agent, canSwitch, liveHere), "Cell actions", more);
    });
    clear(
      this.header,
      agent
        ? h(
            "span.cell-title",
            {},
            h("span.status-dot", { class: agent.live ? agent.status : "off", title: agent.status }),
            h("strong", {}, agent.name),
            h("span.muted", {}, ` ${agent.profile} · ${this.leaf.view}`),
            hostPill(agent),
          )
        : h("span.cell-title.muted", {}, "Empty cell"),
      h("span.spacer"),
      // .wide: folded into "⋯" when the cell is narrow (style.css, a container query).
      agent
        ? h(
            "button.btn.small.wide",
            {
              class: this.pickerOpen ? "active" : "",
              title: withKeys("Agent picker", "picker"),
              "aria-pressed": String(this.pickerOpen),
              onclick: () => this.togglePicker(),
            },
            "Agent ▾",
          )
        : null,
      agent && canSwitch
        ? h(
            "button.btn.small.wide.switch-view",
            {
              title: `Restart ${agent.name} as a ${otherView(this.leaf.view)}`,
              onclick: () => void this.switchView(agent),
            },
            otherView(this.leaf.view) === "chat" ? "As chat" : "As terminal",
          )
        : null,
      agent && liveHere
        ? h(
            "button.btn.small.wide.stop-agent",
            {
              title:
                this.leaf.view === "chat"
                  ? "End the agent's process (Interrupt, by the message box, stops only the running turn)"
                  : "End the agent's process",
              onclick: () => void this.stop(agent),
            },
            "Stop agent",
          )
        : null,
      h(
        "button.btn.small.icon.wide",
        {
          title: withKeys("Split right", "splitRight"),
          "aria-label": "Split right",
          onclick: act("splitRight"),
        },
        "⇥",
      ),
      h(
        "button.btn.small.icon.wide",
        {
          title: withKeys("Split down", "splitDown"),
          "aria-label": "Split down",
          onclick: act("splitDown"),
        },
        "⤓",
      ),
      h(
        "button.btn.small.icon.wide.cell-maximize",
        {
          title: withKeys(maxLabel, "maximize"),
          "aria-label": maxLabel,
          "aria-pressed": String(this.maximized),
          onclick: act("maximize"),
        },
        this.maximized ? "⤡" : "⤢",
      ),
      h(
        "button.btn.small.icon.wide",
        {
          title: withKeys("Close cell", "close"),
          "aria-label": "Close cell",
          onclick: act("close"),
        },
        "✕",
      ),
      more,
    );
  }

  /** The "⋯" menu: everything the header offers (a narrow cell shows only this), and more. */
  private menuItems(
    agent: AgentRow | undefined,
    canSwitch: boolean,
    liveHere: boolean,
  ): MenuItem[] {
    const leafId = this.leaf.id;
    const item = (action: Action, label: string): MenuItem => ({
      id: action,
      label,
      keys: commandKeys(commandOf(action))[0],
      run: () => this.act(action, leafId),
    });
    const items: MenuItem[] = [];
    if (agent) items.push({ ...item("picker", "Agent picker"), run: () => this.togglePicker() });
    if (agent && canSwitch) {
      const other = otherView(this.leaf.view);
      items.push({
        id: "switch-view",
        label: other === "chat" ? "Restart as chat" : "Restart as terminal",
        run: () => void this.switchView(agent),
      });
    }
    if (agent && liveHere)
      items.push({ id: "stop", label: "Stop the agent", run: () => void this.stop(agent) });
    items.push(item("splitRight", "Split right"), item("splitDown", "Split down"));
    items.push(
      item("maximize", this.maximized ? "Restore" : "Maximise"),
      item("equalize", "Equalize sizes"),
    );
    if (this.terminal()) items.push(item("find", "Find…"));
    items.push(item("close", "Close cell"));
    return items;
  }

  private makeBody(agent: AgentRow | undefined, state: string): Body {
    const pick = (a: AgentRow, view: View) => void this.pick(a, view);
    if (!agent || this.pickerOpen) {
      return plain(
        h(
          "div.cell-picker",
          {},
          h("div.cell-picker-title", {}, agent ? "Show another agent here" : "Pick an agent"),
          agentPicker(this.leaf.id, agent?.id ?? null, pick),
        ),
      );
    }
    // Hibernated: the chat stays; the next message resumes its conversation (DESIGN.md §15).
    if (state === "here" || state === "asleep") {
      return this.leaf.view === "chat"
        ? new ChatView(agent.id, agent.name)
        : new TerminalView(agent.name);
    }
    if (state.startsWith("ended:") && agent.last_exit) {
      // Its terminal ended by itself: keep what it printed, say how it ended, offer a restart.
      const view = new TerminalView(agent.name);
      const bar = h(
        "div.ended-bar",
        { role: "status" },
        h("span", {}, `${agent.name} exited with code ${agent.last_exit.exit_code}`),
        h(
          "button.btn.small.primary",
          { onclick: () => void this.launch(agent, this.leaf.view, false) },
          "Start again",
        ),
      );
      return {
        el: h("div.ended-terminal", {}, bar, view.el),
        dispose: () => view.dispose(),
        focus: () => view.focus(),
      };
    }
    if (state.startsWith("elsewhere:")) {
      const nodeId = state.slice("elsewhere:".length);
      return plain(
        h(
          "div.cell-placeholder",
          {},
          h("p", {}, `${agent.name} is live in another cell.`),
          h("button.btn", { onclick: () => void goToCell(nodeId) }, "Go to cell"),
          h("button.btn", { onclick: () => void moveHere(agent.id, this.leaf.id) }, "Move it here"),
        ),
      );
    }
    const label = state === "background" ? "Show here" : "Start";
    return plain(
      h(
        "div.cell-placeholder",
        {},
        h(
          "p",
          {},
          state === "background"
            ? `${agent.name} runs in the background.`
            : `${agent.name} is stopped.`,
        ),
        h(
          "button.btn.primary",
          { onclick: () => void this.launch(agent, this.leaf.view, this.leaf.agent_was_running) },
          label,
        ),
      ),
    );
  }

  private setBody(body: Body): void {
    const hadFocus = this.el.contains(document.activeElement) && document.activeElement !== this.el;
    this.body?.dispose();
    this.body = body;
    clear(this.bodyHost, body.el);
    if (hadFocus) this.focus();
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
    const size = estimateSize(this.bodyHost);
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
    this.body?.dispose();
    this.body = null;
    this.el.remove();
  }
}

function otherView(view: View): View {
  return view === "chat" ? "terminal" : "chat";
}

function plain(el: HTMLElement): Body {
  return { el, dispose: () => {} };
}

/** Rows/cols a terminal will get in this cell (the view fits exactly before it attaches). */
function estimateSize(el: HTMLElement): { rows: number; cols: number } {
  const cell = charCell();
  // The terminal's padding (style.css .terminal-view) and xterm's scrollbar.
  const rows = Math.floor((el.clientHeight - 4) / cell.height);
  const cols = Math.floor((el.clientWidth - 6 - 14) / cell.width);
  return { rows: Math.min(Math.max(rows, 5), 500), cols: Math.min(Math.max(cols, 20), 1000) };
}

// A cell's header: its agent (state dot, name, profile and view, host), the agent picker, the
// switch to the other view, Stop, split/maximise/close, and the "⋯" menu with all of them (a
// narrow cell shows only that menu: the buttons marked .wide fold into it, style.css).

import { useRef } from "preact/hooks";

import { type Action, commandKeys, commandOf } from "../model/keys";
import type { AgentRow, View } from "../model/types";
import { HostPill } from "./hostpill";
import { closeMenu, type MenuItem, openMenu } from "./menu";
import { classes } from "./reactive";

/** What the header's buttons do: the cell's own actions, and the workspace's. */
export type HeaderActions = {
  act: (action: Action) => void;
  togglePicker: () => void;
  switchView: (agent: AgentRow) => void;
  stop: (agent: AgentRow) => void;
  /** Whether the cell shows a terminal now (the menu offers Find). */
  hasTerminal: () => boolean;
};

export type HeaderProps = {
  agent: AgentRow | undefined;
  view: View;
  pickerOpen: boolean;
  maximized: boolean;
  /** Live here, and its profile also runs in the other view. */
  canSwitch: boolean;
  liveHere: boolean;
  actions: HeaderActions;
};

export function otherView(view: View): View {
  return view === "chat" ? "terminal" : "chat";
}

/** The keys of a command, for a button's tooltip: "Split right (Alt+Shift+→)". */
function withKeys(label: string, action: Action): string {
  const keys = commandKeys(commandOf(action));
  return keys.length ? `${label} (${keys.join(", ")})` : label;
}

export function CellHeader(props: HeaderProps) {
  const { agent, view, pickerOpen, maximized, canSwitch, liveHere, actions } = props;
  const more = useRef<HTMLButtonElement>(null);
  const maxLabel = maximized ? "Restore" : "Maximise";
  const onMore = () => {
    const el = more.current;
    if (!el) return;
    if (el.getAttribute("aria-expanded") === "true") return closeMenu();
    openMenu(el, menuItems(props), "Cell actions", el);
  };
  const icon = (action: Action, label: string, glyph: string) => (
    <button
      class="btn small icon wide"
      title={withKeys(label, action)}
      aria-label={label}
      onClick={() => actions.act(action)}
    >
      {glyph}
    </button>
  );
  return (
    <div class="cell-header">
      {agent ? (
        <span class="cell-title">
          <span class={`status-dot ${agent.live ? agent.status : "off"}`} title={agent.status} />
          <strong>{agent.name}</strong>
          <span class="muted">{` ${agent.profile} · ${view}`}</span>
          <HostPill agent={agent} />
        </span>
      ) : (
        <span class="cell-title muted">Empty cell</span>
      )}
      <span class="spacer" />
      {/* .wide: folded into "⋯" when the cell is narrow (style.css, a container query). */}
      {agent ? (
        <button
          class={classes("btn small wide", pickerOpen && "active")}
          title={withKeys("Agent picker", "picker")}
          aria-pressed={pickerOpen}
          onClick={actions.togglePicker}
        >
          Agent ▾
        </button>
      ) : null}
      {agent && canSwitch ? (
        <button
          class="btn small wide switch-view"
          title={`Restart ${agent.name} as a ${otherView(view)}`}
          onClick={() => actions.switchView(agent)}
        >
          {otherView(view) === "chat" ? "As chat" : "As terminal"}
        </button>
      ) : null}
      {agent && liveHere ? (
        <button
          class="btn small wide stop-agent"
          title={
            view === "chat"
              ? "End the agent's process (Interrupt, by the message box, stops only the running turn)"
              : "End the agent's process"
          }
          onClick={() => actions.stop(agent)}
        >
          Stop agent
        </button>
      ) : null}
      {icon("splitRight", "Split right", "⇥")}
      {icon("splitDown", "Split down", "⤓")}
      <button
        class="btn small icon wide cell-maximize"
        title={withKeys(maxLabel, "maximize")}
        aria-label={maxLabel}
        aria-pressed={maximized}
        onClick={() => actions.act("maximize")}
      >
        {maximized ? "⤡" : "⤢"}
      </button>
      {icon("close", "Close cell", "✕")}
      <button
        ref={more}
        class="btn small icon cell-more"
        aria-label="More cell actions"
        aria-haspopup="menu"
        aria-expanded="false"
        title="More"
        onClick={onMore}
      >
        ⋯
      </button>
    </div>
  );
}

/** The "⋯" menu: everything the header offers (a narrow cell shows only this), and more. */
function menuItems(props: HeaderProps): MenuItem[] {
  const { agent, view, maximized, canSwitch, liveHere, actions } = props;
  const item = (action: Action, label: string): MenuItem => ({
    id: action,
    label,
    keys: commandKeys(commandOf(action))[0],
    run: () => actions.act(action),
  });
  const items: MenuItem[] = [];
  if (agent) items.push({ ...item("picker", "Agent picker"), run: actions.togglePicker });
  if (agent && canSwitch) {
    items.push({
      id: "switch-view",
      label: otherView(view) === "chat" ? "Restart as chat" : "Restart as terminal",
      run: () => actions.switchView(agent),
    });
  }
  if (agent && liveHere)
    items.push({ id: "stop", label: "Stop the agent", run: () => actions.stop(agent) });
  items.push(item("splitRight", "Split right"), item("splitDown", "Split down"));
  items.push(
    item("maximize", maximized ? "Restore" : "Maximise"),
    item("equalize", "Equalize sizes"),
  );
  if (actions.hasTerminal()) items.push(item("find", "Find…"));
  items.push(item("close", "Close cell"));
  return items;
}

// A cell's body, by the state of its agent there: the agent picker, its chat or terminal (objects
// of their own, mounted into the body), a terminal that ended with a way to start it again, or
// a placeholder saying where the agent is, with what can be done about it.

import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";

import type { AgentRow, Leaf, View } from "../model/types";
import { goToCell, moveHere } from "./banner";
import { ChatView } from "./chat";
import { agentPicker } from "./picker";
import { TerminalView } from "./terminal";

/** What a body shows that is not Preact's: a chat, a terminal, the picker. */
export type Body = { el: HTMLElement; dispose(): void; focus?(): void };

/** Where the agent is, for this cell: what its body shows. */
export function bodyState(agent: AgentRow | undefined, leaf: Leaf): string {
  if (!agent) return "empty";
  if (agent.live && agent.node_id === leaf.id) return "here";
  if (agent.live && agent.node_id) return `elsewhere:${agent.node_id}`;
  if (agent.live) return "background";
  if (agent.hibernated && leaf.view === "chat") return "asleep";
  if (agent.last_exit && leaf.view === "terminal") return `ended:${agent.last_exit.at_ms}`;
  return "stopped";
}

export type BodyProps = {
  agent: AgentRow | undefined;
  leaf: Leaf;
  state: string;
  pickerOpen: boolean;
  /** The body object mounted now (null: none), for the cell's focus and terminal. */
  onBody: (body: Body | null) => void;
  pick: (agent: AgentRow, view: View) => void;
  launch: (agent: AgentRow, view: View, reattach: boolean) => void;
};

/** Rendered anew (keyed by the cell) when the state changes, so its objects are made again. */
export function CellBody(props: BodyProps) {
  const { agent, leaf, state, onBody } = props;
  if (!agent || props.pickerOpen) {
    const make = () => plain(agentPicker(leaf.id, agent?.id ?? null, props.pick));
    return (
      <div class="cell-body">
        <Mount cls="cell-picker" make={make} onBody={() => {}}>
          <div class="cell-picker-title">{agent ? "Show another agent here" : "Pick an agent"}</div>
        </Mount>
      </div>
    );
  }
  // Hibernated: the chat stays; the next message resumes its conversation (DESIGN.md §15).
  if (state === "here" || state === "asleep") {
    const make = (): Body =>
      leaf.view === "chat" ? new ChatView(agent.id, agent.name) : new TerminalView(agent.name);
    return <Mount cls="cell-body" make={make} onBody={onBody} />;
  }
  if (state.startsWith("ended:") && agent.last_exit) {
    // Its terminal ended by itself: keep what it printed, say how it ended, offer a restart.
    const make = (): Body => {
      const view = new TerminalView(agent.name);
      return { el: view.el, dispose: () => view.dispose(), focus: () => view.focus() };
    };
    return (
      <div class="cell-body">
        <Mount cls="ended-terminal" make={make} onBody={onBody}>
          <div class="ended-bar" role="status">
            <span>{`${agent.name} exited with code ${agent.last_exit.exit_code}`}</span>
            <button class="btn small primary" onClick={() => props.launch(agent, leaf.view, false)}>
              Start again
            </button>
          </div>
        </Mount>
      </div>
    );
  }
  if (state.startsWith("elsewhere:")) {
    const nodeId = state.slice("elsewhere:".length);
    return (
      <div class="cell-body">
        <div class="cell-placeholder">
          <p>{`${agent.name} is live in another cell.`}</p>
          <button class="btn" onClick={() => void goToCell(nodeId)}>
            Go to cell
          </button>
          <button class="btn" onClick={() => void moveHere(agent.id, leaf.id)}>
            Move it here
          </button>
        </div>
      </div>
    );
  }
  const background = state === "background";
  return (
    <div class="cell-body">
      <div class="cell-placeholder">
        <p>{background ? `${agent.name} runs in the background.` : `${agent.name} is stopped.`}</p>
        <button
          class="btn primary"
          onClick={() => props.launch(agent, leaf.view, leaf.agent_was_running)}
        >
          {background ? "Show here" : "Start"}
        </button>
      </div>
    </div>
  );
}

function plain(el: HTMLElement): Body {
  return { el, dispose: () => {} };
}

type MountProps = {
  cls: string;
  /** Called once, when mounted: the object whose element goes after the children. */
  make: () => Body;
  onBody: (body: Body | null) => void;
  children?: ComponentChildren;
};

/** A `<div>` holding a body object's element, made when mounted and disposed when unmounted. */
function Mount({ cls, make, onBody, children }: MountProps) {
  const host = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const body = make();
    host.current?.append(body.el);
    onBody(body);
    return () => {
      onBody(null);
      body.dispose();
      body.el.remove();
    };
  }, []);
  return (
    <div class={cls} ref={host}>
      {children}
    </div>
  );
}

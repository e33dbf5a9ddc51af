// The agent picker of a cell: every agent; one live in another cell is disabled with "go to cell".

import { store } from "../model/state";
import type { AgentRow, View } from "../model/types";
import { goToCell } from "./banner";
import { h } from "./dom";

export type PickHandler = (agent: AgentRow, view: View) => void;

export function defaultView(agent: AgentRow): View {
  return agent.mode === "structured" ? "chat" : "terminal";
}

export function agentPicker(leafId: string, current: string | null, onPick: PickHandler): HTMLElement {
  if (!store.agents.length) {
    return h(
      "div.picker-empty",
      {},
      "No agents yet. Create one in the Agents panel on the right.",
    );
  }
  return h(
    "ul.picker",
    { role: "listbox" },
    ...store.agents.map((agent) => pickerRow(agent, leafId, current, onPick)),
  );
}

function pickerRow(
  agent: AgentRow,
  leafId: string,
  current: string | null,
  onPick: PickHandler,
): HTMLElement {
  const elsewhere = agent.live && agent.node_id !== null && agent.node_id !== leafId;
  const view = defaultView(agent);
  const modes = store.profile(agent.profile)?.modes ?? [];
  const otherView: View = view === "chat" ? "terminal" : "chat";
  const canOther = modes.includes(otherView === "chat" ? "structured" : "terminal") && !agent.live;
  const nodeId = agent.node_id;
  return h(
    "li.picker-row",
    {
      class: [elsewhere ? "disabled" : "", agent.id === current ? "current" : ""].join(" "),
      dataset: { agent: agent.name },
    },
    h(
      "button.picker-main",
      {
        disabled: elsewhere,
        title: elsewhere ? "Live in another cell" : `Open ${agent.name} as ${view}`,
        onclick: () => onPick(agent, view),
      },
      h("span.status-dot", { class: agent.live ? agent.status : "off" }),
      h("span.picker-name", {}, agent.name),
      h("span.picker-profile", {}, `${agent.profile} · ${view}`),
    ),
    canOther && !elsewhere
      ? h(
          "button.btn.small",
          { title: `Open as ${otherView}`, onclick: () => onPick(agent, otherView) },
          otherView,
        )
      : null,
    elsewhere && nodeId
      ? h("button.btn.small", { onclick: () => void goToCell(nodeId) }, "Go to cell")
      : null,
  );
}

// The agent picker of a cell: every agent; one live in another cell is disabled, with "go to
// cell" and "move here" (what each row offers is model/picker.ts).

import { listMove, pickerOption } from "../model/picker";
import { store } from "../model/state";
import type { AgentRow, View } from "../model/types";
import { goToCell, moveHere } from "./banner";
import { h } from "./dom";

export type PickHandler = (agent: AgentRow, view: View) => void;

export function agentPicker(
  leafId: string,
  current: string | null,
  onPick: PickHandler,
): HTMLElement {
  if (!store.agents.length) {
    return h("div.picker-empty", {}, "No agents yet. Create one in the Agents panel on the right.");
  }
  const rows = store.agents.map((agent) => pickerRow(agent, leafId, current, onPick));
  // One tab stop: the current agent's row, else the first; arrows move between rows.
  const start = rows.find((r) => r.getAttribute("aria-selected") === "true") ?? rows[0];
  start?.setAttribute("tabindex", "0");
  const list = h("ul.picker", { role: "listbox", "aria-label": "Agents" }, ...rows);
  list.addEventListener("keydown", (e) => {
    const at = rows.indexOf(document.activeElement as HTMLElement);
    if (at < 0) return;
    const to = listMove(e.key, at, rows.length);
    if (to !== null) {
      e.preventDefault();
      rows[at].setAttribute("tabindex", "-1");
      rows[to].setAttribute("tabindex", "0");
      rows[to].focus();
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      rows[at].querySelector<HTMLButtonElement>("button.picker-main:not([disabled])")?.click();
    }
  });
  return list;
}

function pickerRow(
  agent: AgentRow,
  leafId: string,
  current: string | null,
  onPick: PickHandler,
): HTMLElement {
  const option = pickerOption(agent, leafId, store.profile(agent.profile)?.modes ?? []);
  const { view, otherView, goToCell: nodeId } = option;
  return h(
    "li.picker-row",
    {
      class: [option.disabled ? "disabled" : "", agent.id === current ? "current" : ""].join(" "),
      dataset: { agent: agent.name },
      role: "option",
      tabindex: "-1",
      "aria-selected": agent.id === current ? "true" : "false",
      "aria-label": `${agent.name}, ${agent.profile}, ${option.title}`,
    },
    h(
      "button.picker-main",
      {
        disabled: option.disabled,
        title: option.title,
        tabindex: "-1",
        onclick: () => onPick(agent, view),
      },
      h("span.status-dot", { class: agent.live ? agent.status : "off" }),
      h("span.picker-name", {}, agent.name),
      h("span.picker-profile", {}, `${agent.profile} · ${view}`),
    ),
    otherView && !option.disabled
      ? h(
          "button.btn.small",
          { title: `Open as ${otherView}`, onclick: () => onPick(agent, otherView) },
          otherView,
        )
      : null,
    nodeId ? h("button.btn.small", { onclick: () => void goToCell(nodeId) }, "Go to cell") : null,
    option.moveHere
      ? h(
          "button.btn.small.move-here",
          {
            title: `Show ${agent.name} here; its other cell empties`,
            onclick: () => void moveHere(agent.id, leafId),
          },
          "Move here",
        )
      : null,
  );
}

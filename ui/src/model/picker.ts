// What a cell's agent picker offers for each agent, and what it says when a pick is refused. An
// agent has one live session (ui/API.md): live in another cell, it is not picked again but can
// be gone to, or moved here (`session.move`). Pure, so it is tested alone.

import type { AgentRow, ApiError, Mode, View } from "./types";

export type PickerOption = {
  view: View; // what picking the agent opens here
  otherView: View | null; // the other view offered beside it, if the agent can run so
  disabled: boolean; // live in another cell: picking it would be AGENT_ALREADY_RUNNING
  title: string;
  goToCell: string | null; // the cell showing it
  moveHere: boolean; // offer to show it in this cell instead
};

/** The view an agent opens in: its live (or configured) mode's. */
export function defaultView(agent: AgentRow): View {
  return agent.mode === "structured" ? "chat" : "terminal";
}

/** The picker row of `agent` in cell `leafId`; `modes` are what its profile can run. */
export function pickerOption(
  agent: AgentRow,
  leafId: string,
  modes: readonly Mode[],
): PickerOption {
  const elsewhere = agent.live && agent.node_id !== null && agent.node_id !== leafId;
  const view = defaultView(agent);
  const other: View = view === "chat" ? "terminal" : "chat";
  const canOther = !agent.live && modes.includes(other === "chat" ? "structured" : "terminal");
  return {
    view,
    otherView: canOther ? other : null,
    disabled: elsewhere,
    title: elsewhere
      ? "Live in another cell"
      : agent.live && agent.node_id === null
        ? `${agent.name} runs in the background: show it here`
        : `Open ${agent.name} as ${view}`,
    goToCell: elsewhere ? agent.node_id : null,
    moveHere: elsewhere,
  };
}

export type RefusalAction =
  { kind: "go-to"; nodeId: string } | { kind: "move-here"; leafId: string };

/** What the banner offers when opening an agent in cell `leafId` was refused with `e`. */
export function refusalActions(e: ApiError, leafId: string | null): RefusalAction[] {
  if (e.code !== "AGENT_ALREADY_RUNNING" || !e.node_id) return [];
  const actions: RefusalAction[] = [{ kind: "go-to", nodeId: e.node_id }];
  if (leafId && leafId !== e.node_id) actions.push({ kind: "move-here", leafId });
  return actions;
}

/** Said by "Go to cell" when the cell is no longer in any tab. */
export const CELL_GONE =
  "That cell no longer exists (it was closed, or its tab was). Pick the agent in a cell to show it there.";

/** Where an arrow, Home or End key moves in a list of ``n`` rows from row ``at`` (null: none). */
export function listMove(key: string, at: number, n: number): number | null {
  if (n === 0) return null;
  if (key === "ArrowDown") return Math.min(n - 1, at + 1);
  if (key === "ArrowUp") return Math.max(0, at - 1);
  if (key === "Home") return 0;
  if (key === "End") return n - 1;
  return null;
}

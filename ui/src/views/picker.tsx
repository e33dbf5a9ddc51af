// The agent picker of a cell: every agent; one live in another cell is disabled, with "go to
// cell" and "move here" (what each row offers is model/picker.ts). A listbox with one tab stop:
// the current agent's row, else the first; the arrows move it between rows, Enter picks.

import { listMove, pickerOption } from "../model/picker";
import { store } from "../model/state";
import type { AgentRow, View } from "../model/types";
import { goToCell, moveHere } from "./banner";
import { elementOf } from "./element";
import { classes } from "./reactive";

export type PickHandler = (agent: AgentRow, view: View) => void;

type PickerProps = { leafId: string; current: string | null; onPick: PickHandler };

/** The picker as an element, for the cell (not on Preact yet): built anew at each render. */
export function agentPicker(
  leafId: string,
  current: string | null,
  onPick: PickHandler,
): HTMLElement {
  return elementOf(<AgentPicker leafId={leafId} current={current} onPick={onPick} />)!;
}

export function AgentPicker({ leafId, current, onPick }: PickerProps) {
  const agents = store.agents;
  if (!agents.length) {
    return (
      <div class="picker-empty">No agents yet. Create one in the Agents panel on the right.</div>
    );
  }
  const start = Math.max(
    0,
    agents.findIndex((a) => a.id === current),
  );
  return (
    <ul class="picker" role="listbox" aria-label="Agents" onKeyDown={onKey}>
      {agents.map((agent, i) => (
        <Row
          key={agent.id}
          agent={agent}
          leafId={leafId}
          current={current}
          onPick={onPick}
          tabStop={i === start}
        />
      ))}
    </ul>
  );
}

/** The arrows move the tab stop and the focus between rows; Enter or Space picks its agent. */
function onKey(e: KeyboardEvent): void {
  const rows = [...(e.currentTarget as HTMLElement).querySelectorAll<HTMLElement>(".picker-row")];
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
}

function Row(props: { agent: AgentRow; tabStop: boolean } & PickerProps) {
  const { agent, leafId, onPick } = props;
  const option = pickerOption(agent, leafId, store.profile(agent.profile)?.modes ?? []);
  const { view, otherView, goToCell: nodeId } = option;
  const selected = agent.id === props.current;
  return (
    <li
      class={classes("picker-row", option.disabled && "disabled", selected && "current")}
      data-agent={agent.name}
      role="option"
      tabIndex={props.tabStop ? 0 : -1}
      aria-selected={selected ? "true" : "false"}
      aria-label={`${agent.name}, ${agent.profile}, ${option.title}`}
    >
      <button
        class="picker-main"
        disabled={option.disabled}
        title={option.title}
        tabIndex={-1}
        onClick={() => onPick(agent, view)}
      >
        <span class={`status-dot ${agent.live ? agent.status : "off"}`} />
        <span class="picker-name">{agent.name}</span>
        <span class="picker-profile">{`${agent.profile} · ${view}`}</span>
      </button>
      {otherView && !option.disabled ? (
        <button
          class="btn small"
          title={`Open as ${otherView}`}
          onClick={() => onPick(agent, otherView)}
        >
          {otherView}
        </button>
      ) : null}
      {nodeId ? (
        <button class="btn small" onClick={() => void goToCell(nodeId)}>
          Go to cell
        </button>
      ) : null}
      {option.moveHere ? (
        <button
          class="btn small move-here"
          title={`Show ${agent.name} here; its other cell empties`}
          onClick={() => void moveHere(agent.id, leafId)}
        >
          Move here
        </button>
      ) : null}
    </li>
  );
}

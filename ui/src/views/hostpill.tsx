// Where an agent runs, as a pill: its host and the link's state (model/hosts.ts says what).
import { hostBadge } from "../model/hosts";
import type { AgentRow } from "../model/types";
import { elementOf } from "./element";

type Placed = Pick<AgentRow, "host" | "link"> | undefined;

export function HostPill({ agent }: { agent: Placed }) {
  const badge = hostBadge(agent);
  if (!badge) return null;
  return (
    <span class={`badge host ${badge.cls}`} title={badge.title} data-host={agent?.host ?? ""}>
      {badge.label}
    </span>
  );
}

/** The same pill as an element, for the views not on Preact yet (the cell's header). */
export function hostPill(agent: Placed): HTMLElement | null {
  return elementOf(<HostPill agent={agent} />);
}

// Where an agent runs, as a pill: its host and the link's state (model/hosts.ts says what).
import { hostBadge } from "../model/hosts";
import type { AgentRow } from "../model/types";

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

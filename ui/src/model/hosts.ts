// Where an agent runs (DESIGN.md §16): this machine, or a host reached over SSH and the state of
// the link to it. Pure: the board, the agents panel and the cells show what this returns.
import type { AgentRow } from "./types";

export type HostBadge = { label: string; cls: string; title: string };

export function hostBadge(agent: Pick<AgentRow, "host" | "link"> | undefined): HostBadge | null {
  const host = agent?.host;
  if (!host) return null;
  const link = agent.link ?? null;
  if (link === "reconnecting") {
    return {
      label: `${host} · reconnecting`,
      cls: "warn",
      title: `The link to ${host} dropped: reconnecting; the agent lives on there`,
    };
  }
  if (link === "lost") {
    return {
      label: `${host} · lost`,
      cls: "error",
      title: `The link to ${host} did not come back: its agents there were stopped`,
    };
  }
  if (link === "up") {
    return { label: host, cls: "host", title: `Runs on ${host} over SSH` };
  }
  return { label: host, cls: "host off", title: `Runs on ${host} over SSH (not connected)` };
}

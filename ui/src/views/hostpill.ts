// Where an agent runs, as a pill: its host and the link's state (model/hosts.ts says what).
import { hostBadge } from "../model/hosts";
import type { AgentRow } from "../model/types";
import { h } from "./dom";

export function hostPill(agent: Pick<AgentRow, "host" | "link"> | undefined): HTMLElement | null {
  const badge = hostBadge(agent);
  if (!badge) return null;
  return h(
    "span.badge.host",
    { class: badge.cls, title: badge.title, dataset: { host: agent?.host ?? "" } },
    badge.label,
  );
}

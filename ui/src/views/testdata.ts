// Rows for view tests, shaped as the UI server sends them (ui/API.md).

import type { LoggedAsk } from "../model/timeline";
import type { AgentRow, Profile, WorkRow } from "../model/types";

export function agentRow(name: string, over: Partial<AgentRow> = {}): AgentRow {
  return {
    id: `id-${name}`,
    name,
    profile: "claude",
    mode: "structured",
    configured_mode: null,
    model: null,
    description: null,
    workspace: "project",
    live: false,
    node_id: null,
    status: "idle",
    ...over,
  };
}

let n = 0;
export function loggedAsk(over: Partial<LoggedAsk> = {}): LoggedAsk {
  n += 1;
  return {
    at_ms: Date.now() - 60_000 + n,
    source: "mcp",
    requester: "id-lead",
    action: "agent.message",
    target: "dev",
    prompt_chars: 4,
    prompt: `task ${n}`,
    reply: "done",
    duration_ms: 10,
    ok: true,
    code: null,
    chain_id: null,
    depth: null,
    usage: null,
    queued_ms: null,
    ...over,
  };
}

export function profile(name: string, over: Partial<Profile> = {}): Profile {
  return {
    name,
    command: [name],
    description: "",
    structured: name,
    default_mode: "structured",
    modes: ["structured", "terminal"],
    installed: true,
    path: null,
    problem: null,
    ...over,
  };
}

export function workRow(name: string, over: Partial<WorkRow> = {}): WorkRow {
  return {
    agent_id: `id-${name}`,
    name,
    status: "idle",
    intent: null,
    ticket: null,
    progress: null,
    last_delegation: null,
    updated_at_ms: null,
    live: true,
    mode: "structured",
    node_id: null,
    queued: 0,
    ...over,
  };
}

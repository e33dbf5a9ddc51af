// Shapes of ui/API.md (v1).

export type Mode = "terminal" | "structured";
export type Status = "working" | "waiting" | "blocked" | "idle";
export type View = "terminal" | "chat";

export type ApiError = { code: string; message: string; [detail: string]: string };

export type AgentRow = {
  id: string;
  name: string;
  profile: string;
  mode: Mode | null;
  configured_mode: Mode | null;
  model: string | null;
  description: string | null;
  workspace: "project" | "worktree";
  live: boolean;
  node_id: string | null;
  status: Status;
};

// agents.get: a row with the agent's context (agents.list leaves it out: it may be large).
export type AgentDetail = AgentRow & { context: string };

export type Profile = {
  name: string;
  command: string[];
  description: string;
  structured: string | null;
  default_mode: Mode;
  modes: Mode[];
  installed: boolean;
  path: string | null;
  problem: string | null;
};

export type Leaf = {
  type: "leaf";
  id: string;
  agent: string | null;
  view: View;
  agent_was_running: boolean;
  conversation_id: string | null;
};
export type Split = {
  type: "split";
  id: string;
  direction: "row" | "column";
  sizes: number[];
  children: LayoutNode[];
};
export type LayoutNode = Leaf | Split;
export type Tab = { id: string; title: string; root: LayoutNode };
export type Layouts = { version: 1; tabs: Tab[]; active_tab: string };

export type ProjectInfo = { id: string; name: string; root: string; version: string; scratch: boolean };
export type RecentProject = { root: string; name: string; opened_at_ms: number; current: boolean; exists: boolean };

export type WorkRow = {
  agent_id: string;
  name: string;
  status: Status;
  intent: string | null;
  ticket: string | null;
  progress: string | null;
  last_delegation: string | null;
  updated_at_ms: number | null;
  live: boolean;
  mode: Mode | null;
  node_id: string | null;
  queued: number;
};

export type Delegation = {
  at_ms: number;
  source: "ui" | "file" | "mcp";
  requester: string | null;
  action: string;
  target: string;
  prompt_chars: number;
  prompt: string;
  reply: string | null;
  duration_ms: number;
  ok: boolean;
  code: string | null;
};

export type SessionEvent =
  | { type: "text"; text: string }
  | { type: "tool_use"; tool_id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_id: string; output: string; is_error: boolean }
  | {
      type: "final";
      text: string;
      is_error: boolean;
      error: string | null;
      conversation_id: string | null;
    };

/** A turn began: the task it was given and who asked (null: the UI or a request file). */
export type TurnStarted = { type: "turn_started"; requester_id: string | null; prompt: string };
export type ChatEntry = (SessionEvent | TurnStarted) & { seq: number };
export type ChatEventData = ChatEntry & { agent_id: string; agent_name: string };
export type ChatHistory = { entries: ChatEntry[]; seq: number; queued: number };
export type TrustInfo = {
  state: "trusted" | "restricted" | "profiles_changed";
  root: string;
  would_run: { profile: string; command: string[]; overrides_builtin: boolean }[];
  resume: string[];
};

// doctor.run: one row per profile (DESIGN.md §17).
export type Check = "ok" | "error" | "skipped";
export type DoctorRow = {
  profile: string;
  path: string | null;
  runs: string[];
  version: string | null;
  structured: Check;
  mcp: Check;
  live: Check;
  detail: string;
};

// workspace.changes (DESIGN.md §14).
export type FileChange = {
  path: string;
  status: "added" | "modified" | "deleted" | "renamed";
  additions: number;
  deletions: number;
};
export type WorkspaceChanges = {
  branch: string;
  base: string;
  ahead: number;
  files: FileChange[];
  diff: string;
  truncated: boolean;
};

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
  hibernated?: boolean; // stopped for idling, conversation kept: a chat message resumes it
  last_exit?: { exit_code: number; at_ms: number } | null; // its terminal ended by itself
  host?: string | null; // the machine its CLI runs on (DESIGN.md §16); null: this one
  link?: LinkState | null; // the link to that host; null before the first connection
};

export type LinkState = "up" | "reconnecting" | "lost" | "closed";

/** hosts.list: a host of the user's hosts.json (DESIGN.md §16). */
export type HostInfo = { name: string; ssh: string; root: string };

// agents.get: a row with the agent's context (agents.list leaves it out: it may be large), and who
// may ask it (DESIGN.md §15): ["*"] = anyone, else agent names (the user always may).
// `version`: its file's, sent back with agents.update (a file changed meanwhile: CONFLICT, §18).
export type AgentDetail = AgentRow & { context: string; asks_from?: string[]; version?: string };

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

// What turns cost, as their CLIs reported it (DESIGN.md §15); `turns` on an agent's totals only.
export type Usage = {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  total_tokens: number;
  cost_usd: number | null;
  turns?: number;
};

/** The ask an agent answers now; `requester` null = the user. */
export type Serving = {
  chain_id: string;
  depth: number;
  requester: string | null;
  deadline_at_ms: number;
  started_at_ms?: number; // when its turn began: the board counts the time it has been working
};

/** The agent's CLI refused for a rate limit or a spent quota (its status is then "blocked"). */
export type RateLimit = { reason: string; resets_at_ms: number | null };

export type WorkRow = {
  agent_id: string;
  name: string;
  status: Status;
  intent: string | null;
  ticket: string | null;
  progress: string | null;
  last_delegation: unknown; // {target, at_ms, ok, code, chain_id, depth}: see lastDelegationText
  updated_at_ms: number | null;
  live: boolean;
  mode: Mode | null;
  node_id: string | null;
  queued: number;
  usage?: Usage | null; // totals since the project opened; null: no turn yet
  hibernated?: boolean; // stopped for idling, its conversation kept: the next ask resumes it
  serving?: Serving | null;
  rate_limit?: RateLimit | null;
};

/** A chain in flight: one root ask and every ask made while serving it. */
export type Chain = {
  chain_id: string;
  depth: number; // the deepest so far; root = 1
  root_requester: string | null;
  root_target: string;
  agents: string[];
  started_at_ms: number;
  usage: Usage | null;
};

export type WorkState = { agents: WorkRow[]; chains?: Chain[] };

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
  chain_id?: string | null;
  depth?: number | null;
  usage?: Usage | null; // the answering turn's
  started_at_ms?: number; // LOST rows: when the ask that never ended started
};

// policy.get / policy.set (DESIGN.md §15).
export type Policy = {
  version: 1;
  max_depth: number;
  ask_timeout_s: number;
  queue_wait_s: number;
  hibernate_after_s: number | null; // null: never
  chain_token_budget: number | null; // null: none
};
// `version`: policy.json's ("" without a file), sent back with policy.set.
export type PolicyInfo = { policy: Policy; problem: string | null; version?: string };

// problems.list: files moved aside, copied agents, and asks in flight when IdeA last closed.
export type LostAsk = {
  code: "LOST";
  message: string;
  target: string;
  requester: string | null;
  chain_id: string | null;
  started_at_ms: number;
};
export type Problem = LostAsk | ApiError;

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
      interrupted?: boolean; // it failed because it was interrupted (kept in the chat history)
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
  /** The repository's hooks git runs once trusted (at a merge), and where from (DESIGN.md §18). */
  git_hooks: { dir: string; names: string[] } | null;
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

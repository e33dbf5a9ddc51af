// The server's shapes under the names the UI uses. Every shape the server sends is GENERATED
// from the Python declarations into ./api.gen.ts (`make ui-types`): a field renamed there breaks
// the build here. Only what is purely UI-side is written by hand below.

import type {
  AgentRow,
  DoctorRow,
  Events,
  HostRow,
  Leaf,
  LostAsk,
  ProblemRow,
  ProfileRow,
  SessionEntry,
  TurnStartedEntry,
  WorkRow,
} from "./api.gen";

export type {
  AgentDetail,
  AgentRow,
  Chain,
  ChatEntry,
  ChatHistory,
  Delegation,
  DoctorRow,
  FileChange,
  Layouts,
  LayoutNode,
  Leaf,
  LostAsk,
  Policy,
  PolicyInfo,
  ProjectInfo,
  RateLimit,
  RecentProject,
  Serving,
  Split,
  Tab,
  TrustInfo,
  Usage,
  WorkRow,
  WorkState,
  WorkspaceChanges,
} from "./api.gen";

export type Mode = NonNullable<AgentRow["mode"]>;
export type Status = WorkRow["status"];
export type View = Leaf["view"];
export type LinkState = NonNullable<AgentRow["link"]>;
export type Check = DoctorRow["structured"];

/** hosts.list: a host of the user's hosts.json (DESIGN.md §16). */
export type HostInfo = HostRow;
export type Profile = ProfileRow;

/** An error reply's `error` (ui/API.md §2): the code, a message, and details by code. */
export type ApiError = { code: string; message: string; [detail: string]: string };

// problems.list: files moved aside, copied agents, and asks in flight when IdeA last closed.
export type Problem = LostAsk | ProblemRow;

/** What a structured session reports during a turn; `TurnStarted` opens each turn. */
export type SessionEvent = Exclude<SessionEntry, TurnStartedEntry>;
export type TurnStarted = TurnStartedEntry;
export type ChatEventData = Events["ChatEvent"];

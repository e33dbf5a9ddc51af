// Chat transcripts per agent, fed by pushed ChatEvents (whoever asked: the UI, another agent, a
// request file). A chat shown for the first time loads `chat.history` (what the server keeps, across
// restarts too) and merges the live events by `seq`; when it has nothing (a project whose chats
// were never logged), past turns are rebuilt from the delegation log (prompt and reply only).
// A reply's streamed pieces are kept as they came (model/longtext.ts): a delta costs its own size.

import { api } from "./api";
import { Pieces } from "./longtext";
import { store } from "./state";
import type { ChatEntry, ChatEventData } from "./types";

export type Entry =
  | { kind: "user"; text: string; from: string | null; pending: boolean }
  | { kind: "assistant"; text: Pieces; done: boolean; error: string | null; interrupted: boolean }
  | {
      kind: "tool";
      id: string;
      name: string;
      input: unknown;
      output: string | null;
      isError: boolean;
    };

type Transcript = {
  entries: Entry[];
  busy: boolean;
  seeded: boolean;
  /** Events up to this seq are in `entries`; later ones wait in `held` while loading. */
  seq: number;
  loading: boolean;
  held: ChatEntry[];
  /** Asks the agent holds, the running turn included (AgentQueueChanged). */
  queued: number;
  /** This page asked to interrupt the running turn: its failure is that interruption. */
  interruptAsked: boolean;
  listeners: Set<() => void>;
};

const transcripts = new Map<string, Transcript>();

export function transcript(agentId: string): Transcript {
  let t = transcripts.get(agentId);
  if (!t) {
    t = {
      entries: [],
      busy: false,
      seeded: false,
      seq: 0,
      loading: false,
      held: [],
      queued: 0,
      interruptAsked: false,
      listeners: new Set(),
    };
    transcripts.set(agentId, t);
  }
  return t;
}

/** Drop every transcript (another project is open). */
export function forgetTranscripts(): void {
  transcripts.clear();
}

function changed(t: Transcript): void {
  for (const l of t.listeners) l();
}

function openAnswer(t: Transcript): Entry & { kind: "assistant" } {
  const last = t.entries[t.entries.length - 1];
  if (last?.kind === "assistant" && !last.done) return last;
  const entry = {
    kind: "assistant" as const,
    text: new Pieces(),
    done: false,
    error: null,
    interrupted: false,
  };
  t.entries.push(entry);
  return entry;
}

export type UserEntry = Entry & { kind: "user" };

/** The UI's own message, shown at once; its turn may wait behind others in the agent's queue. */
export function addUserMessage(agentId: string, text: string): UserEntry {
  const t = transcript(agentId);
  const entry: UserEntry = { kind: "user", text, from: null, pending: true };
  t.entries.push(entry);
  t.busy = true;
  changed(t);
  return entry;
}

/** This page sends `chat.interrupt`: the running turn, if it then fails, was interrupted. */
export function askInterrupt(agentId: string, asked = true): void {
  transcript(agentId).interruptAsked = asked;
}

/** The answer to `message` (the entry, or the latest message with its text): null if none yet. */
function answerTo(t: Transcript, message: UserEntry): (Entry & { kind: "assistant" }) | null {
  let i = t.entries.indexOf(message);
  for (let j = t.entries.length - 1; i < 0 && j >= 0; j--) {
    const e = t.entries[j];
    if (e.kind === "user" && e.text === message.text && !e.from) i = j;
  }
  if (i < 0) return null;
  for (const e of t.entries.slice(i + 1)) {
    if (e.kind === "user") return null;
    if (e.kind === "assistant") return e;
  }
  return null;
}

/** `chat.send` said the turn of `message` was interrupted: show it so, not as a failure. */
export function markInterrupted(agentId: string, message: UserEntry): void {
  const t = transcript(agentId);
  const answer = answerTo(t, message);
  if (answer) {
    answer.interrupted = true;
    answer.error = null;
    answer.done = true;
  }
  changed(t);
}

export function setIdle(agentId: string): void {
  const t = transcript(agentId);
  t.busy = false;
  for (const e of t.entries) if (e.kind === "user") e.pending = false;
  changed(t);
}

export function setQueued(agentId: string, queued: number): void {
  const t = transcript(agentId);
  t.queued = queued;
  changed(t);
}

export function onChatEvent(ev: ChatEventData): void {
  const t = transcript(ev.agent_id);
  if (t.loading) {
    t.held.push(ev);
    return;
  }
  if (ev.seq <= t.seq) return; // already in the history
  apply(t, ev);
  changed(t);
}

function apply(t: Transcript, ev: ChatEntry): void {
  t.seq = Math.max(t.seq, ev.seq);
  switch (ev.type) {
    case "turn_started": {
      const from = ev.requester_id
        ? (store.agentById(ev.requester_id)?.name ?? ev.requester_id)
        : null;
      // The UI's own message is already shown (pending): this is its turn starting.
      const mine =
        from === null
          ? t.entries.find((e) => e.kind === "user" && e.pending && e.text === ev.prompt)
          : undefined;
      if (mine?.kind === "user") mine.pending = false;
      else t.entries.push({ kind: "user", text: ev.prompt, from, pending: false });
      t.busy = true;
      t.interruptAsked = false;
      break;
    }
    case "text":
      openAnswer(t).text.append(ev.text);
      t.busy = true;
      break;
    case "tool_use":
      t.entries.push({
        kind: "tool",
        id: ev.tool_id,
        name: ev.name,
        input: ev.input,
        output: null,
        isError: false,
      });
      t.busy = true;
      break;
    case "tool_result": {
      const tool = t.entries.find((e) => e.kind === "tool" && e.id === ev.tool_id);
      if (tool?.kind === "tool") {
        tool.output = ev.output;
        tool.isError = ev.is_error;
      }
      break;
    }
    case "final": {
      const answer = openAnswer(t);
      if (!answer.text.length) answer.text.append(ev.text);
      answer.done = true;
      // The server says so (also in a history replayed after a reload), or this page asked.
      answer.interrupted = ev.is_error && (ev.interrupted === true || t.interruptAsked);
      answer.error = ev.is_error && !answer.interrupted ? (ev.error ?? "the turn failed") : null;
      t.interruptAsked = false;
      t.busy = t.entries.some((e) => e.kind === "user" && e.pending);
      break;
    }
    default:
      return;
  }
}

/** Fill a transcript once per page: the server's history, else the delegation log. */
export async function seed(agentId: string, agentName: string): Promise<void> {
  const t = transcript(agentId);
  if (t.seeded) return;
  t.seeded = true;
  t.loading = true;
  try {
    const history = await api.call("chat.history", { name: agentName });
    t.queued = history.queued;
    if (history.entries.length) {
      const mine = t.entries.filter((e) => e.kind === "user" && e.pending);
      t.entries = [];
      t.seq = 0;
      for (const e of history.entries) apply(t, e);
      for (const e of mine) {
        if (e.kind === "user" && !t.entries.some((x) => x.kind === "user" && x.text === e.text))
          t.entries.push(e);
      }
      t.seq = history.seq;
    } else {
      t.seq = history.seq;
      await seedFromLog(t, agentName);
    }
  } catch {
    // Not connected: live events still come; the next page load tries again.
  } finally {
    t.loading = false;
    const held = t.held.splice(0);
    for (const ev of held) if (ev.seq > t.seq) apply(t, ev);
    changed(t);
  }
}

async function seedFromLog(t: Transcript, agentName: string): Promise<void> {
  const records = await api.call("delegations.recent", { limit: 200 });
  const past: Entry[] = [];
  for (const r of records) {
    if (r.target !== agentName || r.action !== "agent.message") continue;
    const from = r.requester ? (store.agentById(r.requester)?.name ?? r.requester) : null;
    past.push({ kind: "user", text: r.prompt ?? "", from, pending: false });
    const error = r.ok ? null : (r.code ?? "failed");
    past.push({
      kind: "assistant",
      text: new Pieces(r.reply ?? ""),
      done: true,
      error,
      interrupted: false,
    });
  }
  t.entries = [...past, ...t.entries];
}

/** What a screen reader is told when a reply ends: who answered and its start (plain text). */
export function replyAnnouncement(agentName: string, e: Entry): string {
  if (e.kind !== "assistant") return "";
  if (e.interrupted) return `${agentName}: interrupted`;
  if (e.error) return `${agentName} failed: ${e.error.slice(0, 200)}`;
  const text = e.text.slice(0, 1000).replace(/\s+/g, " ").trim(); // the start of a long reply only
  return `${agentName} replied: ${text.length > 200 ? `${text.slice(0, 199)}…` : text}`;
}

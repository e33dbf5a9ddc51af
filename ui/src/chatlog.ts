// Chat transcripts per agent, fed by pushed ChatEvents (whoever asked) and the UI's own messages.
// The API has no transcript method: after a reload, the past turns are rebuilt from the
// delegation log (asks to this agent, whoever asked: prompt and final reply, no tool calls).

import { api } from "./api";
import type { ChatEventData, Delegation } from "./types";

export type Entry =
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string; done: boolean; error: string | null }
  | { kind: "tool"; id: string; name: string; input: unknown; output: string | null; isError: boolean };

type Transcript = { entries: Entry[]; busy: boolean; seeded: boolean; listeners: Set<() => void> };

const transcripts = new Map<string, Transcript>();

export function transcript(agentId: string): Transcript {
  let t = transcripts.get(agentId);
  if (!t) transcripts.set(agentId, (t = { entries: [], busy: false, seeded: false, listeners: new Set() }));
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
  const entry = { kind: "assistant" as const, text: "", done: false, error: null };
  t.entries.push(entry);
  return entry;
}

export function addUserMessage(agentId: string, text: string): void {
  const t = transcript(agentId);
  t.entries.push({ kind: "user", text });
  t.busy = true;
  changed(t);
}

export function setIdle(agentId: string): void {
  const t = transcript(agentId);
  t.busy = false;
  changed(t);
}

export function onChatEvent(ev: ChatEventData): void {
  const t = transcript(ev.agent_id);
  switch (ev.type) {
    case "text":
      openAnswer(t).text += ev.text;
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
      if (!answer.text) answer.text = ev.text;
      answer.done = true;
      answer.error = ev.is_error ? (ev.error ?? "the turn failed") : null;
      t.busy = false;
      break;
    }
    default:
      return;
  }
  changed(t);
}

/** Fill an empty transcript from the delegation log, once per page. */
export async function seedFromLog(agentId: string, agentName: string): Promise<void> {
  const t = transcript(agentId);
  if (t.seeded) return;
  t.seeded = true;
  let records: Delegation[];
  try {
    records = await api.call<Delegation[]>("delegations.recent", { limit: 200 });
  } catch {
    return;
  }
  if (t.entries.length) return; // live events came first: keep them
  for (const r of records) {
    if (r.target !== agentName || r.action !== "agent.message") continue;
    t.entries.push({ kind: "user", text: r.prompt });
    t.entries.push({
      kind: "assistant",
      text: r.reply ?? "",
      done: true,
      error: r.ok ? null : (r.code ?? "failed"),
    });
  }
  changed(t);
}

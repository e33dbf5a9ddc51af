// What the board says of an agent beyond its own row: hibernated, rate-limited, the ask it
// serves, the chains in flight; and what the problems list says of an ask lost in a crash.
// Names are resolved by the caller (`nameOf`: an agent id or name → its name). Pure, so it is
// tested alone.

import { describeError, type ErrorText } from "./errors";
import type { ApiError, Chain, Problem, WorkRow } from "./types";
import { count, localTime, relativeTime, resetText, shortChainId } from "./usage";

export type NameOf = (idOrName: string) => string;

export type StatusText = { label: string; cls: string; title: string };

/** The board's status pill, from what the sessions say first and the agent's own row second:
 * stopped / hibernated (not live), blocked (rate-limited), working (a turn runs; ``since`` is
 * when it began), queued N (asks wait, none runs yet), then the row's own waiting / blocked /
 * working, else idle. */
export function statusOf(r: WorkRow): StatusText & { since: number | null } {
  const none = { since: null };
  if (!r.live) {
    if (r.hibernated === true) {
      return {
        ...none,
        label: "hibernated",
        cls: "hibernated",
        title:
          "Stopped after idling; its conversation is kept and the next ask or chat message resumes it.",
      };
    }
    return { ...none, label: "stopped", cls: "stopped", title: "Not running" };
  }
  if (r.rate_limit && typeof r.rate_limit === "object") {
    return {
      ...none,
      label: "blocked",
      cls: "blocked",
      title: "Its CLI refused for a rate limit or a spent quota.",
    };
  }
  if (r.serving && typeof r.serving === "object") {
    const since = count(r.serving.started_at_ms);
    return { since, label: "working", cls: "working", title: "Answering an ask" };
  }
  const queued = count(r.queued) ?? 0;
  if (queued > 0) {
    return {
      ...none,
      label: `queued ${queued}`,
      cls: "waiting",
      title: `${queued} ask(s) wait for it`,
    };
  }
  const own = ["working", "waiting", "blocked"].includes(r.status) ? r.status : "idle";
  const title = own === "idle" ? "" : "As the agent itself reported";
  return { ...none, label: own, cls: own, title };
}

/** "12 s", "3 min 05 s", "1 h 02 min": how long a turn has run. */
export function elapsedText(sinceMs: number, nowMs: number): string {
  const s = Math.max(0, Math.floor((nowMs - sinceMs) / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min`;
}

/** The row's ``last_delegation`` (an object the server keeps: target, ok, code, at_ms) as a
 * line: "beta · ok · 2 min ago"; null when absent or unreadable. */
export function lastDelegationText(value: unknown, nowMs: number): string | null {
  if (typeof value === "string") return value.trim() ? value.slice(0, 200) : null;
  if (!value || typeof value !== "object") return null;
  const d = value as Record<string, unknown>;
  const target = typeof d.target === "string" && d.target ? d.target.slice(0, 64) : null;
  if (!target) return null;
  const outcome =
    d.ok === true
      ? "ok"
      : typeof d.code === "string" && d.code
        ? d.code.slice(0, 40)
        : d.ok === false
          ? "failed"
          : null;
  const at = count(d.at_ms);
  return [target, outcome, at !== null ? relativeTime(at, nowMs) : null]
    .filter(Boolean)
    .join(" · ");
}

/** "rate-limited: <reason> · resets at 14:32 (in 12 min)"; null when it is not. */
export function rateLimitText(r: WorkRow, nowMs: number, clock = localTime): string | null {
  const rl = r.rate_limit;
  if (!rl || typeof rl !== "object") return null;
  const reason =
    typeof rl.reason === "string" && rl.reason.trim() ? rl.reason.trim() : "no reason given";
  const reset = resetText(rl.resets_at_ms, nowMs, clock);
  return reset ? `${reason} · ${reset}` : reason;
}

/** Who asked: "you" for the user, else the agent's name. */
export function askerOf(requester: unknown, nameOf: NameOf): string {
  return typeof requester === "string" && requester ? nameOf(requester) : "you";
}

/** "depth 2 · asked by lead · due in 4 min" for the ask an agent serves; null when it serves none. */
export function servingText(r: WorkRow, nowMs: number, nameOf: NameOf): string | null {
  const s = r.serving;
  if (!s || typeof s !== "object") return null;
  const parts: string[] = [];
  const depth = count(s.depth);
  if (depth !== null) parts.push(`depth ${depth}`);
  parts.push(`asked by ${askerOf(s.requester, nameOf)}`);
  const deadline = count(s.deadline_at_ms);
  if (deadline !== null) {
    parts.push(
      deadline > nowMs
        ? `due ${relativeTime(deadline, nowMs)}`
        : `past its deadline (${relativeTime(deadline, nowMs)})`,
    );
  }
  return parts.join(" · ");
}

/** A chain's heading: "you → lead", and its agents after the root's target. */
export function chainText(c: Chain, nameOf: NameOf): { who: string; agents: string[] } {
  const target = typeof c.root_target === "string" ? nameOf(c.root_target) : "?";
  const agents = (Array.isArray(c.agents) ? c.agents : [])
    .filter((a): a is string => typeof a === "string")
    .map(nameOf)
    .filter((a) => a !== target);
  return { who: `${askerOf(c.root_requester, nameOf)} → ${target}`, agents: [...new Set(agents)] };
}

/** Chains newest first (a bad start time last). */
export function chainsByStart(chains: unknown): Chain[] {
  if (!Array.isArray(chains)) return [];
  return (chains as Chain[])
    .filter((c) => c && typeof c === "object" && typeof c.chain_id === "string")
    .slice()
    .sort((a, b) => (count(b.started_at_ms) ?? -1) - (count(a.started_at_ms) ?? -1));
}

/** What the problems banner says of one problem: a lost ask says who asked whom and when. */
export function describeProblem(p: Problem, nowMs: number, nameOf: NameOf): ErrorText {
  if (p.code !== "LOST") return describeError(asError(p), nowMs);
  const lost = p as Partial<Extract<Problem, { code: "LOST" }>>;
  const started = count(lost.started_at_ms);
  const target = typeof lost.target === "string" ? nameOf(lost.target) : "an agent";
  const when = started === null ? "" : `, started ${localTime(started, nowMs)},`;
  const chain =
    typeof lost.chain_id === "string" && lost.chain_id
      ? ` (chain ${shortChainId(lost.chain_id)})`
      : "";
  return {
    title: "Ask lost",
    text:
      `An ask from ${askerOf(lost.requester, nameOf)} to ${target}${chain}${when} was in flight ` +
      "when IdeA last closed; its answer is lost.",
  };
}

/** A problem row as an error: its details as text, whatever the server sent. */
export function asError(p: Problem): ApiError {
  const e: ApiError = { code: String(p.code ?? ""), message: String(p.message ?? "") };
  for (const [k, v] of Object.entries(p)) {
    if (k !== "code" && k !== "message" && v !== null && v !== undefined) e[k] = String(v);
  }
  return e;
}

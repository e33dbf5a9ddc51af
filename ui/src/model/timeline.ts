// The delegation timeline (DESIGN.md §15): each root ask with the asks made while serving it
// nested under the one that made them, in the order they started; the hops whose turn runs now
// shown running, and those waiting in an agent's queue shown queued; a user's consecutive chat
// messages to one agent folded into one line. The log holds an ask once, when it ended; what
// runs or waits now comes from the board (`serving`, `waiting`). Each ask names its parent ask
// (`parent_ask_id`, the one its requester was serving), so a chain's tree is a group-by on it;
// only rows logged before asks had ids are placed by a guess (the legacy path, `legacyParentOf`).
// Rows come from files and CLIs through the server: any field may be missing or wrong, and such
// a row is still shown, never dropped or thrown on. Pure, so it is tested alone.

import { chainOf, depthOf, startOf } from "./chains";
import { leaves } from "./tree";
import type { Delegation, Layouts, Usage, WorkRow } from "./types";
import { count, sumUsage } from "./usage";

/** A log row as `delegations.recent` gives it, with the wait for its turn and its place in the
 * ask tree (ui/API.md; rows logged before ask ids lack them). */
export type LoggedAsk = Delegation & {
  queued_ms?: number | null;
  ask_id?: string | null;
  parent_ask_id?: string | null;
};

/** A turn running now (the hop an agent serves: `workstate.get` serving, ui/API.md), or with
 * `queued`, an ask accepted that waits for its turn (`waiting`; `started_at_ms`: when it came). */
export type RunningHop = {
  target: string; // agent name
  ask_id?: string | null;
  parent_ask_id?: string | null; // the ask its requester serves; null: a root ask
  chain_id: string | null;
  depth: number | null;
  requester: string | null; // name or id; null: the user
  started_at_ms: number | null;
  queued_ms: number | null;
  source: string | null; // the door; null: not said
  prompt: string | null;
  queued?: boolean;
};

export type HopState = "running" | "queued" | "ok" | "failed" | "lost";

/** Not ended yet: its turn runs, or it waits for one. */
export const inFlight = (h: { state: HopState }): boolean =>
  h.state === "running" || h.state === "queued";

export type Hop = {
  key: string; // stable across refreshes while the hop stays logged (or running)
  askId: string | null; // null: logged before asks had ids
  parentAskId: string | null; // the ask it was made under; null: a root, or not known
  chainId: string | null;
  depth: number | null;
  requester: string | null; // as logged (agent id or name); null: the user
  target: string;
  source: string | null; // the door; null: not known
  action: string;
  startedAt: number | null;
  durationMs: number | null; // whole ask; a running hop: null (the view counts from startedAt)
  queuedMs: number | null; // waiting for its turn
  turnMs: number | null; // durationMs - queuedMs, when both are known
  usage: Usage | null;
  state: HopState;
  outcome: string; // "running", "ok" or the error code
  prompt: string | null;
  reply: string | null;
  row: LoggedAsk | null;
  placeholder: boolean; // a root that is not in the rows shown (older than them)
  match: boolean; // involves the agent the timeline is filtered by (all hops without a filter)
  children: Hop[];
};

export type ChainItem = {
  kind: "chain";
  chainId: string | null; // null: a row from before chains, or an action that is not an ask
  root: Hop;
  startedAt: number;
  asks: number;
  failed: number;
  running: number;
  queued: number; // asks of the chain waiting for their turn
  depth: number | null; // the deepest hop
  usage: Usage | null; // every hop's
};

/** A user's consecutive chat messages to one agent, none with nested asks. */
export type ChatGroup = {
  kind: "chats";
  target: string;
  hops: Hop[]; // newest first, as the timeline reads
  startedAt: number;
  endedAt: number;
  failed: number;
  usage: Usage | null;
};

export type TimelineItem = ChainItem | ChatGroup;

export type TimelineOptions = {
  /** Only chains in which this agent asks or is asked (each shown whole, its hops marked). */
  agent?: string | null;
  /** Only this chain. */
  chain?: string | null;
  /** An agent's name from its id or name (rows hold ids for requesters). */
  nameOf?: (idOrName: string) => string;
};

/** Chat messages folded together only from this many on: one message reads fine alone. */
export const GROUP_FROM = 2;

const text = (x: unknown): string | null => (typeof x === "string" && x ? x : null);

function isRow(x: unknown): x is LoggedAsk {
  return isObject(x);
}

function isObject(x: unknown): x is object {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function loggedHop(r: LoggedAsk, i: number): Hop {
  const chainId = chainOf(r);
  const depth = depthOf(r);
  const duration = count(r.duration_ms);
  const queued = count(r.queued_ms);
  const lost = r.code === "LOST";
  const target = text(r.target) ?? "?";
  const started = startOf(r);
  const askId = text(r.ask_id);
  return {
    key: askId
      ? `log:${askId}`
      : `log:${chainId ?? ""}:${depth ?? ""}:${target}:${count(r.at_ms) ?? ""}:${i}`,
    askId,
    parentAskId: text(r.parent_ask_id),
    chainId,
    depth,
    requester: text(r.requester),
    target,
    source: text(r.source),
    action: text(r.action) ?? "?",
    startedAt: started > 0 ? started : null,
    durationMs: lost ? null : duration,
    queuedMs: lost ? null : queued,
    turnMs: !lost && duration !== null && queued !== null ? Math.max(0, duration - queued) : null,
    usage: r.usage && typeof r.usage === "object" ? r.usage : null,
    state: r.ok === true ? "ok" : lost ? "lost" : "failed",
    outcome: r.ok === true ? "ok" : (text(r.code) ?? "failed"),
    prompt: typeof r.prompt === "string" ? r.prompt : null,
    reply: typeof r.reply === "string" ? r.reply : null,
    row: r,
    placeholder: false,
    match: true,
    children: [],
  };
}

function runningHop(r: RunningHop, i: number): Hop {
  const depth = count(r.depth);
  const chainId = text(r.chain_id);
  const started = count(r.started_at_ms);
  const target = text(r.target) ?? "?";
  const queued = r.queued === true;
  const askId = text(r.ask_id);
  const legacyKey = queued
    ? `wait:${chainId ?? ""}:${depth ?? ""}:${target}:${started ?? ""}:${i}`
    : `run:${chainId ?? ""}:${depth ?? ""}:${target}:${started ?? ""}`;
  return {
    key: askId ? `${queued ? "wait" : "run"}:${askId}` : legacyKey,
    askId,
    parentAskId: text(r.parent_ask_id),
    chainId,
    depth: depth !== null && depth >= 1 && Number.isInteger(depth) ? depth : null,
    requester: text(r.requester),
    target,
    source: text(r.source),
    action: "agent.message",
    startedAt: started,
    durationMs: null,
    queuedMs: queued ? null : count(r.queued_ms),
    turnMs: null,
    usage: null,
    state: queued ? "queued" : "running",
    outcome: queued ? "queued" : "running",
    prompt: typeof r.prompt === "string" ? r.prompt : null,
    reply: null,
    row: null,
    placeholder: false,
    match: true,
    children: [],
  };
}

/** The turns running now, from the board's rows (`serving`), with the prompts the page saw in
 * `AgentTurnStarted` (keyed by `runningKey`); then the asks waiting for their turn (`waiting`). */
export function runningFromWorkState(
  rows: readonly WorkRow[] | unknown,
  prompts: ReadonlyMap<string, string> = new Map(),
): RunningHop[] {
  if (!Array.isArray(rows)) return [];
  const hops: RunningHop[] = [];
  for (const row of rows as unknown[]) {
    if (!isRow(row)) continue;
    const r = row as unknown as WorkRow;
    const s = r.serving as
      | (WorkRow["serving"] & { started_at_ms?: unknown; queued_ms?: unknown; source?: unknown })
      | null;
    const name = text(r.name);
    if (!name) continue;
    hops.push(...waitingOf(name, (r as { waiting?: unknown }).waiting));
    if (!s || typeof s !== "object") continue;
    const chain_id = text(s.chain_id);
    const depth = count(s.depth);
    const ids = s as { ask_id?: unknown; parent_ask_id?: unknown };
    hops.push({
      target: name,
      ask_id: text(ids.ask_id),
      parent_ask_id: text(ids.parent_ask_id),
      chain_id,
      depth,
      requester: text(s.requester),
      started_at_ms: count(s.started_at_ms),
      queued_ms: count(s.queued_ms),
      source: text(s.source),
      prompt: prompts.get(runningKey(name, chain_id, depth)) ?? null,
    });
  }
  return hops;
}

/** A board row's `waiting` asks as hops that wait (entries that are not objects are skipped). */
function waitingOf(target: string, waiting: unknown): RunningHop[] {
  if (!Array.isArray(waiting)) return [];
  return (waiting as unknown[]).filter(isObject).map((w) => {
    const x = w as {
      ask_id?: unknown;
      parent_ask_id?: unknown;
      chain_id?: unknown;
      depth?: unknown;
      requester?: unknown;
      since_ms?: unknown;
      source?: unknown;
      prompt?: unknown;
    };
    return {
      target,
      ask_id: text(x.ask_id),
      parent_ask_id: text(x.parent_ask_id),
      chain_id: text(x.chain_id),
      depth: count(x.depth),
      requester: text(x.requester),
      started_at_ms: count(x.since_ms),
      queued_ms: null,
      source: text(x.source),
      prompt: typeof x.prompt === "string" ? x.prompt : null,
      queued: true,
    };
  });
}

/** How a running hop is known in `AgentTurnStarted` and on the board. */
export function runningKey(agent: string, chainId: unknown, depth: unknown): string {
  return `${agent}|${text(chainId) ?? ""}|${count(depth) ?? ""}`;
}

const startKey = (h: Hop) => h.startedAt ?? Number.MAX_SAFE_INTEGER; // unknown: the newest

function byStart(hops: Hop[]): Hop[] {
  return hops
    .map((hop, i) => ({ hop, i }))
    .sort(
      (a, b) =>
        startKey(a.hop) - startKey(b.hop) || (a.hop.depth ?? 0) - (b.hop.depth ?? 0) || a.i - b.i,
    )
    .map(({ hop }) => hop);
}

function endOf(h: Hop): number {
  if (inFlight(h) || h.startedAt === null) return Number.MAX_SAFE_INTEGER;
  return h.startedAt + (h.durationMs ?? 0);
}

/** One chain's hops as a tree, the root first: each nested hop under the hop it names as its
 * parent (`parentAskId`), when that hop is shown; else (the legacy path) where `legacyParentOf`
 * guesses. A hop is put only under one already placed, so hostile ids never make a cycle. */
function chainTree(chainId: string | null, hops: Hop[], nameOf: (x: string) => string): Hop {
  const ordered = byStart(hops);
  let root = ordered.find((h) => h.depth === 1) ?? ordered.find((h) => h.depth === null);
  if (!root) {
    const shallowest = ordered.reduce((a, b) => ((b.depth ?? 0) < (a.depth ?? 0) ? b : a));
    root = placeholderRoot(chainId, shallowest, ordered, nameOf);
  }
  const placed: Hop[] = [root];
  const byAsk = new Map<string, Hop>();
  if (root.askId !== null) byAsk.set(root.askId, root);
  for (const hop of ordered) {
    if (hop === root) continue;
    const parent = hop.parentAskId !== null ? byAsk.get(hop.parentAskId) : undefined;
    (parent ?? legacyParentOf(hop, placed, root, nameOf)).children.push(hop);
    placed.push(hop);
    if (hop.askId !== null && !byAsk.has(hop.askId)) byAsk.set(hop.askId, hop);
  }
  return root;
}

/** LEGACY: where a hop without a known parent goes. Rows logged before asks carried their ids
 * (an existing `delegations.jsonl`), or whose parent is not among the rows shown, are put under
 * the hop of their requester one level up that was running when they started; failing that,
 * under the closest shallower hop. Rows with ids whose parent is shown never come here. */
function legacyParentOf(hop: Hop, placed: Hop[], root: Hop, nameOf: (x: string) => string): Hop {
  const d = hop.depth;
  if (d === null || d <= 1) return root;
  const asker = hop.requester === null ? null : nameOf(hop.requester);
  const at = hop.startedAt ?? Number.MAX_SAFE_INTEGER;
  const covers = (p: Hop) => (p.startedAt ?? 0) <= at && at <= endOf(p);
  const above = placed.filter((p) => p.depth === d - 1);
  const latest = (list: Hop[]) => (list.length ? list[list.length - 1] : null);
  return (
    latest(above.filter((p) => p.target === asker && covers(p))) ??
    latest(above.filter((p) => p.target === asker)) ??
    latest(above.filter(covers)) ??
    latest(above) ??
    latest(placed.filter((p) => p.depth !== null && p.depth < d)) ??
    root
  );
}

function placeholderRoot(
  chainId: string | null,
  shallowest: Hop,
  hops: Hop[],
  nameOf: (x: string) => string,
): Hop {
  const running = hops.some(inFlight);
  const target = shallowest.requester === null ? "?" : nameOf(shallowest.requester);
  const starts = hops.map((h) => h.startedAt).filter((s): s is number => s !== null);
  return {
    key: `root:${chainId ?? ""}`,
    askId: shallowest.depth === 2 ? shallowest.parentAskId : null, // the root its children name
    parentAskId: null,
    chainId,
    depth: 1,
    requester: null,
    target,
    source: null,
    action: "agent.message",
    startedAt: starts.length ? Math.min(...starts) : null,
    durationMs: null,
    queuedMs: null,
    turnMs: null,
    usage: null,
    state: running ? "running" : "lost",
    outcome: running ? "running" : "not shown",
    prompt: null,
    reply: null,
    row: null,
    placeholder: true,
    match: true,
    children: [],
  };
}

/** Every hop of a tree, the root first, depth first in start order. */
export function hopsOf(root: Hop): Hop[] {
  const out: Hop[] = [];
  const walk = (h: Hop) => {
    out.push(h);
    h.children.forEach(walk);
  };
  walk(root);
  return out;
}

function chainItem(chainId: string | null, root: Hop): ChainItem {
  const hops = hopsOf(root).filter((h) => !h.placeholder);
  const depths = hops.map((h) => h.depth).filter((d): d is number => d !== null);
  return {
    kind: "chain",
    chainId,
    root,
    startedAt: root.startedAt ?? Number.MAX_SAFE_INTEGER,
    asks: hops.length,
    failed: hops.filter((h) => h.state === "failed" || h.state === "lost").length,
    running: hops.filter((h) => h.state === "running").length,
    queued: hops.filter((h) => h.state === "queued").length,
    depth: depths.length ? Math.max(...depths) : null,
    usage: sumUsage(hops.map((h) => h.usage)),
  };
}

/** A message the user typed in an agent's chat: a root ask from the UI door, by no agent. */
export function isUserChat(h: Hop): boolean {
  return (
    h.source === "ui" && h.requester === null && h.action === "agent.message" && !h.placeholder
  );
}

function foldable(item: TimelineItem): item is ChainItem {
  return (
    item.kind === "chain" &&
    isUserChat(item.root) &&
    item.root.children.length === 0 &&
    !inFlight(item.root)
  );
}

/** The user's consecutive chat messages to one agent, from `GROUP_FROM` on, as one group. */
export function groupChats(items: readonly TimelineItem[]): TimelineItem[] {
  const out: TimelineItem[] = [];
  let run: ChainItem[] = [];
  const flush = () => {
    if (run.length >= GROUP_FROM) {
      const hops = run.map((i) => i.root);
      const starts = hops.map((h) => h.startedAt ?? 0);
      out.push({
        kind: "chats",
        target: run[0].root.target,
        hops,
        startedAt: Math.min(...starts),
        endedAt: Math.max(...hops.map((h) => (h.startedAt ?? 0) + (h.durationMs ?? 0))),
        failed: hops.filter((h) => h.state !== "ok").length,
        usage: sumUsage(hops.map((h) => h.usage)),
      });
    } else {
      out.push(...run);
    }
    run = [];
  };
  for (const item of items) {
    if (foldable(item) && (run.length === 0 || run[0].root.target === item.root.target)) {
      run.push(item);
      continue;
    }
    flush();
    if (foldable(item)) run.push(item);
    else out.push(item);
  }
  flush();
  return out;
}

/** The timeline: chains newest first (each a tree in start order), user chats folded. */
export function buildTimeline(
  records: readonly unknown[] | unknown,
  running: readonly RunningHop[] = [],
  opts: TimelineOptions = {},
): TimelineItem[] {
  const nameOf = opts.nameOf ?? ((x: string) => x);
  const rows = Array.isArray(records) ? (records as unknown[]).filter(isRow) : [];
  const hops = [
    ...rows.map((r, i) => loggedHop(r, i)),
    ...(Array.isArray(running)
      ? (running as unknown[]).filter(isObject).map((r, i) => runningHop(r as RunningHop, i))
      : []),
  ];
  const chains = new Map<string, Hop[]>();
  const single: Hop[] = [];
  for (const hop of hops) {
    if (hop.chainId === null) single.push(hop);
    else {
      const list = chains.get(hop.chainId);
      if (list) list.push(hop);
      else chains.set(hop.chainId, [hop]);
    }
  }
  let items: ChainItem[] = [
    ...[...chains].map(([id, list]) => chainItem(id, chainTree(id, list, nameOf))),
    ...single.map((h) => chainItem(null, h)),
  ];
  if (opts.chain) items = items.filter((i) => i.chainId === opts.chain);
  const agent = opts.agent;
  if (agent) {
    const involves = (h: Hop) =>
      !h.placeholder &&
      (h.target === agent || (h.requester !== null && nameOf(h.requester) === agent));
    items = items.filter((i) => hopsOf(i.root).some(involves));
    for (const i of items) for (const h of hopsOf(i.root)) h.match = involves(h);
  }
  // Newest first; the same start: the order the log gave (later rows first).
  const indexed = items.map((item, i) => ({ item, i }));
  indexed.sort((a, b) => b.item.startedAt - a.item.startedAt || b.i - a.i);
  return groupChats(indexed.map(({ item }) => item));
}

/** Every agent named in the timeline's rows (asked or asking), sorted: the filter's choices. */
export function agentsIn(
  records: readonly unknown[] | unknown,
  nameOf: (x: string) => string = (x) => x,
): string[] {
  const names = new Set<string>();
  for (const r of Array.isArray(records) ? (records as unknown[]).filter(isRow) : []) {
    const target = text(r.target);
    const requester = text(r.requester);
    if (target) names.add(target);
    if (requester) names.add(nameOf(requester));
  }
  return [...names].sort();
}

/** The cell showing an agent's chat: its live session's cell, else a cell bound to it (a chat
 * view first); null when no cell shows it. */
export function cellOfAgent(
  name: string,
  agents: readonly { id: string; name: string; node_id: string | null }[],
  layouts: Layouts | null,
): string | null {
  const agent = agents.find((a) => a.name === name);
  if (!agent) return null;
  if (agent.node_id) return agent.node_id;
  const bound = (layouts?.tabs ?? [])
    .flatMap((tab) => leaves(tab.root))
    .filter((l) => l.agent === agent.id);
  return (bound.find((l) => l.view === "chat") ?? bound[0])?.id ?? null;
}

// One row of the delegation timeline: an ask, who asked whom what, how it went, its depth,
// chain, cost and times (a hop in flight counts up), opened for its prompt and reply; its
// "Chat" button shows its agent's cell. Also the state and props every part of the timeline
// takes (views/delegations.tsx renders them).

import { store } from "../model/state";
import {
  cellOfAgent,
  inFlight,
  type Hop,
  type LoggedAsk,
  type RunningHop,
} from "../model/timeline";
import { count, localTime, shortChainId, usageDetail, usageText } from "../model/usage";
import { askerOf } from "../model/workstate";
import { showAgent } from "./agentcell";
import { formatMs } from "./timing";
import { classes, now } from "./reactive";

/** What the timeline shows: the view is a function of it. */
export type TimelineState = {
  records: LoggedAsk[];
  running: RunningHop[];
  agent: string | null; // the agent filter
  chain: string | null; // the chain shown alone
};

export type TimelineProps = {
  state: TimelineState;
  open: Set<string>;
  onAgent: (agent: string | null) => void;
  onChain: (chain: string | null) => void;
};

/** `<details>` whose open state outlives a refresh and a row moving in the timeline. */
export function toggled(open: Set<string>, key: string) {
  return (e: { currentTarget: HTMLDetailsElement }) => {
    if (e.currentTarget.open) open.add(key);
    else open.delete(key);
  };
}

/** One ask: who asked whom what and how it went; then depth, chain and cost; then its queue
 * wait, turn and whole time. `inGroup`: one of a folded run of chat messages. */
export function HopRow(props: TimelineProps & { hop: Hop; isRoot: boolean; inGroup?: boolean }) {
  const { hop, isRoot, inGroup = false } = props;
  const shown = props.state.chain;
  const requester = askerOf(hop.requester, (x) => store.nameOf(x));
  const running = hop.state === "running";
  const queued = hop.state === "queued";
  const chain = hop.chainId;
  const chip =
    isRoot && chain ? (
      <button
        class="chain-id"
        data-chain={chain}
        title={shown === chain ? `Chain ${chain}` : `Chain ${chain}: show only its asks`}
        onClick={(e) => {
          e.preventDefault(); // a click in the summary would open the row too
          e.stopPropagation();
          if (shown !== chain) props.onChain(chain);
        }}
      >
        {shortChainId(chain)}
      </button>
    ) : null;
  const pill = running ? (
    <span class="pill outcome running" title="Its turn runs now">
      <span class="spinner" />
      running
    </span>
  ) : queued ? (
    <span class="pill outcome queued" title={`Waiting in ${hop.target}'s queue for its turn`}>
      queued
    </span>
  ) : (
    <span
      class={classes(
        "pill outcome",
        hop.state === "ok" ? "ok" : hop.state === "lost" ? "lost" : "fail",
      )}
    >
      {hop.outcome}
    </span>
  );
  return (
    <details
      class={classes(
        "deleg",
        running && "running",
        queued && "queued",
        !hop.match && "dim",
        hop.placeholder && "placeholder",
      )}
      open={props.open.has(hop.key)}
      onToggle={toggled(props.open, hop.key)}
      data-target={hop.target}
      data-state={hop.state}
      data-source={hop.source ?? undefined}
      data-code={inFlight(hop) || hop.placeholder ? undefined : hop.outcome}
      data-chain={chain ?? undefined}
      data-depth={hop.depth !== null ? String(hop.depth) : undefined}
    >
      <summary>
        <div class="deleg-main">
          {hop.source ? (
            <span class={`badge source ${hop.source}`} title={doorTitle(hop.source)}>
              {hop.source}
            </span>
          ) : null}
          <span class="deleg-who">
            {hop.placeholder ? `… → ${hop.target}` : `${requester} → ${hop.target}`}
          </span>
          <span class="deleg-excerpt muted" title={hop.prompt ?? ""}>
            {excerpt(hop.prompt)}
          </span>
          {pill}
        </div>
        <div class="deleg-sub">
          {hop.depth !== null ? (
            <span class="badge depth" title="Depth in its chain (root = 1)">
              {`d${hop.depth}`}
            </span>
          ) : null}
          {chip}
          <span class="spacer" />
          {hop.usage ? (
            <span class="deleg-usage muted" title={usageDetail(hop.usage)}>
              {usageText(hop.usage)}
            </span>
          ) : null}
        </div>
        <div class="deleg-times">
          <Timing hop={hop} />
          <span class="spacer" />
          <Duration hop={hop} />
          {hop.placeholder || inGroup ? null : <ChatButton agent={hop.target} />}
        </div>
      </summary>
      <div class="deleg-meta muted">{when(hop)}</div>
      <div class="deleg-label">Prompt</div>
      <pre class="deleg-text">{hop.prompt ?? "—"}</pre>
      <div class="deleg-label">Reply</div>
      <pre class="deleg-text">
        {running ? "(its turn runs now)" : queued ? "(waiting for its turn)" : (hop.reply ?? "—")}
      </pre>
    </details>
  );
}

/** Queue wait and turn, when the row says how long it waited. */
function Timing({ hop }: { hop: Hop }) {
  if (hop.state === "queued") {
    return (
      <span class="deleg-timing muted" title="Accepted; the agent's turns before it come first">
        waiting for its turn
      </span>
    );
  }
  if (hop.queuedMs === null) return null;
  const parts = [`queued ${formatMs(hop.queuedMs)}`];
  if (hop.turnMs !== null) parts.push(`turn ${formatMs(hop.turnMs)}`);
  else if (hop.state === "running") parts.push("turn running");
  return (
    <span
      class="deleg-timing muted"
      title="Waiting in the agent's queue (and for it to start), then its turn"
    >
      {parts.join(" · ")}
    </span>
  );
}

/** The whole ask's time; a hop in flight counts up while it is on screen. */
function Duration({ hop }: { hop: Hop }) {
  if (inFlight(hop) && hop.startedAt !== null) {
    const title =
      hop.state === "queued"
        ? "Waiting so far (the whole ask is logged when it ends)"
        : "Its turn so far (the whole ask is logged when it ends)";
    return (
      <span class="muted deleg-duration" data-since={String(hop.startedAt)} title={title}>
        {formatMs(Math.max(0, now() - hop.startedAt))}
      </span>
    );
  }
  const ms = hop.state === "lost" ? null : hop.durationMs;
  return (
    <span class="muted deleg-duration" title="The whole ask, from its door to its answer">
      {ms === null ? "—" : `${formatMs(ms)}${hop.queuedMs !== null ? " in all" : ""}`}
    </span>
  );
}

function when(hop: Hop): string {
  const at = Date.now();
  if (hop.placeholder) {
    return hop.state === "running"
      ? "The ask that started this chain runs now."
      : "The ask that started this chain is older than the asks shown.";
  }
  if (hop.state === "running") {
    return hop.startedAt !== null
      ? `turn started ${localTime(hop.startedAt, at)}`
      : "its turn runs now";
  }
  if (hop.state === "queued") {
    const asked = hop.startedAt !== null ? `asked ${localTime(hop.startedAt, at)}; ` : "";
    return `${asked}waiting in ${hop.target}'s queue for its turn`;
  }
  const r = hop.row;
  if (hop.state === "lost") {
    const started = count(r?.started_at_ms);
    return `started ${started !== null ? localTime(started, at) : "at an unknown time"}; in flight when IdeA last closed`;
  }
  const ended = count(r?.at_ms);
  return `${ended !== null ? new Date(ended).toLocaleString() : "unknown time"} · ${hop.action}`;
}

/** "Chat": show the cell with the agent's chat; "Open chat" makes one when no cell shows it. */
export function ChatButton({ agent }: { agent: string }) {
  if (!store.agents.some((a) => a.name === agent)) return null; // gone since it was asked
  const cell = cellOfAgent(agent, store.agents, store.layouts);
  return (
    <button
      class="btn small hop-chat"
      data-agent={agent}
      data-leaf={cell ?? undefined}
      title={cell ? `Show ${agent}'s cell` : `Open a cell with ${agent}'s chat`}
      onClick={(e) => {
        e.preventDefault();
        e.stopPropagation();
        void showAgent(agent);
      }}
    >
      {cell ? "Chat" : "Open chat"}
    </button>
  );
}

/** The first line of a prompt, for the row's one line; the whole prompt is in its details. */
function excerpt(prompt: string | null): string {
  if (!prompt) return "";
  return prompt.trimStart().split("\n", 1)[0].slice(0, 200);
}

/** "14:02–14:10", or one time when both read the same. */
export function span(fromMs: number, toMs: number, nowMs: number): string {
  const from = localTime(fromMs, nowMs);
  const to = localTime(toMs, nowMs);
  return from === to ? from : `${from}–${to}`;
}

function doorTitle(source: string): string {
  if (source === "ui") return "Asked from IdeA's window (a chat message)";
  if (source === "mcp") return "Asked by an agent through IdeA's MCP tools";
  if (source === "file") return "Asked by a request file in .ideai/orchestrator/";
  return source;
}

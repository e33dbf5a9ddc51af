// The delegation timeline: each root ask with the asks made while serving it nested under the
// one that made them (who asked whom, the door, queue wait and turn, tokens and cost, outcome),
// the turns running now shown running and the asks waiting in a queue shown queued, the user's
// runs of chat messages to one agent folded, a filter by agent; a hop's "Chat" button shows its
// agent's chat cell. Clicking a chain id shows that chain alone, with what it added up to.
// Rendered by Preact from the state below: a refresh patches the DOM in place, so the agent
// filter stays open and the rows opened stay open while the timeline refreshes under them.

import { signal, type Signal } from "@preact/signals";
import { render } from "preact";

import { api } from "../model/api";
import { chainTotals, MAX_INDENT } from "../model/chains";
import { store } from "../model/state";
import {
  agentsIn,
  buildTimeline,
  cellOfAgent,
  inFlight,
  runningFromWorkState,
  runningKey,
  type ChainItem,
  type ChatGroup,
  type Hop,
  type LoggedAsk,
  type RunningHop,
  type TimelineItem,
} from "../model/timeline";
import { count, localTime, shortChainId, usageDetail, usageText } from "../model/usage";
import { askerOf } from "../model/workstate";
import { showAgent } from "./agentcell";
import { debounce, formatMs } from "./dom";
import { classes, now, Option, rootElement, useStore } from "./reactive";

const RECENT = 100; // the whole timeline shows this many asks
const CHAIN_SCAN = 1000; // one chain is looked for among this many
const PROMPT_KEPT_MS = 10_000; // a running turn's prompt outlives a refresh that missed its start

/** What the timeline shows: the view is a function of it. */
type TimelineState = {
  records: LoggedAsk[];
  running: RunningHop[];
  agent: string | null; // the agent filter
  chain: string | null; // the chain shown alone
};

export class DelegationLog {
  readonly el = rootElement("delegations");
  private readonly state = signal<TimelineState>({
    records: [],
    running: [],
    agent: null,
    chain: null,
  });
  private readonly open = new Set<string>(); // the rows the user opened, by hop key
  private prompts = new Map<string, string>(); // what running turns were given (AgentTurnStarted)
  private promptSeen = new Map<string, number>(); // when each came
  private loads = 0;

  constructor() {
    const again = debounce(() => {
      if (this.el.isConnected) void this.refresh();
    }, 80);
    api.on("AgentTurnStarted", (d) => {
      const key = runningKey(d.agent_name, d.chain_id, d.depth);
      this.prompts.set(key, d.prompt);
      this.promptSeen.set(key, Date.now());
      again();
    });
    render(
      <Timeline
        log={this.state}
        open={this.open}
        onAgent={(agent) => this.set({ agent })}
        onChain={(chain) => this.showChain(chain)}
      />,
      this.el,
    );
  }

  /** Show only chain `chainId` (null: the whole timeline). */
  showChain(chainId: string | null): void {
    this.set({ chain: chainId });
    void this.refresh();
  }

  get shownChain(): string | null {
    return this.state.value.chain;
  }

  /** Which chain the next refresh shows (null: the whole timeline). */
  set shownChain(chainId: string | null) {
    this.set({ chain: chainId });
  }

  async refresh(): Promise<void> {
    const load = ++this.loads;
    try {
      const limit = this.state.value.chain === null ? RECENT : CHAIN_SCAN;
      // The log first, then the board: an ask that ends between the two is in neither for a
      // moment (its end refreshes again), never in both.
      const records = await api.call("delegations.recent", { limit });
      const board = await api.call("workstate.get");
      if (load !== this.loads) return; // a later refresh is on its way
      const running = runningFromWorkState(board?.agents, this.prompts);
      const live = new Set(running.map((r) => runningKey(r.target, r.chain_id, r.depth)));
      // A turn's prompt goes with its turn; one that came while this refresh was on its way stays.
      const at = Date.now();
      for (const key of [...this.prompts.keys()]) {
        if (!live.has(key) && at - (this.promptSeen.get(key) ?? 0) > PROMPT_KEPT_MS) {
          this.prompts.delete(key);
          this.promptSeen.delete(key);
        }
      }
      this.set({ records: Array.isArray(records) ? records : [], running });
    } catch {
      /* reconnecting */
    }
  }

  private set(change: Partial<TimelineState>): void {
    this.state.value = { ...this.state.value, ...change };
  }
}

type TimelineProps = {
  state: TimelineState;
  open: Set<string>;
  onAgent: (agent: string | null) => void;
  onChain: (chain: string | null) => void;
};

/** The whole timeline, rendered again when its state or the store changes. */
function Timeline({ log, ...rest }: Omit<TimelineProps, "state"> & { log: Signal<TimelineState> }) {
  const props = { ...rest, state: log.value };
  const { records, running, agent, chain } = props.state;
  useStore();
  const nameOf = (x: string) => store.nameOf(x);
  const items = buildTimeline(records, running, { agent, chain, nameOf });
  return (
    <>
      <Toolbar {...props} items={items} />
      {chain !== null ? <ChainHead {...props} chain={chain} items={items} /> : null}
      {items.length ? (
        items.map((item) =>
          item.kind === "chats" ? (
            <Chats key={`chats:${item.hops[item.hops.length - 1].key}`} {...props} group={item} />
          ) : (
            <Chain key={`chain:${item.root.key}`} {...props} item={item} />
          ),
        )
      ) : (
        <p class="muted timeline-empty">{emptyText(agent, chain)}</p>
      )}
    </>
  );
}

function emptyText(agent: string | null, chain: string | null): string {
  if (agent) return `No ask to or from ${agent} among the last ${RECENT}.`;
  if (chain) return "No ask of this chain is logged yet: an ask is logged when it ends.";
  return "No delegations yet.";
}

/** The agent filter (patched in place: a refresh never closes it while the user picks), and
 * how many hops run now. */
function Toolbar(props: TimelineProps & { items: TimelineItem[] }) {
  const { records, agent } = props.state;
  const names = new Set([
    ...store.agents.map((a) => a.name),
    ...agentsIn(records, (x) => store.nameOf(x)),
  ]);
  if (agent) names.add(agent);
  const wanted = ["", ...[...names].sort()];
  const running = props.items.reduce((sum, i) => sum + (i.kind === "chain" ? i.running : 0), 0);
  const queued = props.items.reduce((sum, i) => sum + (i.kind === "chain" ? i.queued : 0), 0);
  const note = [running ? `${running} running` : null, queued ? `${queued} queued` : null].filter(
    Boolean,
  );
  return (
    <div class="timeline-bar">
      <label class="timeline-filter">
        Agent
        <select
          class="timeline-agent"
          title="Show only the chains this agent asks or is asked in"
          value={agent ?? ""}
          onChange={(e) => props.onAgent(e.currentTarget.value || null)}
        >
          {wanted.map((n) => (
            <Option key={n} value={n}>
              {n || "All agents"}
            </Option>
          ))}
        </select>
      </label>
      <span class="spacer" />
      <span class="timeline-running" hidden={note.length === 0}>
        {note.length ? (
          <>
            <span class="spinner" />
            {note.join(" · ")}
          </>
        ) : null}
      </span>
    </div>
  );
}

/** The chain filter's heading: the chain, its totals, and the way back. */
function ChainHead(props: TimelineProps & { chain: string; items: TimelineItem[] }) {
  const { chain } = props;
  const item = props.items.find((i): i is ChainItem => i.kind === "chain" && i.chainId === chain);
  const logged = chainTotals(props.state.records, chain);
  const asks = item?.asks ?? logged.asks;
  const failed = item?.failed ?? logged.failed;
  const depth = item?.depth ?? logged.depth;
  const usage = item?.usage ?? logged.usage;
  const facts = [
    `${asks} ask${asks === 1 ? "" : "s"}${failed ? ` (${failed} failed)` : ""}`,
    item?.running ? `${item.running} running` : null,
    item?.queued ? `${item.queued} queued` : null,
    depth !== null ? `depth ${depth}` : null,
    usageText(usage),
  ].filter(Boolean);
  return (
    <div class="chain-filter" data-chain={chain}>
      <div class="chain-filter-head">
        <strong title={chain}>{`Chain ${shortChainId(chain)}`}</strong>
        <span class="spacer" />
        <button class="btn small chain-clear" onClick={() => props.onChain(null)}>
          Show all
        </button>
      </div>
      <div class="chain-totals" title={usageDetail(usage)}>
        {facts.join(" · ")}
      </div>
      {logged.agents.length ? (
        <div class="muted">{`agents: ${logged.agents.join(", ")}`}</div>
      ) : null}
    </div>
  );
}

function Chain(props: TimelineProps & { item: ChainItem }) {
  const { item } = props;
  const nested = item.asks > 1 || item.root.placeholder;
  const facts = [
    `${item.asks} ask${item.asks === 1 ? "" : "s"}`,
    item.depth !== null ? `depth ${item.depth}` : null,
    item.usage ? usageText(item.usage) : null,
    item.failed ? `${item.failed} failed` : null,
    item.running ? `${item.running} running` : null,
    item.queued ? `${item.queued} queued` : null,
  ].filter(Boolean);
  return (
    <div
      class="tl-chain"
      data-chain={item.chainId ?? undefined}
      data-running={String(item.running)}
    >
      <Node {...props} hop={item.root} level={0} />
      {nested && props.state.chain === null ? (
        <div class="tl-chain-totals muted" title={usageDetail(item.usage)}>
          {`Chain: ${facts.join(" · ")}`}
        </div>
      ) : null}
    </div>
  );
}

function Node(props: TimelineProps & { hop: Hop; level: number }) {
  const { hop, level } = props;
  return (
    <div class="tl-node" data-depth={hop.depth !== null ? String(hop.depth) : undefined}>
      <HopRow {...props} hop={hop} isRoot={level === 0} />
      {hop.children.length ? (
        <div class={classes("tl-children", level + 1 >= MAX_INDENT && "capped")}>
          {hop.children.map((c) => (
            <Node key={c.key} {...props} hop={c} level={level + 1} />
          ))}
        </div>
      ) : null}
    </div>
  );
}

/** `<details>` whose open state outlives a refresh and a row moving in the timeline. */
function toggled(open: Set<string>, key: string) {
  return (e: { currentTarget: HTMLDetailsElement }) => {
    if (e.currentTarget.open) open.add(key);
    else open.delete(key);
  };
}

/** A user's run of chat messages to one agent: one line, its messages under it. */
function Chats(props: TimelineProps & { group: ChatGroup }) {
  const { group } = props;
  const oldest = group.hops[group.hops.length - 1];
  const key = `chats:${oldest.key}`;
  return (
    <details
      class="tl-chats"
      open={props.open.has(key)}
      onToggle={toggled(props.open, key)}
      data-target={group.target}
      data-count={String(group.hops.length)}
    >
      <summary>
        <div class="deleg-main">
          <span class="badge source ui">chat</span>
          <span class="tl-chats-who">{`you → ${group.target}`}</span>
          <span class="muted tl-chats-count">{`${group.hops.length} messages`}</span>
          <span class="spacer" />
          {group.failed ? (
            <span class="pill outcome fail">{`${group.failed} failed`}</span>
          ) : (
            <span class="pill outcome ok">ok</span>
          )}
        </div>
        <div class="deleg-sub">
          <span class="muted">{span(group.startedAt, group.endedAt, Date.now())}</span>
          <span class="spacer" />
          {group.usage ? (
            <span class="deleg-usage muted" title={usageDetail(group.usage)}>
              {usageText(group.usage)}
            </span>
          ) : null}
        </div>
        <div class="deleg-times">
          <span class="muted">chat messages</span>
          <span class="spacer" />
          <ChatButton agent={group.target} />
        </div>
      </summary>
      <div class="tl-children">
        {group.hops.map((hop) => (
          <HopRow key={hop.key} {...props} hop={hop} isRoot inGroup />
        ))}
      </div>
    </details>
  );
}

/** One ask: who asked whom what and how it went; then depth, chain and cost; then its queue
 * wait, turn and whole time. `inGroup`: one of a folded run of chat messages. */
function HopRow(props: TimelineProps & { hop: Hop; isRoot: boolean; inGroup?: boolean }) {
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
function ChatButton({ agent }: { agent: string }) {
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
function span(fromMs: number, toMs: number, nowMs: number): string {
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

// The delegation timeline: each root ask with the asks made while serving it nested under the
// one that made them (who asked whom, the door, queue wait and turn, tokens and cost, outcome),
// the turns running now shown running and the asks waiting in a queue shown queued, the user's
// runs of chat messages to one agent folded, a filter by agent; a hop's "Chat" button shows its
// agent's chat cell. Clicking a chain id shows that chain alone, with what it added up to.
// Rendered by Preact from the state below: a refresh patches the DOM in place, so the agent
// filter stays open and the rows opened stay open while the timeline refreshes under them.
// The tree is views/timelinetree.tsx, its rows views/timelinerow.tsx.

import { signal, type Signal } from "@preact/signals";
import { render } from "preact";

import { api } from "../model/api";
import { chainTotals } from "../model/chains";
import { store } from "../model/state";
import {
  agentsIn,
  buildTimeline,
  runningFromWorkState,
  runningKey,
  type ChainItem,
  type TimelineItem,
} from "../model/timeline";
import { shortChainId, usageDetail, usageText } from "../model/usage";
import { debounce } from "./timing";
import { Option, rootElement, useStore } from "./reactive";
import { type TimelineProps, type TimelineState } from "./timelinerow";
import { Chain, Chats } from "./timelinetree";

const RECENT = 100; // the whole timeline shows this many asks
const CHAIN_SCAN = 1000; // one chain is looked for among this many
const PROMPT_KEPT_MS = 10_000; // a running turn's prompt outlives a refresh that missed its start

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

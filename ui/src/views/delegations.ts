// The delegation timeline: each root ask with the asks made while serving it nested under the
// one that made them (who asked whom, the door, queue wait and turn, tokens and cost, outcome),
// the turns running now shown running and the asks waiting in a queue shown queued, the user's runs of chat messages to one agent folded,
// a filter by agent; a hop's "Chat" button shows its agent's chat cell. Clicking a chain id
// shows that chain alone, with what it added up to.

import { api } from "../model/api";
import { chainTotals, MAX_INDENT } from "../model/chains";
import { store } from "../model/state";
import {
  agentsIn, buildTimeline, cellOfAgent, inFlight, runningFromBoard, runningKey, type ChainItem, type ChatGroup,
  type Hop, type LoggedAsk, type RunningHop, type TimelineItem,
} from "../model/timeline";
import { count, localTime, shortChainId, usageDetail, usageText } from "../model/usage";
import { askerOf } from "../model/workstate";
import { showAgent } from "./agentcell";
import { clear, debounce, formatMs, h } from "./dom";

const RECENT = 100; // the whole timeline shows this many asks
const CHAIN_SCAN = 1000; // one chain is looked for among this many
const TICK_MS = 1000; // running turns and queued asks count up this often
const PROMPT_KEPT_MS = 10_000; // a running turn's prompt outlives a refresh that missed its start

export class DelegationLog {
  readonly el = h("div.delegations");
  private open = new Set<string>();
  private chain: string | null = null;
  private agent: string | null = null;
  private records: LoggedAsk[] = [];
  private running: RunningHop[] = [];
  private prompts = new Map<string, string>(); // what running turns were given (AgentTurnStarted)
  private promptSeen = new Map<string, number>(); // when each came
  private loads = 0;
  private readonly agentSelect = h("select.timeline-agent", {
    title: "Show only the chains this agent asks or is asked in",
    onchange: () => {
      this.agent = this.agentSelect.value || null;
      this.render();
    },
  });
  private readonly runningNote = h("span.timeline-running", { hidden: true });
  private readonly bar = h(
    "div.timeline-bar",
    {},
    h("label.timeline-filter", {}, "Agent", this.agentSelect),
    h("span.spacer"),
    this.runningNote,
  );

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
    setInterval(() => this.tick(), TICK_MS);
  }

  /** Show only chain `chainId` (null: the whole timeline). */
  showChain(chainId: string | null): void {
    this.chain = chainId;
    void this.refresh();
  }

  get shownChain(): string | null {
    return this.chain;
  }

  /** Which chain the next refresh shows (null: the whole timeline). */
  set shownChain(chainId: string | null) {
    this.chain = chainId;
  }

  async refresh(): Promise<void> {
    const load = ++this.loads;
    try {
      const limit = this.chain === null ? RECENT : CHAIN_SCAN;
      // The log first, then the board: an ask that ends between the two is in neither for a
      // moment (its end refreshes again), never in both.
      const records = await api.call("delegations.recent", { limit });
      const board = await api.call("workstate.get");
      if (load !== this.loads) return; // a later refresh is on its way
      this.records = Array.isArray(records) ? records : [];
      this.running = runningFromBoard(board?.agents, this.prompts);
      const live = new Set(this.running.map((r) => runningKey(r.target, r.chain_id, r.depth)));
      // A turn's prompt goes with its turn; one that came while this refresh was on its way stays.
      const now = Date.now();
      for (const key of [...this.prompts.keys()]) {
        if (!live.has(key) && now - (this.promptSeen.get(key) ?? 0) > PROMPT_KEPT_MS) {
          this.prompts.delete(key);
          this.promptSeen.delete(key);
        }
      }
      this.render();
    } catch {
      /* reconnecting */
    }
  }

  private render(): void {
    const nameOf = (x: string) => store.nameOf(x);
    const items = buildTimeline(this.records, this.running, { agent: this.agent, chain: this.chain, nameOf });
    const head = this.chain === null ? null : this.chainHead(this.chain, items);
    const body = items.length
      ? items.map((item) => (item.kind === "chats" ? this.chats(item) : this.chainEl(item)))
      : [h("p.muted.timeline-empty", {}, this.emptyText())];
    clear(this.el, this.toolbar(items), head, ...body);
  }

  private emptyText(): string {
    if (this.agent) return `No ask to or from ${this.agent} among the last ${RECENT}.`;
    if (this.chain) return "No ask of this chain is logged yet: an ask is logged when it ends.";
    return "No delegations yet.";
  }

  /** The agent filter (one element for the view's life: a refresh never closes it while the
   * user picks), and how many hops run now. */
  private toolbar(items: TimelineItem[]): HTMLElement {
    const names = new Set([...store.agents.map((a) => a.name), ...agentsIn(this.records, (x) => store.nameOf(x))]);
    if (this.agent) names.add(this.agent);
    const wanted = ["", ...[...names].sort()];
    const select = this.agentSelect;
    const have = [...select.options].map((o) => o.value);
    if (have.join("\n") !== wanted.join("\n")) {
      clear(select, ...wanted.map((n) => h("option", { value: n }, n || "All agents")));
    }
    select.value = this.agent ?? "";
    const running = items.reduce((sum, i) => sum + (i.kind === "chain" ? i.running : 0), 0);
    const queued = items.reduce((sum, i) => sum + (i.kind === "chain" ? i.queued : 0), 0);
    const note = [running ? `${running} running` : null, queued ? `${queued} queued` : null].filter(Boolean);
    clear(this.runningNote, ...(note.length ? [h("span.spinner"), note.join(" · ")] : []));
    this.runningNote.hidden = note.length === 0;
    return this.bar;
  }

  /** The chain filter's heading: the chain, its totals, and the way back. */
  private chainHead(chain: string, items: TimelineItem[]): HTMLElement {
    const item = items.find((i): i is ChainItem => i.kind === "chain" && i.chainId === chain);
    const logged = chainTotals(this.records, chain);
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
    return h(
      "div.chain-filter",
      { dataset: { chain } },
      h(
        "div.chain-filter-head",
        {},
        h("strong", { title: chain }, `Chain ${shortChainId(chain)}`),
        h("span.spacer"),
        h("button.btn.small.chain-clear", { onclick: () => this.showChain(null) }, "Show all"),
      ),
      h("div.chain-totals", { title: usageDetail(usage) }, facts.join(" · ")),
      logged.agents.length ? h("div.muted", {}, `agents: ${logged.agents.join(", ")}`) : null,
    );
  }

  private chainEl(item: ChainItem): HTMLElement {
    const nested = item.asks > 1 || item.root.placeholder;
    const facts = [
      `${item.asks} ask${item.asks === 1 ? "" : "s"}`,
      item.depth !== null ? `depth ${item.depth}` : null,
      item.usage ? usageText(item.usage) : null,
      item.failed ? `${item.failed} failed` : null,
      item.running ? `${item.running} running` : null,
      item.queued ? `${item.queued} queued` : null,
    ].filter(Boolean);
    return h(
      "div.tl-chain",
      { dataset: { ...(item.chainId ? { chain: item.chainId } : {}), running: String(item.running) } },
      this.node(item.root, 0),
      nested && this.chain === null
        ? h("div.tl-chain-totals.muted", { title: usageDetail(item.usage) }, `Chain: ${facts.join(" · ")}`)
        : null,
    );
  }

  private node(hop: Hop, level: number): HTMLElement {
    return h(
      "div.tl-node",
      { dataset: hop.depth !== null ? { depth: String(hop.depth) } : {} },
      this.hop(hop, level === 0),
      hop.children.length
        ? h(
            "div.tl-children",
            { class: level + 1 >= MAX_INDENT ? "capped" : "" },
            ...hop.children.map((c) => this.node(c, level + 1)),
          )
        : null,
    );
  }

  /** A user's run of chat messages to one agent: one line, its messages under it. */
  private chats(group: ChatGroup): HTMLElement {
    const oldest = group.hops[group.hops.length - 1];
    const key = `chats:${oldest.key}`;
    const now = Date.now();
    const pill = group.failed
      ? h("span.pill.outcome.fail", {}, `${group.failed} failed`)
      : h("span.pill.outcome.ok", {}, "ok");
    const el = h(
      "details.tl-chats",
      { open: this.open.has(key), dataset: { target: group.target, count: String(group.hops.length) } },
      h(
        "summary",
        {},
        h(
          "div.deleg-main",
          {},
          h("span.badge.source.ui", {}, "chat"),
          h("span.tl-chats-who", {}, `you → ${group.target}`),
          h("span.muted.tl-chats-count", {}, `${group.hops.length} messages`),
          h("span.spacer"),
          pill,
        ),
        h(
          "div.deleg-sub",
          {},
          h("span.muted", {}, span(group.startedAt, group.endedAt, now)),
          h("span.spacer"),
          group.usage
            ? h("span.deleg-usage.muted", { title: usageDetail(group.usage) }, usageText(group.usage))
            : null,
        ),
        h("div.deleg-times", {}, h("span.muted", {}, "chat messages"), h("span.spacer"), this.chatButton(group.target)),
      ),
      h("div.tl-children", {}, ...group.hops.map((hop) => this.hop(hop, true, true))),
    );
    el.addEventListener("toggle", () => (el.open ? this.open.add(key) : this.open.delete(key)));
    return el;
  }

  /** One ask: who asked whom what and how it went; then depth, chain and cost; then its queue
   * wait, turn and whole time. `inGroup`: one of a folded run of chat messages. */
  private hop(hop: Hop, isRoot: boolean, inGroup = false): HTMLElement {
    const requester = askerOf(hop.requester, (x) => store.nameOf(x));
    const running = hop.state === "running";
    const queued = hop.state === "queued";
    const chain = hop.chainId;
    const chip =
      isRoot && chain
        ? h(
            "button.chain-id",
            {
              dataset: { chain },
              title: this.chain === chain ? `Chain ${chain}` : `Chain ${chain}: show only its asks`,
              onclick: (e: Event) => {
                e.preventDefault(); // a click in the summary would open the row too
                e.stopPropagation();
                if (this.chain !== chain) this.showChain(chain);
              },
            },
            shortChainId(chain),
          )
        : null;
    const pill = running
      ? h("span.pill.outcome.running", { title: "Its turn runs now" }, h("span.spinner"), "running")
      : queued
        ? h("span.pill.outcome.queued", { title: `Waiting in ${hop.target}'s queue for its turn` }, "queued")
        : h(
          "span.pill.outcome",
          { class: hop.state === "ok" ? "ok" : hop.state === "lost" ? "lost" : "fail" },
          hop.outcome,
        );
    const details = h(
      "details.deleg",
      {
        open: this.open.has(hop.key),
        class: [running ? "running" : "", queued ? "queued" : "", hop.match ? "" : "dim", hop.placeholder ? "placeholder" : ""]
          .filter(Boolean)
          .join(" "),
        dataset: {
          target: hop.target,
          state: hop.state,
          ...(hop.source ? { source: hop.source } : {}),
          ...(inFlight(hop) || hop.placeholder ? {} : { code: hop.outcome }),
          ...(chain ? { chain } : {}),
          ...(hop.depth !== null ? { depth: String(hop.depth) } : {}),
        },
      },
      h(
        "summary",
        {},
        h(
          "div.deleg-main",
          {},
          hop.source ? h("span.badge.source", { class: hop.source, title: doorTitle(hop.source) }, hop.source) : null,
          h("span.deleg-who", {}, hop.placeholder ? `… → ${hop.target}` : `${requester} → ${hop.target}`),
          h("span.deleg-excerpt.muted", { title: hop.prompt ?? "" }, excerpt(hop.prompt)),
          pill,
        ),
        h(
          "div.deleg-sub",
          {},
          hop.depth !== null ? h("span.badge.depth", { title: "Depth in its chain (root = 1)" }, `d${hop.depth}`) : null,
          chip,
          h("span.spacer"),
          hop.usage ? h("span.deleg-usage.muted", { title: usageDetail(hop.usage) }, usageText(hop.usage)) : null,
        ),
        h(
          "div.deleg-times",
          {},
          this.timing(hop),
          h("span.spacer"),
          this.duration(hop),
          hop.placeholder || inGroup ? null : this.chatButton(hop.target),
        ),
      ),
      h("div.deleg-meta.muted", {}, this.when(hop)),
      h("div.deleg-label", {}, "Prompt"),
      h("pre.deleg-text", {}, hop.prompt ?? "—"),
      h("div.deleg-label", {}, "Reply"),
      h("pre.deleg-text", {}, running ? "(its turn runs now)" : queued ? "(waiting for its turn)" : (hop.reply ?? "—")),
    );
    details.addEventListener("toggle", () => {
      if (details.open) this.open.add(hop.key);
      else this.open.delete(hop.key);
    });
    return details;
  }

  /** Queue wait and turn, when the row says how long it waited. */
  private timing(hop: Hop): HTMLElement | null {
    if (hop.state === "queued") {
      return h("span.deleg-timing.muted", { title: "Accepted; the agent's turns before it come first" }, "waiting for its turn");
    }
    if (hop.queuedMs === null) return null;
    const parts = [`queued ${formatMs(hop.queuedMs)}`];
    if (hop.turnMs !== null) parts.push(`turn ${formatMs(hop.turnMs)}`);
    else if (hop.state === "running") parts.push("turn running");
    return h(
      "span.deleg-timing.muted",
      { title: "Waiting in the agent's queue (and for it to start), then its turn" },
      parts.join(" · "),
    );
  }

  private duration(hop: Hop): HTMLElement {
    if (inFlight(hop) && hop.startedAt !== null) {
      const title =
        hop.state === "queued"
          ? "Waiting so far (the whole ask is logged when it ends)"
          : "Its turn so far (the whole ask is logged when it ends)";
      return h(
        "span.muted.deleg-duration",
        { dataset: { since: String(hop.startedAt) }, title },
        formatMs(Math.max(0, Date.now() - hop.startedAt)),
      );
    }
    const ms = hop.state === "lost" ? null : hop.durationMs;
    return h(
      "span.muted.deleg-duration",
      { title: "The whole ask, from its door to its answer" },
      ms === null ? "—" : `${formatMs(ms)}${hop.queuedMs !== null ? " in all" : ""}`,
    );
  }

  private when(hop: Hop): string {
    const now = Date.now();
    if (hop.placeholder) {
      return hop.state === "running"
        ? "The ask that started this chain runs now."
        : "The ask that started this chain is older than the asks shown.";
    }
    if (hop.state === "running") {
      return hop.startedAt !== null ? `turn started ${localTime(hop.startedAt, now)}` : "its turn runs now";
    }
    if (hop.state === "queued") {
      const asked = hop.startedAt !== null ? `asked ${localTime(hop.startedAt, now)}; ` : "";
      return `${asked}waiting in ${hop.target}'s queue for its turn`;
    }
    const r = hop.row;
    if (hop.state === "lost") {
      const started = count(r?.started_at_ms);
      return `started ${started !== null ? localTime(started, now) : "at an unknown time"}; in flight when IdeA last closed`;
    }
    const at = count(r?.at_ms);
    return `${at !== null ? new Date(at).toLocaleString() : "unknown time"} · ${hop.action}`;
  }

  /** "Chat": show the cell with the agent's chat; "Open chat" makes one when no cell shows it. */
  private chatButton(agent: string): HTMLElement | null {
    if (!store.agents.some((a) => a.name === agent)) return null; // gone since it was asked
    const cell = cellOfAgent(agent, store.agents, store.layouts);
    return h(
      "button.btn.small.hop-chat",
      {
        dataset: { agent, ...(cell ? { leaf: cell } : {}) },
        title: cell ? `Show ${agent}'s cell` : `Open a cell with ${agent}'s chat`,
        onclick: (e: Event) => {
          e.preventDefault();
          e.stopPropagation();
          void showAgent(agent);
        },
      },
      cell ? "Chat" : "Open chat",
    );
  }

  /** Running turns count up while they are on screen. */
  private tick(): void {
    if (!this.el.isConnected) return;
    const now = Date.now();
    for (const el of this.el.querySelectorAll<HTMLElement>(".deleg-duration[data-since]")) {
      const since = Number(el.dataset.since);
      if (Number.isFinite(since)) el.textContent = formatMs(Math.max(0, now - since));
    }
  }
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

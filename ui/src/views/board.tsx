// The work-state board: the chains of asks in flight, then each agent's status, intent, ticket,
// progress, queue, the ask it serves, its rate limit and what its turns cost. Rendered by
// Preact from the last `workstate.get`: an event patches the rows in place.

import { signal } from "@preact/signals";
import { render } from "preact";

import { api } from "../model/api";
import { store } from "../model/state";
import type { Chain, WorkRow, WorkState } from "../model/types";
import { count, relativeTime, shortChainId, usageDetail, usageText } from "../model/usage";
import {
  chainsByStart,
  chainText,
  elapsedText,
  lastDelegationText,
  rateLimitText,
  servingText,
  statusOf,
} from "../model/workstate";
import { goToCell } from "./banner";
import { HostPill } from "./hostpill";
import { now, rootElement, useStore } from "./reactive";

/** Opens the delegation log on one chain. */
export type ShowChain = (chainId: string) => void;

const SUMMARY_EVERY_MS = 3000;
const CLOCK_EVERY_MS = 30_000;

export class WorkStatePanel {
  readonly el = rootElement("board");
  private readonly last = signal<WorkState | null>(null);
  private readonly clock = signal(Date.now()); // reset times and deadlines read "in N min"
  // A worktree agent's files changed and commits ahead: asked at most every few seconds per
  // agent, shown from the last answer meanwhile.
  private readonly summaries = signal(new Map<string, { at: number; text: string }>());

  constructor(private readonly showChain: ShowChain) {
    // Keep "in N min" true while nothing else happens.
    setInterval(() => {
      if (this.el.isConnected) this.clock.value = Date.now();
    }, CLOCK_EVERY_MS);
    // An agent's files change without any event: while the board is shown, ask again.
    setInterval(() => {
      if (this.el.isConnected) this.worktrees();
    }, SUMMARY_EVERY_MS);
    render(<WorkStateView board={this} />, this.el);
  }

  async refresh(): Promise<void> {
    try {
      this.last.value = await api.call("workstate.get");
      this.clock.value = Date.now();
      this.worktrees();
    } catch {
      /* reconnecting: the next refresh fills it */
    }
  }

  /** What the board shows: the last state read and the time it is read at. */
  get shown(): { state: WorkState | null; at: number; summaries: Map<string, string> } {
    const summaries = new Map([...this.summaries.value].map(([k, v]) => [k, v.text]));
    void this.clock.value; // read: the board renders again when the clock moves
    return { state: this.last.value, at: Date.now(), summaries };
  }

  chain(chainId: string): void {
    this.showChain(chainId);
  }

  private worktrees(): void {
    const rows = this.last.value?.agents;
    for (const r of Array.isArray(rows) ? rows : []) {
      if (store.agents.find((a) => a.name === r.name)?.workspace === "worktree") {
        void this.worktree(r.name);
      }
    }
  }

  private async worktree(name: string): Promise<void> {
    const known = this.summaries.value.get(name);
    if (known && Date.now() - known.at <= SUMMARY_EVERY_MS) return;
    try {
      const s = await api.call("workspace.summary", { name });
      const text = `worktree: ${s.files} file(s) changed, ${s.ahead} commit(s) ahead`;
      this.summaries.value = new Map(this.summaries.value).set(name, { at: Date.now(), text });
    } catch {
      /* not a worktree any more, or reconnecting */
    }
  }
}

function WorkStateView({ board }: { board: WorkStatePanel }) {
  useStore();
  const { state, at, summaries } = board.shown;
  const rows = Array.isArray(state?.agents) ? state.agents : [];
  const chains = chainsByStart(state?.chains);
  const onChain = (id: string) => board.chain(id);
  return (
    <>
      {chains.length ? <Chains chains={chains} at={at} onChain={onChain} /> : null}
      {rows.length ? (
        rows.map((r) => (
          <Row key={r.name} row={r} at={at} worktree={summaries.get(r.name)} onChain={onChain} />
        ))
      ) : (
        <p class="muted">No agents yet.</p>
      )}
    </>
  );
}

/** "Chains in flight": one card per chain, its id opening the delegation log on it. */
function Chains(props: { chains: Chain[]; at: number; onChain: ShowChain }) {
  const { chains, at } = props;
  const nameOf = (x: string) => store.nameOf(x);
  return (
    <section class="chains" data-count={String(chains.length)}>
      <div class="section-title">{`Chains in flight (${chains.length})`}</div>
      {chains.map((c) => {
        const { who, agents } = chainText(c, nameOf);
        const depth = count(c.depth);
        const started = count(c.started_at_ms);
        return (
          <div key={c.chain_id} class="chain" data-chain={c.chain_id}>
            <div class="chain-head">
              <ChainButton chainId={c.chain_id} onChain={props.onChain} />
              <span class="chain-who" title={who}>
                {who}
              </span>
              <span class="spacer" />
              {depth !== null ? (
                <span class="badge depth" title="Deepest ask so far (root = 1)">
                  {`depth ${depth}`}
                </span>
              ) : null}
            </div>
            <div class="board-line chain-facts muted">
              <span class="chain-usage" title={usageDetail(c.usage)}>
                {usageText(c.usage)}
              </span>
              {agents.length ? ` · also ${agents.join(", ")}` : ""}
              {started !== null ? ` · started ${relativeTime(started, at)}` : ""}
            </div>
          </div>
        );
      })}
    </section>
  );
}

function ChainButton({ chainId, onChain }: { chainId: string; onChain: ShowChain }) {
  return (
    <button
      class="chain-id"
      data-chain={chainId}
      title={`Chain ${chainId}: show its asks in the delegation log`}
      onClick={() => onChain(chainId)}
    >
      {shortChainId(chainId)}
    </button>
  );
}

/** How long a working agent has been at it, counted every second. */
function Elapsed({ since }: { since: number }) {
  return (
    <span class="elapsed muted" data-since={String(since)}>
      {elapsedText(since, now())}
    </span>
  );
}

function Row(props: { row: WorkRow; at: number; worktree?: string; onChain: ShowChain }) {
  const { row: r, at } = props;
  const nodeId = r.node_id;
  const status = statusOf(r);
  const serving = servingText(r, at, (x) => store.nameOf(x));
  const limited = rateLimitText(r, at);
  const turns = count(r.usage?.turns);
  const lastDelegation = lastDelegationText(r.last_delegation, at);
  const dot = r.live ? status.cls : status.cls === "hibernated" ? "hibernated" : "off";
  return (
    <div class="board-row" data-agent={r.name} data-status={status.label}>
      <div class="board-head">
        <span class={`status-dot ${dot}`} />
        <strong class="board-name" title={r.name}>
          {r.name}
        </strong>
        <HostPill agent={store.agents.find((a) => a.name === r.name)} />
        <span class={`pill status ${status.cls}`} title={status.title || undefined}>
          {status.label}
        </span>
        {status.since !== null ? <Elapsed since={status.since} /> : null}
        {r.live ? <span class="badge">{r.mode ?? "live"}</span> : null}
        {r.live && status.cls === "working" && r.queued > 1 ? (
          <span class="badge warn">{`${r.queued - 1} queued`}</span>
        ) : null}
        <span class="spacer" />
        {nodeId ? (
          <button class="btn small board-go" onClick={() => void goToCell(nodeId)}>
            Go to cell
          </button>
        ) : r.live ? (
          <span
            class="badge background"
            title="Running without a cell: show it from a cell's picker"
          >
            background
          </span>
        ) : null}
      </div>
      {props.worktree ? <div class="board-line worktree">{props.worktree}</div> : null}
      {limited ? (
        <div class="board-line rate-limit">
          <span class="muted">rate-limited </span>
          {limited}
        </div>
      ) : null}
      {serving && r.serving ? (
        <div class="board-line serving" data-chain={r.serving.chain_id}>
          <span class="muted">serving chain </span>
          <ChainButton chainId={String(r.serving.chain_id)} onChain={props.onChain} />
          {` · ${serving}`}
        </div>
      ) : null}
      {r.intent ? (
        <div class="board-line">
          <span class="muted">intent </span>
          {r.intent}
        </div>
      ) : null}
      {r.ticket ? (
        <div class="board-line">
          <span class="muted">ticket </span>
          {r.ticket}
        </div>
      ) : null}
      {r.progress ? (
        <div class="board-line">
          <span class="muted">progress </span>
          {r.progress}
        </div>
      ) : null}
      {lastDelegation ? (
        <div class="board-line last-delegation">
          <span class="muted">last delegation </span>
          {lastDelegation}
        </div>
      ) : null}
      {r.usage ? (
        <div class="board-line usage" title={usageDetail(r.usage)}>
          <span class="muted">usage </span>
          {usageText(r.usage)}
          {turns !== null ? ` · ${turns} turn${turns === 1 ? "" : "s"}` : ""}
        </div>
      ) : null}
    </div>
  );
}

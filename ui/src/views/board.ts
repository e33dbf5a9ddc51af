// The work-state board: the chains of asks in flight, then each agent's status, intent, ticket,
// progress, queue, the ask it serves, its rate limit and what its turns cost.

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
import { clear, h } from "./dom";
import { hostPill } from "./hostpill";

/** Opens the delegation log on one chain. */
export type ShowChain = (chainId: string) => void;

export class Board {
  readonly el = h("div.board");
  private last: WorkState | null = null;

  constructor(private readonly showChain: ShowChain) {
    // Reset times and deadlines read "in N min": keep them true while nothing else happens.
    setInterval(() => {
      if (this.el.isConnected && this.last) this.render(this.last);
    }, CLOCK_EVERY_MS);
    // How long each working agent has been at it: only those spans, every second.
    setInterval(() => {
      if (!this.el.isConnected) return;
      const now = Date.now();
      for (const span of this.el.querySelectorAll<HTMLElement>(".elapsed[data-since]")) {
        span.textContent = elapsedText(Number(span.dataset.since), now);
      }
    }, 1000);
    // An agent's files change without any event: while the board is shown, ask again.
    setInterval(() => {
      if (!this.el.isConnected) return;
      for (const row of this.el.querySelectorAll<HTMLElement>(".board-row")) {
        const name = row.dataset.agent;
        if (name && store.agents.find((a) => a.name === name)?.workspace === "worktree") {
          void this.worktree(name);
        }
      }
    }, SUMMARY_EVERY_MS);
  }

  async refresh(): Promise<void> {
    try {
      this.last = await api.call("workstate.get");
      this.render(this.last);
    } catch {
      /* reconnecting: the next refresh fills it */
    }
  }

  private render(state: WorkState): void {
    const rows = Array.isArray(state.agents) ? state.agents : [];
    const chains = chainsByStart(state.chains);
    const now = Date.now();
    clear(
      this.el,
      chains.length ? this.chains(chains, now) : null,
      ...(rows.length ? rows.map((r) => this.row(r, now)) : [h("p.muted", {}, "No agents yet.")]),
    );
    for (const r of rows) {
      if (store.agents.find((a) => a.name === r.name)?.workspace === "worktree") {
        void this.worktree(r.name);
      }
    }
  }

  // A worktree agent's files changed and commits ahead: asked at most every few seconds per
  // agent (the board is redrawn on every event), shown from the last answer meanwhile.
  private readonly summaries = new Map<string, { at: number; text: string }>();

  private async worktree(name: string): Promise<void> {
    const known = this.summaries.get(name);
    if (!known || Date.now() - known.at > SUMMARY_EVERY_MS) {
      try {
        const s = await api.call("workspace.summary", { name });
        const text = `worktree: ${s.files} file(s) changed, ${s.ahead} commit(s) ahead`;
        this.summaries.set(name, { at: Date.now(), text });
      } catch {
        return;
      }
    }
    const row = this.el.querySelector(`.board-row[data-agent="${CSS.escape(name)}"]`);
    const text = this.summaries.get(name)?.text;
    if (!row || !text) return;
    const line = row.querySelector(".worktree");
    if (line) line.textContent = text;
    else row.querySelector(".board-head")?.after(h("div.board-line.worktree", {}, text));
  }

  /** "Chains in flight": one card per chain, its id opening the delegation log on it. */
  private chains(chains: Chain[], now: number): HTMLElement {
    const nameOf = (x: string) => store.nameOf(x);
    return h(
      "section.chains",
      { dataset: { count: String(chains.length) } },
      h("div.section-title", {}, `Chains in flight (${chains.length})`),
      ...chains.map((c) => {
        const { who, agents } = chainText(c, nameOf);
        const depth = count(c.depth);
        const started = count(c.started_at_ms);
        return h(
          "div.chain",
          { dataset: { chain: c.chain_id } },
          h(
            "div.chain-head",
            {},
            this.chainButton(c.chain_id),
            h("span.chain-who", { title: who }, who),
            h("span.spacer"),
            depth !== null ? h("span.badge.depth", { title: "Deepest ask so far (root = 1)" }, `depth ${depth}`) : null,
          ),
          h(
            "div.board-line.chain-facts.muted",
            {},
            h("span.chain-usage", { title: usageDetail(c.usage) }, usageText(c.usage)),
            agents.length ? ` · also ${agents.join(", ")}` : "",
            started !== null ? ` · started ${relativeTime(started, now)}` : "",
          ),
        );
      }),
    );
  }

  private chainButton(chainId: string): HTMLElement {
    return h(
      "button.chain-id",
      {
        dataset: { chain: chainId },
        title: `Chain ${chainId}: show its asks in the delegation log`,
        onclick: () => this.showChain(chainId),
      },
      shortChainId(chainId),
    );
  }

  private row(r: WorkRow, now: number): HTMLElement {
    const nodeId = r.node_id;
    const status = statusOf(r);
    const serving = servingText(r, now, (x) => store.nameOf(x));
    const limited = rateLimitText(r, now);
    const turns = count(r.usage?.turns);
    const lastDelegation = lastDelegationText(r.last_delegation, now);
    return h(
      "div.board-row",
      { dataset: { agent: r.name, status: status.label } },
      h(
        "div.board-head",
        {},
        h("span.status-dot", { class: r.live ? status.cls : status.cls === "hibernated" ? "hibernated" : "off" }),
        h("strong.board-name", { title: r.name }, r.name),
        hostPill(store.agents.find((a) => a.name === r.name)),
        h("span.pill.status", { class: status.cls, title: status.title || undefined }, status.label),
        status.since !== null
          ? h("span.elapsed.muted", { dataset: { since: String(status.since) } }, elapsedText(status.since, now))
          : null,
        r.live ? h("span.badge", {}, r.mode ?? "live") : null,
        r.live && status.cls === "working" && r.queued > 1
          ? h("span.badge.warn", {}, `${r.queued - 1} queued`)
          : null,
        h("span.spacer"),
        nodeId
          ? h("button.btn.small.board-go", { onclick: () => void goToCell(nodeId) }, "Go to cell")
          : r.live
            ? h("span.badge.background", { title: "Running without a cell: show it from a cell's picker" }, "background")
            : null,
      ),
      limited ? h("div.board-line.rate-limit", {}, h("span.muted", {}, "rate-limited "), limited) : null,
      serving && r.serving
        ? h(
            "div.board-line.serving",
            { dataset: { chain: r.serving.chain_id } },
            h("span.muted", {}, "serving chain "),
            this.chainButton(String(r.serving.chain_id)),
            ` · ${serving}`,
          )
        : null,
      r.intent ? h("div.board-line", {}, h("span.muted", {}, "intent "), r.intent) : null,
      r.ticket ? h("div.board-line", {}, h("span.muted", {}, "ticket "), r.ticket) : null,
      r.progress ? h("div.board-line", {}, h("span.muted", {}, "progress "), r.progress) : null,
      lastDelegation
        ? h("div.board-line.last-delegation", {}, h("span.muted", {}, "last delegation "), lastDelegation)
        : null,
      r.usage
        ? h(
            "div.board-line.usage",
            { title: usageDetail(r.usage) },
            h("span.muted", {}, "usage "),
            usageText(r.usage),
            turns !== null ? ` · ${turns} turn${turns === 1 ? "" : "s"}` : "",
          )
        : null,
    );
  }
}

const SUMMARY_EVERY_MS = 3000;
const CLOCK_EVERY_MS = 30_000;

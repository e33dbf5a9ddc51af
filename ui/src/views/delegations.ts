// The delegation log: requester → target, source badge, depth and chain, cost, duration, outcome;
// click for the texts. Clicking a chain id shows that chain alone, in the order its asks started,
// indented by depth, with what the chain added up to.

import { api } from "../model/api";
import { chainOf, chainTotals, logRows, outcomeOf, type LogRow } from "../model/chains";
import { store } from "../model/state";
import type { Delegation } from "../model/types";
import { count, localTime, shortChainId, usageDetail, usageText } from "../model/usage";
import { askerOf } from "../model/workstate";
import { clear, formatMs, h } from "./dom";

const RECENT = 100; // the whole log shows this many
const CHAIN_SCAN = 1000; // one chain is looked for among this many

export class DelegationLog {
  readonly el = h("div.delegations");
  private open = new Set<string>();
  private chain: string | null = null;
  private records: Delegation[] = [];

  /** Show only chain `chainId` (null: the whole log). */
  showChain(chainId: string | null): void {
    this.chain = chainId;
    void this.refresh();
  }

  get shownChain(): string | null {
    return this.chain;
  }

  /** Which chain the next refresh shows (null: the whole log). */
  set shownChain(chainId: string | null) {
    this.chain = chainId;
  }

  async refresh(): Promise<void> {
    try {
      const limit = this.chain === null ? RECENT : CHAIN_SCAN;
      const records = await api.call<Delegation[]>("delegations.recent", { limit });
      this.records = Array.isArray(records) ? records : [];
      this.render();
    } catch {
      /* reconnecting */
    }
  }

  private render(): void {
    const rows = logRows(this.records, this.chain);
    const head = this.chain === null ? null : this.chainHead(this.chain);
    if (!rows.length) {
      const empty =
        this.chain === null
          ? "No delegations yet."
          : "No ask of this chain is logged yet: an ask is logged when it ends.";
      return clear(this.el, head, h("p.muted", {}, empty));
    }
    clear(this.el, head, ...rows.map((r) => this.item(r)));
  }

  /** The filter's heading: the chain, its totals over the rows logged, and the way back. */
  private chainHead(chain: string): HTMLElement {
    const t = chainTotals(this.records, chain);
    const facts = [
      `${t.asks} ask${t.asks === 1 ? "" : "s"}${t.failed ? ` (${t.failed} failed)` : ""}`,
      t.depth !== null ? `depth ${t.depth}` : null,
      usageText(t.usage),
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
      h("div.chain-totals", { title: usageDetail(t.usage) }, facts.join(" · ")),
      t.agents.length ? h("div.muted", {}, `agents: ${t.agents.join(", ")}`) : null,
    );
  }

  private item({ row: r, depth, indent }: LogRow): HTMLElement {
    const chain = chainOf(r);
    const key = `${chain ?? ""}:${r.at_ms}:${r.target}:${r.prompt_chars}`;
    const requester = askerOf(r.requester, (x) => store.nameOf(x));
    const outcome = outcomeOf(r);
    const lost = r.code === "LOST";
    const started = count(r.started_at_ms);
    const at = count(r.at_ms);
    const duration = count(r.duration_ms);
    const when = lost
      ? `started ${started !== null ? localTime(started, Date.now()) : "at an unknown time"}; in flight when IdeA last closed`
      : at !== null
        ? new Date(at).toLocaleString()
        : "unknown time";
    const chip = chain
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
    const details = h(
      "details.deleg",
      {
        open: this.open.has(key),
        dataset: {
          source: r.source,
          target: r.target,
          code: outcome,
          ...(chain ? { chain } : {}),
          ...(depth !== null ? { depth: String(depth) } : {}),
        },
      },
      h(
        "summary",
        {},
        h(
          "div.deleg-main",
          {},
          h("span.badge.source", { class: String(r.source) }, r.source),
          h("span.deleg-who", {}, `${requester} → ${r.target}`),
          h("span.spacer"),
          h("span.pill.outcome", { class: r.ok ? "ok" : lost ? "lost" : "fail" }, outcome),
        ),
        h(
          "div.deleg-sub",
          {},
          depth !== null ? h("span.badge.depth", { title: "Depth in its chain (root = 1)" }, `d${depth}`) : null,
          chip,
          h("span.spacer"),
          r.usage ? h("span.deleg-usage.muted", { title: usageDetail(r.usage) }, usageText(r.usage)) : null,
          h("span.muted.deleg-duration", {}, lost || duration === null ? "—" : formatMs(duration)),
        ),
      ),
      h("div.deleg-meta.muted", {}, `${when} · ${r.action}`),
      h("div.deleg-label", {}, "Prompt"),
      h("pre.deleg-text", {}, r.prompt ?? "—"),
      h("div.deleg-label", {}, "Reply"),
      h("pre.deleg-text", {}, r.reply ?? "—"),
    );
    details.style.setProperty("--indent", String(indent));
    details.addEventListener("toggle", () => {
      if (details.open) this.open.add(key);
      else this.open.delete(key);
    });
    return details;
  }
}

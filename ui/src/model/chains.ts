// The delegation log read by chain (DESIGN.md §15): a chain is a root ask and every ask made while
// serving it. The log holds each ask once, when it ended; one chain's rows are put back in the
// order they started, each indented by its depth, so the chain reads like the calls it made.
// Pure, so it is tested alone.

import type { Delegation, Usage } from "./types";
import { count, sumUsage } from "./usage";

/** Indents stop here: a deeper ask is shown as deep as this, its depth badge says the rest. */
export const MAX_INDENT = 4;

export type LogRow = { row: Delegation; depth: number | null; indent: number };

/** The ask's depth (root = 1) when it is a sensible one, else null. */
export function depthOf(r: Delegation): number | null {
  const d = count(r.depth);
  return d !== null && d >= 1 && Number.isInteger(d) ? d : null;
}

/** The ask's chain, or null (asks logged before chains, or a bad id). */
export function chainOf(r: Delegation): string | null {
  return typeof r.chain_id === "string" && r.chain_id ? r.chain_id : null;
}

/** When the ask started: a LOST row says so; any other row ended at `at_ms`, `duration_ms` in. */
export function startOf(r: Delegation): number {
  const started = count(r.started_at_ms);
  if (started !== null) return started;
  return (count(r.at_ms) ?? 0) - (count(r.duration_ms) ?? 0);
}

/** The rows to show, newest first; with `chain`, only that chain's, in the order they started
 * (root first), each indented by its depth. */
export function logRows(records: readonly Delegation[], chain: string | null): LogRow[] {
  const view = (row: Delegation): LogRow => {
    const depth = depthOf(row);
    return { row, depth, indent: depth === null ? 0 : Math.min(depth, MAX_INDENT + 1) - 1 };
  };
  if (chain === null) return records.slice().reverse().map(view);
  return inStartOrder(records.filter((r) => chainOf(r) === chain)).map(view);
}

/** Rows in the order they started; of two that started together, the shallower first. */
function inStartOrder(rows: readonly Delegation[]): Delegation[] {
  return rows
    .map((row, i) => ({ row, i }))
    .sort(
      (a, b) =>
        startOf(a.row) - startOf(b.row) ||
        (depthOf(a.row) ?? 0) - (depthOf(b.row) ?? 0) ||
        a.i - b.i,
    )
    .map(({ row }) => row);
}

export type ChainTotals = {
  asks: number;
  failed: number;
  depth: number | null; // the deepest ask seen
  agents: string[]; // targets, in the order first asked
  usage: Usage | null;
  started_at_ms: number | null;
};

/** What the chain's logged rows add up to. */
export function chainTotals(records: readonly Delegation[], chain: string): ChainTotals {
  const rows = records.filter((r) => chainOf(r) === chain);
  const depths = rows.map(depthOf).filter((d): d is number => d !== null);
  const ordered = inStartOrder(rows);
  const agents: string[] = [];
  for (const r of ordered)
    if (r.target !== null && !agents.includes(r.target)) agents.push(r.target);
  return {
    asks: rows.length,
    failed: rows.filter((r) => !r.ok).length,
    depth: depths.length ? Math.max(...depths) : null,
    agents,
    usage: sumUsage(rows.map((r) => r.usage)),
    started_at_ms: ordered.length ? startOf(ordered[0]) : null,
  };
}

/** What a row's outcome pill says: "ok", its code, or "failed". */
export function outcomeOf(r: Delegation): string {
  if (r.ok) return "ok";
  return typeof r.code === "string" && r.code ? r.code : "failed";
}

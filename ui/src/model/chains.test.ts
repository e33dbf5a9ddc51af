import { describe, expect, it } from "vitest";

import { chainTotals, logRows, MAX_INDENT, outcomeOf, startOf } from "./chains";
import type { Delegation, Usage } from "./types";

function usage(total: number, cost: number | null = null): Usage {
  return {
    input_tokens: total,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    total_tokens: total,
    cost_usd: cost,
  };
}

let n = 0;
function row(over: Partial<Delegation> = {}): Delegation {
  n += 1;
  return {
    at_ms: 1000 * n,
    source: "mcp",
    requester: "id-a",
    action: "agent.message",
    target: "b",
    prompt_chars: 4,
    prompt: `p${n}`,
    reply: "r",
    duration_ms: 0,
    ok: true,
    code: null,
    chain_id: null,
    depth: null,
    usage: null,
    ...over,
  };
}

// Chain c1: you ask lead (10..100); lead asks dev (20..50) who asks qa (30..40); lead asks doc
// (60..90). Each is logged when it ends, so the log holds qa, dev, doc, lead in that order.
const qa = row({
  target: "qa",
  chain_id: "c1",
  depth: 3,
  at_ms: 40,
  duration_ms: 10,
  usage: usage(100, 0.01),
});
const dev = row({
  target: "dev",
  chain_id: "c1",
  depth: 2,
  at_ms: 50,
  duration_ms: 30,
  usage: usage(200),
});
const other = row({
  target: "x",
  chain_id: "c2",
  depth: 1,
  at_ms: 55,
  duration_ms: 50,
  usage: usage(9999),
});
const doc = row({
  target: "doc",
  chain_id: "c1",
  depth: 2,
  at_ms: 90,
  duration_ms: 30,
  ok: false,
  code: "TIMEOUT",
});
const lead = row({
  target: "lead",
  chain_id: "c1",
  depth: 1,
  requester: null,
  source: "ui",
  at_ms: 100,
  duration_ms: 90,
  usage: usage(1000, 0.02),
});
const LOG = [qa, dev, other, doc, lead];

describe("the whole log", () => {
  it("shows the newest first, each row indented by its depth", () => {
    const rows = logRows(LOG, null);
    expect(rows.map((r) => r.row.target)).toEqual(["lead", "doc", "x", "dev", "qa"]);
    expect(rows.map((r) => r.indent)).toEqual([0, 1, 0, 1, 2]);
  });

  it("does not indent rows without a sensible depth, and stops indenting past the cap", () => {
    const rows = logRows(
      [
        row({ depth: null }),
        row({ depth: 0 }),
        row({ depth: -2 }),
        row({ depth: 1.5 }),
        row({ depth: 40 }),
      ],
      null,
    );
    expect(rows.map((r) => r.depth)).toEqual([40, null, null, null, null]);
    expect(rows.map((r) => r.indent)).toEqual([MAX_INDENT, 0, 0, 0, 0]);
  });
});

describe("one chain", () => {
  it("holds only its rows, in the order they started, so each nested ask follows its asker", () => {
    const rows = logRows(LOG, "c1");
    expect(rows.map((r) => r.row.target)).toEqual(["lead", "dev", "qa", "doc"]);
    expect(rows.map((r) => r.indent)).toEqual([0, 1, 2, 1]);
  });

  it("puts the shallower first when two asks started together", () => {
    const deep = row({ chain_id: "c3", depth: 2, at_ms: 10, duration_ms: 0, target: "deep" });
    const root = row({ chain_id: "c3", depth: 1, at_ms: 20, duration_ms: 10, target: "root" });
    expect(logRows([deep, root], "c3").map((r) => r.row.target)).toEqual(["root", "deep"]);
  });

  it("names the root's target first when a nested ask started in the same millisecond", () => {
    const nested = row({ chain_id: "c4", depth: 2, at_ms: 10, duration_ms: 0, target: "nested" });
    const root = row({ chain_id: "c4", depth: 1, at_ms: 20, duration_ms: 10, target: "root" });
    expect(chainTotals([nested, root], "c4").agents).toEqual(["root", "nested"]);
  });

  it("is empty for a chain the log does not hold", () => {
    expect(logRows(LOG, "nope")).toEqual([]);
  });

  it("adds up its rows' usage, asks, failures and depth, and names its agents in asking order", () => {
    const totals = chainTotals(LOG, "c1");
    expect(totals.asks).toBe(4);
    expect(totals.failed).toBe(1);
    expect(totals.depth).toBe(3);
    expect(totals.agents).toEqual(["lead", "dev", "qa", "doc"]);
    expect(totals.usage?.total_tokens).toBe(1300);
    expect(totals.usage?.cost_usd).toBeCloseTo(0.03);
    expect(totals.started_at_ms).toBe(10);
  });

  it("has no usage when none of its rows had one", () => {
    const totals = chainTotals([row({ chain_id: "c9" })], "c9");
    expect(totals.usage).toBeNull();
    expect(totals.depth).toBeNull();
  });
});

describe("a row", () => {
  it("started when a LOST row says, else its duration before it ended", () => {
    expect(startOf(row({ at_ms: 500, duration_ms: 200 }))).toBe(300);
    expect(
      startOf(row({ at_ms: 500, duration_ms: 0, code: "LOST", ok: false, started_at_ms: 42 })),
    ).toBe(42);
    expect(startOf(row({ at_ms: 500, duration_ms: NaN }))).toBe(500);
  });

  it("says ok, its code, or failed", () => {
    expect(outcomeOf(row())).toBe("ok");
    expect(outcomeOf(row({ ok: false, code: "DEPTH_EXCEEDED" }))).toBe("DEPTH_EXCEEDED");
    expect(outcomeOf(row({ ok: false, code: null }))).toBe("failed");
  });
});

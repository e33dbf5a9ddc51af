import { describe, expect, it } from "vitest";

import type { Usage } from "./types";
import {
  formatCost,
  formatTokens,
  relativeTime,
  resetText,
  shortChainId,
  sumUsage,
  usageDetail,
  usageText,
} from "./usage";

function usage(over: Partial<Usage> = {}): Usage {
  return {
    input_tokens: 100,
    output_tokens: 20,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    total_tokens: 120,
    cost_usd: null,
    ...over,
  };
}

const GARBAGE: unknown[] = [null, undefined, NaN, Infinity, -1, "12", {}, [], true];

describe("tokens", () => {
  it("read as people count them: plain below a thousand, then k, M, B", () => {
    expect(formatTokens(0)).toBe("0");
    expect(formatTokens(950)).toBe("950");
    expect(formatTokens(1000)).toBe("1k");
    expect(formatTokens(1234)).toBe("1.2k");
    expect(formatTokens(12345)).toBe("12.3k");
    expect(formatTokens(123456)).toBe("123k");
    expect(formatTokens(4_500_000)).toBe("4.5M");
    expect(formatTokens(2_000_000_000)).toBe("2B");
  });

  it("never show a thousand of a unit: it is one of the next", () => {
    expect(formatTokens(999.6)).toBe("1k");
    expect(formatTokens(999_960)).toBe("1M");
    expect(formatTokens(99_960)).toBe("100k");
  });

  it("read garbage as missing", () => {
    for (const g of GARBAGE) expect(formatTokens(g)).toBe("—");
  });
});

describe("cost", () => {
  it("shows cents' fractions under a dollar, cents above, and crumbs as less than the least shown", () => {
    expect(formatCost(0.0123)).toBe("$0.0123");
    expect(formatCost(0.5)).toBe("$0.5000");
    expect(formatCost(12.345)).toBe("$12.35");
    expect(formatCost(0)).toBe("$0.00");
    expect(formatCost(0.00001)).toBe("<$0.0001");
  });

  it("reads null and garbage as missing", () => {
    for (const g of GARBAGE) expect(formatCost(g)).toBe("—");
  });
});

describe("a usage", () => {
  it("says its tokens and its cost when the CLI gave one", () => {
    expect(usageText(usage({ total_tokens: 12345, cost_usd: 0.0123 }))).toBe(
      "12.3k tokens · $0.0123",
    );
    expect(usageText(usage({ total_tokens: 12345 }))).toBe("12.3k tokens");
    expect(usageText(null)).toBe("—");
  });

  it("rebuilds a missing total from its parts", () => {
    const u = usage({
      total_tokens: NaN,
      input_tokens: 1000,
      output_tokens: 500,
      cache_read_tokens: 500,
    });
    expect(usageText(u)).toBe("2k tokens");
  });

  it("details every part, the turns when counted, and a cost not reported", () => {
    const text = usageDetail(usage({ turns: 3 }));
    expect(text).toContain("input 100");
    expect(text).toContain("output 20");
    expect(text).toContain("cost not reported");
    expect(text).toContain("3 turns");
    expect(usageDetail(usage({ turns: 1 }))).toContain("1 turn");
    expect(usageDetail(usage({ turns: 1 }))).not.toContain("1 turns");
  });
});

describe("a sum of usages", () => {
  it("adds every part and skips missing usages", () => {
    const sum = sumUsage([usage(), null, usage({ input_tokens: 1, total_tokens: 21 }), undefined]);
    expect(sum).toMatchObject({
      input_tokens: 101,
      output_tokens: 40,
      total_tokens: 141,
      cost_usd: null,
    });
  });

  it("has a cost as soon as one usage had one", () => {
    const sum = sumUsage([usage({ cost_usd: 0.01 }), usage(), usage({ cost_usd: 0.02 })]);
    expect(sum?.cost_usd).toBeCloseTo(0.03);
  });

  it("reads garbage counts as nothing, and nothing at all as no usage", () => {
    const bad = {
      ...usage(),
      input_tokens: "9" as unknown as number,
      total_tokens: -5,
      cost_usd: NaN,
    };
    expect(sumUsage([bad])).toMatchObject({ input_tokens: 0, total_tokens: 20, cost_usd: null });
    expect(sumUsage([])).toBeNull();
    expect(sumUsage([null])).toBeNull();
  });
});

describe("times", () => {
  const now = 1_700_000_000_000;
  const min = 60_000;

  it("count minutes ahead, rounding up, then hours", () => {
    expect(relativeTime(now + 12 * min, now)).toBe("in 12 min");
    expect(relativeTime(now + 11 * min + 10_000, now)).toBe("in 12 min");
    expect(relativeTime(now + 65 * min, now)).toBe("in 1 h 5 min");
    expect(relativeTime(now + 120 * min, now)).toBe("in 2 h");
    expect(relativeTime(now + 20_000, now)).toBe("in less than a minute");
    expect(relativeTime(now - 3 * min, now)).toBe("3 min ago");
    expect(relativeTime(now - 1000, now)).toBe("just now");
  });

  it("tell a reset as a clock time and how long until it", () => {
    const clock = (at: number) => `T${(at - now) / min}`;
    expect(resetText(now + 12 * min, now, clock)).toBe("resets at T12 (in 12 min)");
    expect(resetText(now - 2 * min, now, clock)).toBe("should have reset at T-2");
    expect(resetText(null, now, clock)).toBeNull();
    expect(resetText("soon", now, clock)).toBeNull();
  });

  it("show a reset in the user's time with the default clock", () => {
    expect(resetText(now + 12 * min, now)).toMatch(/^resets at .*\d.* \(in 12 min\)$/);
  });
});

describe("a chain id", () => {
  it("is cut to 8 characters when long, kept when short", () => {
    expect(shortChainId("3f2a9c1e-77b0-4d1f-9a63-5c0e2b1d4f88")).toBe("3f2a9c1e");
    expect(shortChainId("c-12")).toBe("c-12");
    expect(shortChainId(null)).toBe("?");
  });
});

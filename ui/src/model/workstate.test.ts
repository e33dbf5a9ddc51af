import { describe, expect, it } from "vitest";

import type { Chain, Serving, WorkRow } from "./types";
import {
  askerOf,
  chainsByStart,
  chainText,
  describeProblem,
  elapsedText,
  lastDelegationText,
  rateLimitText,
  servingText,
  statusOf,
} from "./workstate";

const NOW = 1_700_000_000_000;
const MIN = 60_000;
const names: Record<string, string> = { "id-lead": "lead", "id-dev": "dev" };
const nameOf = (x: string) => names[x] ?? x;
const clock = (at: number) => `T${(at - NOW) / MIN}`;

function work(over: Partial<WorkRow> = {}): WorkRow {
  return {
    agent_id: "id-dev",
    name: "dev",
    status: "idle",
    intent: null,
    ticket: null,
    progress: null,
    last_delegation: null,
    updated_at_ms: null,
    live: false,
    mode: "structured",
    node_id: null,
    queued: 0,
    usage: null,
    hibernated: false,
    serving: null,
    waiting: [],
    rate_limit: null,
    ...over,
  };
}

function chain(over: Partial<Chain> = {}): Chain {
  return {
    chain_id: "c1",
    depth: 1,
    root_requester: null,
    root_target: "lead",
    agents: ["lead"],
    started_at_ms: NOW,
    usage: null as unknown as Chain["usage"],
    ...over, // a chain without usage
  };
}

/** A serving ask with only the fields a test gives (the text must cope with the rest missing). */
const serving = (s: Partial<Serving>) => s as Serving;

describe("an agent's status", () => {
  it("is hibernated, not idle or stopped, when it idled out with its conversation kept", () => {
    const s = statusOf(work({ hibernated: true }));
    expect(s.label).toBe("hibernated");
    expect(s.cls).toBe("hibernated");
    expect(s.title).toContain("resumes");
  });

  it("is stopped when not live, whatever its row said (never idle and stopped at once)", () => {
    expect(statusOf(work({ status: "working" })).label).toBe("stopped");
    expect(statusOf(work({ hibernated: undefined, status: "idle" })).label).toBe("stopped");
  });

  it("is working while a turn runs, with when it began, even if its own row says idle", () => {
    const row = work({
      live: true,
      status: "idle",
      queued: 2,
      serving: serving({
        chain_id: "c1",
        depth: 1,
        requester: null,
        deadline_at_ms: NOW + MIN,
        started_at_ms: NOW - 5000,
      }),
    });
    expect(statusOf(row)).toMatchObject({ label: "working", since: NOW - 5000 });
  });

  it("is queued N when asks wait and none runs yet, else the live agent's own row", () => {
    expect(statusOf(work({ live: true, queued: 1 })).label).toBe("queued 1");
    expect(statusOf(work({ live: true, status: "waiting" })).label).toBe("waiting");
    expect(statusOf(work({ hibernated: true, live: true, status: "working" })).label).toBe(
      "working",
    );
    expect(statusOf(work({ live: true, status: "bogus" as never })).label).toBe("idle");
  });
});

describe("elapsed time and the last delegation", () => {
  it("counts seconds, minutes and hours", () => {
    expect(elapsedText(NOW - 12_000, NOW)).toBe("12 s");
    expect(elapsedText(NOW - 185_000, NOW)).toBe("3 min 05 s");
    expect(elapsedText(NOW - 62 * MIN, NOW)).toBe("1 h 02 min");
    expect(elapsedText(NOW + 5000, NOW)).toBe("0 s");
  });

  it("reads the server's object, never [object Object]", () => {
    const last = { target: "beta", at_ms: NOW - 2 * MIN, ok: true, code: null };
    expect(lastDelegationText(last, NOW)).toBe("beta · ok · 2 min ago");
    expect(lastDelegationText({ ...last, ok: false, code: "TIMEOUT" }, NOW)).toBe(
      "beta · TIMEOUT · 2 min ago",
    );
    expect(lastDelegationText({ ok: true }, NOW)).toBeNull();
    expect(lastDelegationText(null, NOW)).toBeNull();
    expect(lastDelegationText({ target: "<b>x</b>", at_ms: "soon" }, NOW)).toBe("<b>x</b>");
  });
});

describe("a rate limit", () => {
  it("says its reason and when it resets", () => {
    const row = work({
      live: true,
      status: "blocked",
      rate_limit: { reason: "5-hour limit reached", resets_at_ms: NOW + 12 * MIN },
    });
    expect(rateLimitText(row, NOW, clock)).toBe("5-hour limit reached · resets at T12 (in 12 min)");
    expect(statusOf(row).label).toBe("blocked");
  });

  it("says only its reason without a reset time, and something when the reason is empty", () => {
    expect(
      rateLimitText(work({ rate_limit: { reason: "quota", resets_at_ms: null } }), NOW, clock),
    ).toBe("quota");
    expect(
      rateLimitText(work({ rate_limit: { reason: " ", resets_at_ms: null } }), NOW, clock),
    ).toBe("no reason given");
  });

  it("is not there when the agent is not limited", () => {
    expect(rateLimitText(work(), NOW, clock)).toBeNull();
    expect(rateLimitText(work({ rate_limit: undefined }), NOW, clock)).toBeNull();
  });
});

describe("the ask an agent serves", () => {
  it("says its depth, who asked and when it is due", () => {
    const row = work({
      serving: serving({
        chain_id: "c1",
        depth: 2,
        requester: "id-lead",
        deadline_at_ms: NOW + 4 * MIN,
      }),
    });
    expect(servingText(row, NOW, nameOf)).toBe("depth 2 · asked by lead · due in 4 min");
  });

  it("says the user asked when there is no requester, and a deadline gone by", () => {
    const row = work({
      serving: serving({
        chain_id: "c1",
        depth: 1,
        requester: null,
        deadline_at_ms: NOW - 2 * MIN,
      }),
    });
    expect(servingText(row, NOW, nameOf)).toBe(
      "depth 1 · asked by you · past its deadline (2 min ago)",
    );
  });

  it("leaves out what is garbage, and is not there when it serves nothing", () => {
    const row = work({
      serving: serving({ chain_id: "c1", depth: NaN, requester: null, deadline_at_ms: -1 }),
    });
    expect(servingText(row, NOW, nameOf)).toBe("asked by you");
    expect(servingText(work(), NOW, nameOf)).toBeNull();
  });
});

describe("chains in flight", () => {
  it("say who asked whom first and which other agents joined", () => {
    const c = chain({
      root_requester: "id-lead",
      root_target: "dev",
      agents: ["dev", "qa", "qa", "id-lead"],
    });
    expect(chainText(c, nameOf)).toEqual({ who: "lead → dev", agents: ["qa", "lead"] });
    expect(chainText(chain(), nameOf).who).toBe("you → lead");
    expect(askerOf("", nameOf)).toBe("you");
  });

  it("are listed newest first, garbage dropped", () => {
    const list = [
      chain({ chain_id: "old", started_at_ms: 1 }),
      null,
      { x: 1 },
      chain({ chain_id: "new", started_at_ms: 5 }),
    ];
    expect(chainsByStart(list).map((c) => c.chain_id)).toEqual(["new", "old"]);
    expect(chainsByStart(undefined)).toEqual([]);
  });
});

describe("a problem", () => {
  it("of an ask lost in a crash says who asked whom, in which chain", () => {
    const lost = {
      code: "LOST" as const,
      message: "m",
      target: "dev",
      requester: "id-lead",
      chain_id: "3f2a9c1e-77b0",
      started_at_ms: NOW - 5 * MIN,
    };
    const { title, text } = describeProblem(lost, NOW, nameOf);
    expect(title).toBe("Ask lost");
    expect(text).toMatch(
      /^An ask from lead to dev \(chain 3f2a9c1e\), started .+, was in flight when IdeA last closed; its answer is lost\.$/,
    );
  });

  it("of a lost ask from the user, outside any chain, still reads", () => {
    const lost = {
      code: "LOST" as const,
      message: "m",
      target: "dev",
      requester: null,
      chain_id: null,
      started_at_ms: NaN,
    };
    expect(describeProblem(lost, NOW, nameOf).text).toBe(
      "An ask from you to dev was in flight when IdeA last closed; its answer is lost.",
    );
  });

  it("of any other kind reads as its error", () => {
    const corrupt = {
      code: "CORRUPT_FILE",
      message: "m",
      path: "/p/a.json",
      quarantined_to: "/p/q.json",
    };
    expect(describeProblem(corrupt, NOW, nameOf).text).toBe(
      "/p/a.json could not be read and was moved to /p/q.json.",
    );
  });
});

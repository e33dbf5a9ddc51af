import { describe, expect, it } from "vitest";

import {
  agentsIn,
  buildTimeline,
  cellOfAgent,
  GROUP_FROM,
  hopsOf,
  runningFromWorkState,
  runningKey,
  type ChainItem,
  type ChatGroup,
  type Hop,
  type LoggedAsk,
  type RunningHop,
  type TimelineItem,
} from "./timeline";
import type { Layouts, Usage, WorkRow } from "./types";

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
function row(over: Partial<LoggedAsk> = {}): LoggedAsk {
  n += 1;
  return {
    at_ms: 1000 * n,
    source: "mcp",
    requester: "id-lead",
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
    queued_ms: null,
    ...over,
  };
}

const NAMES: Record<string, string> = { "id-lead": "lead", "id-dev": "dev", "id-qa": "qa" };
const nameOf = (x: string) => NAMES[x] ?? x;

// Chain c1: you ask lead (10..100); lead asks dev (20..50), who asks qa (30..40); lead asks doc
// (60..90). Each is logged when it ends: qa, dev, doc, lead.
const qa = row({
  target: "qa",
  requester: "id-dev",
  chain_id: "c1",
  depth: 3,
  at_ms: 40,
  duration_ms: 10,
  usage: usage(100, 0.01),
});
const dev = row({
  target: "dev",
  requester: "id-lead",
  chain_id: "c1",
  depth: 2,
  at_ms: 50,
  duration_ms: 30,
  queued_ms: 5,
  usage: usage(200),
});
const doc = row({
  target: "doc",
  requester: "id-lead",
  chain_id: "c1",
  depth: 2,
  at_ms: 90,
  duration_ms: 30,
  ok: false,
  code: "TIMEOUT",
});
const lead = row({
  target: "lead",
  requester: null,
  source: "ui",
  chain_id: "c1",
  depth: 1,
  at_ms: 100,
  duration_ms: 90,
  queued_ms: 0,
  usage: usage(1000, 0.02),
});
const other = row({
  target: "x",
  chain_id: "c2",
  depth: 1,
  at_ms: 55,
  duration_ms: 50,
  usage: usage(9),
});
const LOG = [qa, dev, other, doc, lead];

const chains = (items: TimelineItem[]) => items.filter((i): i is ChainItem => i.kind === "chain");
const shape = (h: Hop): unknown =>
  h.children.length ? { [h.target]: h.children.map(shape) } : h.target;

// The rows above carry no ask ids: they are logged as before asks had them, and every test of
// "a chain as a tree" reads them through the legacy path (the guess by depth, time and name).
describe("a chain as a tree", () => {
  it("nests each ask under the one that made it, in the order they started, newest chain first", () => {
    const items = chains(buildTimeline(LOG, [], { nameOf }));
    expect(items.map((i) => i.chainId)).toEqual(["c1", "c2"]); // c1 started at 10, c2 at 5
    expect(shape(items[0].root)).toEqual({ lead: [{ dev: ["qa"] }, "doc"] });
    expect(hopsOf(items[0].root).map((h) => h.depth)).toEqual([1, 2, 3, 2]);
  });

  it("adds up the chain and splits each ask into queue wait and turn", () => {
    const c1 = chains(buildTimeline(LOG, [], { nameOf }))[0];
    expect([c1.asks, c1.failed, c1.running, c1.depth]).toEqual([4, 1, 0, 3]);
    expect(c1.usage?.total_tokens).toBe(1300);
    expect(c1.usage?.cost_usd).toBeCloseTo(0.03);
    const devHop = c1.root.children[0];
    expect([devHop.queuedMs, devHop.turnMs, devHop.durationMs]).toEqual([5, 25, 30]);
    expect(c1.root.children[1]).toMatchObject({ state: "failed", outcome: "TIMEOUT" });
    // A row logged before queued_ms: its whole duration, no split.
    expect([
      c1.root.children[0].children[0].queuedMs,
      c1.root.children[0].children[0].turnMs,
    ]).toEqual([null, null]);
  });

  it("puts an ask under the right one of two hops of its requester's agent", () => {
    // lead asks dev twice; dev's second turn asks qa.
    const rows = [
      row({ target: "dev", chain_id: "k", depth: 2, at_ms: 30, duration_ms: 10 }),
      row({
        target: "qa",
        requester: "id-dev",
        chain_id: "k",
        depth: 3,
        at_ms: 55,
        duration_ms: 5,
      }),
      row({ target: "dev", chain_id: "k", depth: 2, at_ms: 60, duration_ms: 20 }),
      row({ target: "lead", requester: null, chain_id: "k", depth: 1, at_ms: 70, duration_ms: 70 }),
    ];
    const [item] = chains(buildTimeline(rows, [], { nameOf }));
    expect(shape(item.root)).toEqual({ lead: ["dev", { dev: ["qa"] }] });
  });

  it("shows the hops running now as running, under the hop that asked them", () => {
    const running: RunningHop[] = [
      {
        target: "lead",
        chain_id: "c9",
        depth: 1,
        requester: null,
        started_at_ms: 10,
        queued_ms: 0,
        source: "ui",
        prompt: "plan",
      },
      {
        target: "dev",
        chain_id: "c9",
        depth: 2,
        requester: "lead",
        started_at_ms: 20,
        queued_ms: 3,
        source: null,
        prompt: null,
      },
    ];
    const done = row({
      target: "qa",
      requester: "id-dev",
      chain_id: "c9",
      depth: 3,
      at_ms: 25,
      duration_ms: 4,
    });
    const [item] = chains(buildTimeline([done], running, { nameOf }));
    expect(shape(item.root)).toEqual({ lead: [{ dev: ["qa"] }] });
    expect(item.root).toMatchObject({
      state: "running",
      outcome: "running",
      prompt: "plan",
      source: "ui",
    });
    expect(item.root.children[0]).toMatchObject({
      state: "running",
      queuedMs: 3,
      durationMs: null,
      source: null,
    });
    expect(item.running).toBe(2);
  });

  it("gives a chain whose root is not among the rows a placeholder root", () => {
    const [item] = chains(buildTimeline([dev, qa], [], { nameOf }));
    expect(item.root).toMatchObject({ placeholder: true, target: "lead", state: "lost" });
    expect(shape(item.root)).toEqual({ lead: [{ dev: ["qa"] }] });
    expect(item.asks).toBe(2);
  });

  it("shows rows without a chain each on their own", () => {
    const stop = row({ action: "agent.stop", target: "b", chain_id: undefined, depth: undefined });
    const items = chains(buildTimeline([stop, lead], [], { nameOf }));
    expect(items.map((i) => [i.chainId, i.root.action])).toEqual([
      [null, "agent.stop"],
      ["c1", "agent.message"],
    ]);
  });
});

describe("the ask tree kept by ids", () => {
  // Chain t: you ask lead (10..100); lead asks doc (20..60) and, in parallel, dev (25..70); doc
  // asks qa (30..40). The requesters' ids are not names the page knows (the agents were renamed):
  // the legacy guess would put qa under dev, the latest hop running when qa started.
  const ids = (ask: string, parent: string | null) => ({ ask_id: ask, parent_ask_id: parent });
  const tree = [
    row({
      target: "qa",
      requester: "old-doc",
      chain_id: "t",
      depth: 3,
      at_ms: 40,
      duration_ms: 10,
      ...ids("q", "o"),
    }),
    row({
      target: "doc",
      requester: "old-lead",
      chain_id: "t",
      depth: 2,
      at_ms: 60,
      duration_ms: 40,
      ...ids("o", "l"),
    }),
    row({
      target: "dev",
      requester: "old-lead",
      chain_id: "t",
      depth: 2,
      at_ms: 70,
      duration_ms: 45,
      ...ids("d", "l"),
    }),
    row({
      target: "lead",
      requester: null,
      chain_id: "t",
      depth: 1,
      at_ms: 100,
      duration_ms: 90,
      ...ids("l", null),
    }),
  ];

  it("nests each ask under the ask it names as its parent, whatever times and names say", () => {
    const [item] = chains(buildTimeline(tree, [], { nameOf }));
    expect(shape(item.root)).toEqual({ lead: [{ doc: ["qa"] }, "dev"] });
    expect(hopsOf(item.root).map((h) => [h.askId, h.parentAskId])).toEqual([
      ["l", null],
      ["o", "l"],
      ["q", "o"],
      ["d", "l"],
    ]);
    // The same rows without their ids: the legacy guess, which gets qa wrong here.
    const legacy = tree.map((r) => ({ ...r, ask_id: undefined, parent_ask_id: undefined }));
    expect(shape(chains(buildTimeline(legacy, [], { nameOf }))[0].root)).toEqual({
      lead: ["doc", { dev: ["qa"] }],
    });
  });

  it("keys a hop by its ask id, so it keeps its key when the rows around it change", () => {
    const [item] = chains(buildTimeline(tree, [], { nameOf }));
    const [again] = chains(
      buildTimeline([row({ target: "zz", at_ms: 1 }), ...tree], [], { nameOf }),
    );
    expect(hopsOf(again.root).map((h) => h.key)).toEqual(hopsOf(item.root).map((h) => h.key));
    expect(item.root.key).toBe("log:l");
  });

  it("nests the turns running and waiting now by the ids the board gives", () => {
    const board = [
      {
        name: "lead",
        serving: {
          ask_id: "L",
          parent_ask_id: null,
          chain_id: "r",
          depth: 1,
          requester: null,
          started_at_ms: 10,
        },
      },
      {
        name: "doc",
        serving: {
          ask_id: "O",
          parent_ask_id: "L",
          chain_id: "r",
          depth: 2,
          requester: "lead",
          started_at_ms: 20,
        },
      },
      {
        name: "dev",
        serving: {
          ask_id: "D",
          parent_ask_id: "L",
          chain_id: "r",
          depth: 2,
          requester: "lead",
          started_at_ms: 25,
        },
        waiting: [
          {
            ask_id: "Q",
            parent_ask_id: "O",
            chain_id: "r",
            depth: 3,
            requester: "renamed",
            since_ms: 30,
          },
        ],
      },
    ] as unknown as WorkRow[];
    const hops = runningFromWorkState(board);
    expect(hops.map((h) => [h.target, h.ask_id, h.parent_ask_id])).toEqual([
      ["lead", "L", null],
      ["doc", "O", "L"],
      ["dev", "Q", "O"],
      ["dev", "D", "L"],
    ]);
    const [item] = chains(buildTimeline([], hops, { nameOf }));
    expect(shape(item.root)).toEqual({ lead: [{ doc: ["dev"] }, "dev"] });
    expect(item.root.children[0].children[0]).toMatchObject({ state: "queued", key: "wait:Q" });
  });

  it("shows old rows without ids beside new ones: each chain read its own way", () => {
    const items = chains(buildTimeline([...LOG, ...tree], [], { nameOf }));
    const byChain = new Map(items.map((i) => [i.chainId, shape(i.root)]));
    expect(byChain.get("c1")).toEqual({ lead: [{ dev: ["qa"] }, "doc"] }); // legacy
    expect(byChain.get("t")).toEqual({ lead: [{ doc: ["qa"] }, "dev"] }); // by ids
  });

  it("falls back to the legacy guess for an ask whose parent is not shown, and survives hostile ids", () => {
    // The root is older than the rows shown: its children go under a placeholder root, which
    // takes the id they name; a grandchild whose parent is cut too goes by the guess.
    const [cut] = chains(buildTimeline(tree.slice(0, 3), [], { nameOf }));
    expect(cut.root).toMatchObject({ placeholder: true, askId: "l", target: "old-lead" });
    expect(shape(cut.root)).toEqual({ "old-lead": [{ doc: ["qa"] }, "dev"] });
    const [orphan] = chains(buildTimeline([tree[0]], [], { nameOf }));
    expect(shape(orphan.root)).toEqual({ "old-doc": ["qa"] });
    // Two asks naming each other, one naming itself, one a parent that started after it: every
    // hop is shown once and nothing loops.
    const hostile = [
      row({
        target: "r",
        requester: null,
        chain_id: "h",
        depth: 1,
        at_ms: 10,
        duration_ms: 10,
        ...ids("r", null),
      }),
      row({ target: "x", chain_id: "h", depth: 2, at_ms: 12, duration_ms: 1, ...ids("x", "y") }),
      row({ target: "y", chain_id: "h", depth: 2, at_ms: 13, duration_ms: 1, ...ids("y", "x") }),
      row({ target: "s", chain_id: "h", depth: 2, at_ms: 14, duration_ms: 1, ...ids("s", "s") }),
      row({ target: "z", chain_id: "h", depth: 2, at_ms: 15, duration_ms: 1, ...ids("r", "r") }),
    ];
    const [item] = chains(buildTimeline(hostile, [], { nameOf }));
    expect(
      hopsOf(item.root)
        .map((h) => h.target)
        .sort(),
    ).toEqual(["r", "s", "x", "y", "z"]);
    expect(item.asks).toBe(5);
  });
});

describe("the user's chat messages", () => {
  const chat = (target: string, at: number, over: Partial<LoggedAsk> = {}) =>
    row({
      source: "ui",
      requester: null,
      target,
      chain_id: `ch${at}`,
      depth: 1,
      at_ms: at,
      duration_ms: 1,
      usage: usage(10, 0.001),
      ...over,
    });

  it("folds consecutive messages to one agent into one group, newest first", () => {
    const rows = [
      chat("bot", 10),
      chat("bot", 20),
      chat("bot", 30, { ok: false, code: "TIMEOUT" }),
    ];
    const items = buildTimeline(rows, [], { nameOf });
    expect(items).toHaveLength(1);
    const group = items[0] as ChatGroup;
    expect(group.kind).toBe("chats");
    expect(group.target).toBe("bot");
    expect(group.hops.map((h) => h.startedAt)).toEqual([29, 19, 9]);
    expect([group.failed, group.usage?.total_tokens, group.startedAt, group.endedAt]).toEqual([
      1, 30, 9, 30,
    ]);
  });

  it("keeps one message alone, and breaks a run at another agent, a nested ask or a running turn", () => {
    expect(GROUP_FROM).toBe(2);
    expect(buildTimeline([chat("bot", 10)], [], { nameOf })[0].kind).toBe("chain");
    const nested = chat("bot", 40);
    const rows = [
      chat("bot", 10),
      chat("bot", 20), // group
      chat("eve", 30), // alone
      nested,
      row({ target: "dev", chain_id: nested.chain_id, depth: 2, at_ms: 39, duration_ms: 1 }),
      chat("bot", 50),
      chat("bot", 60), // group
    ];
    const running: RunningHop[] = [
      {
        target: "bot",
        chain_id: "live",
        depth: 1,
        requester: null,
        started_at_ms: 70,
        queued_ms: 0,
        source: "ui",
        prompt: null,
      },
    ];
    const kinds = buildTimeline(rows, running, { nameOf }).map((i) =>
      i.kind === "chats"
        ? `chats:${i.hops.length}`
        : `${i.root.target}${i.root.children.length ? "+" : ""}`,
    );
    expect(kinds).toEqual(["bot", "chats:2", "bot+", "eve", "chats:2"]);
  });

  it("does not fold asks from agents or request files", () => {
    const rows = [
      row({ target: "bot", at_ms: 10 }),
      row({ target: "bot", at_ms: 20 }),
      row({ target: "bot", source: "file", requester: null, at_ms: 30 }),
    ];
    expect(buildTimeline(rows, [], { nameOf }).map((i) => i.kind)).toEqual([
      "chain",
      "chain",
      "chain",
    ]);
  });
});

describe("the agent filter", () => {
  it("keeps the chains the agent asks or is asked in, whole, and marks its hops", () => {
    const items = chains(buildTimeline(LOG, [], { nameOf, agent: "dev" }));
    expect(items.map((i) => i.chainId)).toEqual(["c1"]);
    const marked = hopsOf(items[0].root)
      .filter((h) => h.match)
      .map((h) => h.target);
    expect(marked).toEqual(["dev", "qa"]); // dev was asked; dev asked qa
    expect(chains(buildTimeline(LOG, [], { nameOf, agent: "nobody" }))).toEqual([]);
  });

  it("filters by chain, and the agents to choose from are every name in the rows", () => {
    expect(
      chains(buildTimeline(LOG, [], { nameOf, chain: "c2" })).map((i) => i.root.target),
    ).toEqual(["x"]);
    expect(agentsIn(LOG, nameOf)).toEqual(
      ["b", "dev", "doc", "lead", "qa", "x"].filter((a) => a !== "b"),
    );
  });

  it("filters before folding: another agent's ask between two chats no longer breaks them", () => {
    const chat = (at: number) =>
      row({
        source: "ui",
        requester: null,
        target: "bot",
        chain_id: `u${at}`,
        depth: 1,
        at_ms: at,
      });
    const rows = [chat(10), row({ target: "eve", chain_id: "e", depth: 1, at_ms: 15 }), chat(20)];
    expect(buildTimeline(rows, [], { nameOf }).map((i) => i.kind)).toEqual([
      "chain",
      "chain",
      "chain",
    ]);
    expect(buildTimeline(rows, [], { nameOf, agent: "bot" }).map((i) => i.kind)).toEqual(["chats"]);
  });
});

describe("hostile or missing fields", () => {
  it("shows what it can of any row and never throws", () => {
    const junk = [
      null,
      7,
      "text",
      [1, 2],
      {
        target: 5,
        depth: "deep",
        chain_id: 9,
        duration_ms: -4,
        queued_ms: NaN,
        at_ms: "soon",
        usage: "lots",
      },
      { chain_id: "h", depth: 2, target: "t", requester: { id: 1 } },
      { chain_id: "h", depth: 2e9, target: "u", requester: "id-lead", ok: "yes" },
      { chain_id: "h", depth: 1.5, target: "v" },
    ];
    const items = chains(
      buildTimeline(junk, [null as unknown as RunningHop, { target: 3 } as unknown as RunningHop], {
        nameOf,
      }),
    );
    const all = items.flatMap((i) => hopsOf(i.root)).filter((h) => !h.placeholder);
    expect(all).toHaveLength(5); // the 4 objects and the running hop with a bad name
    const first = all.find((h) => h.target === "?" && h.row !== null)!;
    expect([first.depth, first.chainId, first.durationMs, first.queuedMs, first.usage]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(all.find((h) => h.target === "u")?.state).toBe("failed"); // ok must be true, not truthy
    expect(buildTimeline(undefined)).toEqual([]);
    expect(buildTimeline({ not: "a list" })).toEqual([]);
  });

  it("reads running hops off the board's rows, skipping rows that serve nothing or make no sense", () => {
    const rows = [
      {
        name: "bot",
        serving: {
          chain_id: "c",
          depth: 2,
          requester: "lead",
          deadline_at_ms: 9,
          started_at_ms: 5,
          queued_ms: 1,
          source: "mcp",
        },
      },
      { name: "idle", serving: null },
      { name: 4, serving: { chain_id: "c" } },
      { name: "odd", serving: { chain_id: 3, depth: "x", started_at_ms: -1 } },
      "junk",
    ] as unknown as WorkRow[];
    const prompts = new Map([[runningKey("bot", "c", 2), "review this"]]);
    const none = { ask_id: null, parent_ask_id: null };
    expect(runningFromWorkState(rows, prompts)).toEqual([
      {
        target: "bot",
        ...none,
        chain_id: "c",
        depth: 2,
        requester: "lead",
        started_at_ms: 5,
        queued_ms: 1,
        source: "mcp",
        prompt: "review this",
      },
      {
        target: "odd",
        ...none,
        chain_id: null,
        depth: null,
        requester: null,
        started_at_ms: null,
        queued_ms: null,
        source: null,
        prompt: null,
      },
    ]);
    expect(runningFromWorkState(undefined)).toEqual([]);
  });
});

describe("asks waiting for their turn", () => {
  // lead's turn runs (chain c9, since 100); it asked dev, who is busy: the ask waits since 150.
  // Behind it in dev's queue waits a chat message from the user (chain u1, since 160).
  const board = [
    {
      name: "lead",
      serving: {
        chain_id: "c9",
        depth: 1,
        requester: null,
        started_at_ms: 100,
        queued_ms: 0,
        source: "ui",
      },
    },
    {
      name: "dev",
      serving: {
        chain_id: "c8",
        depth: 1,
        requester: null,
        started_at_ms: 90,
        queued_ms: 0,
        source: "file",
      },
      waiting: [
        {
          chain_id: "c9",
          depth: 2,
          requester: "lead",
          since_ms: 150,
          source: "mcp",
          prompt: "check it",
        },
        { chain_id: "u1", depth: 1, requester: null, since_ms: 160, source: "ui" },
      ],
    },
  ] as unknown as WorkRow[];

  it("are read off the board, oldest first, as hops that wait", () => {
    const hops = runningFromWorkState(board);
    expect(
      hops.filter((h) => h.queued).map((h) => [h.target, h.chain_id, h.started_at_ms, h.prompt]),
    ).toEqual([
      ["dev", "c9", 150, "check it"],
      ["dev", "u1", 160, null],
    ]);
  });

  it("nest under the turn that asked them, count as queued, and a waiting chat is never folded", () => {
    const chat = (at: number) =>
      row({
        source: "ui",
        requester: null,
        target: "dev",
        chain_id: `d${at}`,
        depth: 1,
        at_ms: at,
        duration_ms: 1,
      });
    const items = buildTimeline([chat(10), chat(20)], runningFromWorkState(board), { nameOf });
    const c9 = chains(items).find((i) => i.chainId === "c9")!;
    expect(shape(c9.root)).toEqual({ lead: ["dev"] });
    expect(c9.root.children[0].state).toBe("queued");
    expect(c9.root.children[0].outcome).toBe("queued");
    expect([c9.running, c9.queued]).toEqual([1, 1]);
    const waitingChat = chains(items).find((i) => i.chainId === "u1")!;
    expect(waitingChat.root.state).toBe("queued");
    expect(items.map((i) => i.kind)).toEqual(["chain", "chain", "chain", "chats"]);
  });

  it("skip what makes no sense in a row's waiting list", () => {
    const rows = [
      { name: "dev", waiting: "lots" },
      {
        name: "qa",
        waiting: [null, 3, { chain_id: 7, depth: "x", since_ms: -5, requester: {}, prompt: 4 }],
      },
    ] as unknown as WorkRow[];
    expect(runningFromWorkState(rows)).toEqual([
      {
        target: "qa",
        ask_id: null,
        parent_ask_id: null,
        chain_id: null,
        depth: null,
        requester: null,
        started_at_ms: null,
        queued_ms: null,
        source: null,
        prompt: null,
        queued: true,
      },
    ]);
  });
});

describe("the chat cell of a hop's agent", () => {
  const layouts = {
    version: 1,
    active_tab: "t1",
    tabs: [
      {
        id: "t1",
        title: "Main",
        root: {
          type: "leaf",
          id: "L1",
          agent: "id-sh",
          view: "terminal",
          agent_was_running: false,
          conversation_id: null,
        },
      },
      {
        id: "t2",
        title: "Two",
        root: {
          type: "split",
          id: "S",
          direction: "row",
          sizes: [1, 1],
          children: [
            {
              type: "leaf",
              id: "L2",
              agent: "id-bot",
              view: "terminal",
              agent_was_running: false,
              conversation_id: null,
            },
            {
              type: "leaf",
              id: "L3",
              agent: "id-bot",
              view: "chat",
              agent_was_running: false,
              conversation_id: null,
            },
          ],
        },
      },
    ],
  } as Layouts;
  const agents = [
    { id: "id-bot", name: "bot", node_id: null },
    { id: "id-live", name: "live", node_id: "L9" },
    { id: "id-none", name: "none", node_id: null },
  ];

  it("is the live session's cell, else a chat cell bound to it, else none", () => {
    expect(cellOfAgent("live", agents, layouts)).toBe("L9");
    expect(cellOfAgent("bot", agents, layouts)).toBe("L3");
    expect(cellOfAgent("none", agents, layouts)).toBeNull();
    expect(cellOfAgent("ghost", agents, layouts)).toBeNull();
    expect(cellOfAgent("bot", agents, null)).toBeNull();
  });
});

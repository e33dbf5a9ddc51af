// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { store } from "../model/state";
import type { Usage, WorkState } from "../model/types";
import { WorkStatePanel } from "./board";
import { fakeApi, settle, type FakeApi } from "./fakeapi";
import { agentRow, workRow } from "./testdata";

let fake: FakeApi;
let board: WorkStatePanel;
let shown: string[];
let state: WorkState;

beforeEach(async () => {
  store.agents = [agentRow("lead"), agentRow("dev", { workspace: "worktree" })];
  state = {
    agents: [
      workRow("lead", { status: "working", intent: "plan the release", node_id: "leaf-1" }),
      workRow("dev", { live: false }),
    ],
    chains: [
      {
        chain_id: "c1",
        depth: 2,
        root_requester: null,
        root_target: "id-lead",
        agents: ["id-lead", "id-dev"],
        started_at_ms: Date.now() - 10_000,
        usage: null as unknown as Usage, // a chain whose usage is not known
      },
    ],
  };
  fake = fakeApi({
    "workstate.get": () => state,
    "workspace.summary": () => ({ files: 2, ahead: 1 }),
  });
  shown = [];
  board = new WorkStatePanel((chain) => shown.push(chain));
  document.body.replaceChildren(board.el);
  await board.refresh();
  await settle();
});

afterEach(() => fake.restore());

const row = (name: string) =>
  board.el.querySelector<HTMLElement>(`.board-row[data-agent="${name}"]`)!;

describe("the work-state board", { timeout: 5000 }, () => {
  it("shows each agent's row and the chains in flight", () => {
    expect(row("lead").dataset.status).toBe("working");
    expect(row("lead").textContent).toContain("intent plan the release");
    expect(row("dev").querySelector(".pill.status")?.textContent).toBe("stopped");
    expect(board.el.querySelector(".chains .chain-who")?.textContent).toBe("you → lead");
  });

  it("opens the delegation log on a chain from its id", () => {
    board.el.querySelector<HTMLButtonElement>('.chain button.chain-id[data-chain="c1"]')!.click();
    expect(shown).toEqual(["c1"]);
  });

  it("says what a worktree agent changed, under its head", () => {
    expect(fake.paramsOf("workspace.summary")).toEqual([{ name: "dev" }]);
    const line = row("dev").querySelector(".board-head + .worktree");
    expect(line?.textContent).toBe("worktree: 2 file(s) changed, 1 commit(s) ahead");
  });

  it("patches a row in place when the state changes", async () => {
    const before = row("lead");
    state = {
      agents: [workRow("lead", { status: "blocked", node_id: "leaf-1" }), state.agents[1]],
      chains: [],
    };
    await board.refresh();
    await settle();
    expect(row("lead")).toBe(before);
    expect(row("lead").dataset.status).toBe("blocked");
    expect(board.el.querySelector(".chains")).toBeNull();
  });
});

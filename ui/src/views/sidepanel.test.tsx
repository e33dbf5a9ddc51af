// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { store } from "../model/state";
import { fakeApi, settle, type FakeApi } from "./fakeapi";
import { SidePanel } from "./sidepanel";
import { agentRow, loggedAsk } from "./testdata";

let fake: FakeApi;
let panel: SidePanel;

beforeEach(async () => {
  store.agents = [agentRow("lead")];
  store.layouts = null;
  fake = fakeApi({
    "workstate.get": () => ({ agents: [] }),
    "delegations.recent": () => [loggedAsk({ target: "lead", chain_id: "c1", depth: 1 })],
  });
  panel = new SidePanel();
  document.body.replaceChildren(panel.el);
  await settle();
});

afterEach(() => fake.restore());

const tab = (name: string) =>
  panel.el.querySelector<HTMLButtonElement>(`.panel-tab[data-panel="${name}"]`)!;
const content = () => panel.el.querySelector(".panel-content")!;

describe("the side panel", { timeout: 5000 }, () => {
  it("opens on the board, its tab active", () => {
    expect(panel.active).toBe("board");
    expect(tab("board").classList.contains("active")).toBe(true);
    expect([...content().children]).toEqual([panel.board.el]);
    expect(fake.paramsOf("workstate.get")).toHaveLength(1);
  });

  it("shows the delegation log from its tab, and refreshes it", async () => {
    tab("log").click();
    await settle();
    expect(panel.active).toBe("log");
    expect(tab("log").classList.contains("active")).toBe(true);
    expect(tab("board").classList.contains("active")).toBe(false);
    expect([...content().children]).toEqual([panel.log.el]);
    expect(fake.paramsOf("delegations.recent")).toHaveLength(1);
  });

  it("shows the agents' editor, and the log on one chain from the board", async () => {
    tab("agents").click();
    await settle();
    expect([...content().children]).toEqual([panel.agents.el]);
    panel.showChain("c1");
    await settle();
    expect(panel.active).toBe("log");
    expect(panel.log.shownChain).toBe("c1");
    expect([...content().children]).toEqual([panel.log.el]);
  });
});

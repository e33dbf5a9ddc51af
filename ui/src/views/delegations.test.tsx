// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { store } from "../model/state";
import { DelegationLog } from "./delegations";
import { fakeApi, settle, type FakeApi } from "./fakeapi";
import { agentRow, loggedAsk } from "./testdata";

const root = loggedAsk({ target: "lead", requester: null, source: "ui", chain_id: "c1", depth: 1 });
const nested = loggedAsk({ target: "dev", requester: "id-lead", chain_id: "c1", depth: 2 });
const other = loggedAsk({ target: "qa", requester: "id-lead", chain_id: "c2", depth: 1 });

let fake: FakeApi;
let log: DelegationLog;

beforeEach(async () => {
  store.agents = ["lead", "dev", "qa"].map((name) => agentRow(name));
  store.layouts = null;
  fake = fakeApi({
    "delegations.recent": () => [nested, other, root],
    "workstate.get": () => ({ agents: [] }),
  });
  log = new DelegationLog();
  document.body.replaceChildren(log.el);
  await log.refresh();
  await settle();
});

afterEach(() => fake.restore());

const select = () => log.el.querySelector<HTMLSelectElement>("select.timeline-agent")!;
const hops = () => [...log.el.querySelectorAll<HTMLDetailsElement>("details.deleg")];

describe("the delegation timeline", { timeout: 5000 }, () => {
  it("nests an ask under the ask that made it, and lists every agent in the filter", () => {
    const chain = log.el.querySelector('.tl-chain[data-chain="c1"]')!;
    expect(chain.querySelector(".tl-children .deleg")?.getAttribute("data-target")).toBe("dev");
    expect(chain.querySelector(".deleg-who")?.textContent).toBe("you → lead");
    expect([...select().options].map((o) => o.value)).toEqual(["", "dev", "lead", "qa"]);
  });

  it("keeps the filter, the rows and their open state across a refresh", async () => {
    const before = select();
    const row = hops()[0];
    row.open = true;
    row.dispatchEvent(new Event("toggle"));
    await log.refresh();
    await settle();
    expect(fake.paramsOf("delegations.recent")).toHaveLength(2);
    expect(select()).toBe(before); // the same element: an open <select> stays open
    expect(hops()[0]).toBe(row); // patched in place, not built again
    expect(hops()[0].open).toBe(true);
  });

  it("shows only the chains an agent takes part in once picked in the filter", async () => {
    select().value = "qa";
    select().dispatchEvent(new Event("change", { bubbles: true }));
    await settle();
    const matching = hops().filter((d) => !d.classList.contains("dim"));
    expect(matching.map((d) => d.dataset.target)).toEqual(["qa"]);
    expect(log.el.querySelector('.tl-chain[data-chain="c1"]')).toBeNull();
  });

  it("shows one chain alone, with its totals, from its chain id, and back", async () => {
    log.el.querySelector<HTMLButtonElement>('button.chain-id[data-chain="c1"]')!.click();
    await settle();
    expect(fake.paramsOf("delegations.recent").at(-1)).toEqual({ limit: 1000 });
    expect(log.shownChain).toBe("c1");
    expect(log.el.querySelector(".chain-filter .chain-totals")?.textContent).toContain("2 asks");
    log.el.querySelector<HTMLButtonElement>("button.chain-clear")!.click();
    await settle();
    expect(log.el.querySelector(".chain-filter")).toBeNull();
    expect(fake.paramsOf("delegations.recent").at(-1)).toEqual({ limit: 100 });
  });

  it("shows a running turn from the board, counting up", async () => {
    fake.answer("workstate.get", () => ({
      agents: [
        {
          agent_id: "id-qa",
          name: "qa",
          status: "working",
          serving: { chain_id: "c3", depth: 1, requester: null, started_at_ms: Date.now() - 5000 },
        },
      ],
    }));
    await log.refresh();
    await settle();
    const running = log.el.querySelector<HTMLElement>('details.deleg[data-state="running"]');
    expect(running?.dataset.target).toBe("qa");
    expect(log.el.querySelector(".timeline-running")?.textContent).toBe("1 running");
    expect(running?.querySelector(".deleg-duration")?.textContent).toMatch(/^5\.\d s$/);
  });
});

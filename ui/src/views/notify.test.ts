// @vitest-environment happy-dom
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

import { store } from "../model/state";
import { fakeApi, type FakeApi } from "./fakeapi";
import { notifyAgentEvents } from "./notify";
import { agentRow } from "./testdata";

/** The browser's Notification, granted: each one shown is recorded as "title: body". */
const shown: string[] = [];
class FakeNotification {
  static permission = "granted";
  onclick: (() => void) | null = null;
  constructor(title: string, options: { body: string }) {
    shown.push(`${title}: ${options.body}`);
  }
  close(): void {}
}

let fake: FakeApi;
let forget: () => void;

beforeAll(() => {
  forget = notifyAgentEvents(); // once: the api keeps its subscribers
});

beforeEach(() => {
  shown.length = 0;
  vi.stubGlobal("Notification", FakeNotification);
  vi.spyOn(document, "hasFocus").mockReturnValue(false); // the user looks elsewhere
  store.agents = [agentRow("lead")];
  fake = fakeApi({});
  forget();
});

afterEach(() => {
  fake.restore();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("desktop notifications on the agents' events", { timeout: 5000 }, () => {
  it("shows a reply's preview on one line", () => {
    fake.emit("AgentReplied", { agent_id: "id-lead", agent_name: "lead", preview: "all\n  done" });
    expect(shown).toEqual(["lead: all done"]);
  });

  it("says an agent is blocked once, until it is blocked again after another status", () => {
    const status = (s: string) => fake.emit("WorkStateChanged", { agent_id: "id-lead", status: s });
    status("blocked");
    status("blocked");
    status("working");
    status("blocked");
    expect(shown).toEqual(["lead: is blocked", "lead: is blocked"]);
  });

  it("forgets the statuses seen when another project opens", () => {
    fake.emit("WorkStateChanged", { agent_id: "id-lead", status: "blocked" });
    forget();
    fake.emit("WorkStateChanged", { agent_id: "id-lead", status: "blocked" });
    expect(shown).toEqual(["lead: is blocked", "lead: is blocked"]);
  });

  it("says nothing while the window has the focus", () => {
    vi.spyOn(document, "hasFocus").mockReturnValue(true);
    fake.emit("AgentReplied", { agent_id: "id-lead", agent_name: "lead", preview: "done" });
    expect(shown).toEqual([]);
  });
});

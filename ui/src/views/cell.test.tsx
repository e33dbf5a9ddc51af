// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { forgetTranscripts } from "../model/chatlog";
import { store } from "../model/state";
import type { Leaf } from "../model/types";
import { CellView } from "./cell";
import { fakeApi, settle, type FakeApi } from "./fakeapi";
import { agentRow, profile } from "./testdata";

let fake: FakeApi;
let cell: CellView;
const act = vi.fn();

function leaf(agent: string | null): Leaf {
  return {
    type: "leaf",
    id: "L1",
    agent,
    view: "chat",
    agent_was_running: false,
    conversation_id: null,
  };
}

function show(agent: string | null): void {
  cell = new CellView(leaf(agent), act);
  document.body.replaceChildren(cell.el);
}

beforeEach(() => {
  forgetTranscripts();
  act.mockReset();
  store.agents = [
    agentRow("bot", { live: true, node_id: "L1", status: "working" }),
    agentRow("dev"),
  ];
  store.profiles = [profile("claude")];
  fake = fakeApi({
    "chat.history": () => ({ entries: [], seq: 0, queued: 0 }),
    "delegations.recent": () => [],
    "session.stop": () => ({}),
    "session.launch": () => ({}),
    "agents.list": () => store.agents,
  });
});

afterEach(() => {
  cell.dispose();
  fake.restore();
});

const $ = <T extends Element = HTMLElement>(sel: string) => cell.el.querySelector<T>(sel);
const menuItem = (id: string) =>
  document.querySelector<HTMLButtonElement>(`.menu button[data-item="${id}"]`);

describe("a cell's header", { timeout: 5000 }, () => {
  it("shows its agent with its state dot, and its chat in the body", () => {
    show("id-bot");
    expect($(".cell-title strong")?.textContent).toBe("bot");
    expect($(".status-dot")?.className).toBe("status-dot working");
    expect($(".cell-title .muted")?.textContent).toBe(" claude · chat");
    expect($(".cell-body > .chat-view")).not.toBeNull();
    expect($("button.stop-agent")).not.toBeNull();
    expect(cell.el.getAttribute("aria-label")).toBe("bot (chat)");
  });

  it("shows a stopped agent's dot off, and Start launches it here", async () => {
    show("id-dev");
    expect($(".status-dot")?.className).toBe("status-dot off");
    expect($("button.stop-agent")).toBeNull();
    [...cell.el.querySelectorAll("button")].find((b) => b.textContent === "Start")!.click();
    await settle();
    expect(fake.paramsOf("session.launch")[0]).toMatchObject({ name: "dev", node_id: "L1" });
  });

  it("asks the workspace to split, maximise and close", () => {
    show("id-bot");
    $<HTMLButtonElement>('button[aria-label="Split right"]')!.click();
    $<HTMLButtonElement>("button.cell-maximize")!.click();
    $<HTMLButtonElement>('button[aria-label="Close cell"]')!.click();
    expect(act.mock.calls).toEqual([
      ["splitRight", "L1"],
      ["maximize", "L1"],
      ["close", "L1"],
    ]);
    cell.setMaximized(true);
    expect($("button.cell-maximize")?.getAttribute("aria-pressed")).toBe("true");
    expect($("button.cell-maximize")?.getAttribute("aria-label")).toBe("Restore");
  });

  it("opens the picker in the body from its button, and back", () => {
    show("id-bot");
    const picker = [...cell.el.querySelectorAll("button")].find(
      (b) => b.textContent === "Agent ▾",
    )!;
    picker.click();
    expect($(".cell-picker-title")?.textContent).toBe("Show another agent here");
    expect($(".cell-body > .cell-picker .picker")).not.toBeNull();
    expect(picker.getAttribute("aria-pressed")).toBe("true");
    picker.click();
    expect($(".cell-body > .chat-view")).not.toBeNull();
  });

  it("offers its actions in the ⋯ menu, whose Stop stops the agent", async () => {
    show("id-bot");
    $<HTMLButtonElement>("button.cell-more")!.click();
    expect($("button.cell-more")?.getAttribute("aria-expanded")).toBe("true");
    expect(menuItem("splitDown")).not.toBeNull();
    menuItem("stop")!.click();
    await settle();
    expect(fake.paramsOf("session.stop")).toEqual([{ name: "bot" }]);
    $<HTMLButtonElement>("button.cell-more")!.click();
    menuItem("equalize")!.click();
    expect(act).toHaveBeenCalledWith("equalize", "L1");
  });

  it("says so in an empty cell, with the picker", () => {
    show(null);
    expect($(".cell-title")?.textContent).toBe("Empty cell");
    expect($(".cell-picker-title")?.textContent).toBe("Pick an agent");
  });
});

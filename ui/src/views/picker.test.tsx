// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { store } from "../model/state";
import type { AgentRow, View } from "../model/types";
import { bannerHost, hide } from "./banner";
import { HostPill } from "./hostpill";
import { elementOf } from "./element";
import { agentPicker } from "./picker";
import { agentRow, profile } from "./testdata";

let picked: [string, View][];
let picker: HTMLElement;

function show(current: string | null = null): void {
  picker = agentPicker("leaf-1", current, (a: AgentRow, view: View) => picked.push([a.name, view]));
  document.body.replaceChildren(picker, bannerHost());
}

beforeEach(() => {
  picked = [];
  store.profiles = [profile("claude")];
  store.layouts = null;
  store.agents = [
    agentRow("lead"),
    agentRow("dev", { live: true, status: "working", node_id: "leaf-2" }),
    agentRow("qa", { mode: "terminal" }),
  ];
  show();
});

afterEach(() => hide());

const row = (name: string) => picker.querySelector<HTMLElement>(`[data-agent="${name}"]`)!;
const buttons = (name: string) =>
  [...row(name).querySelectorAll("button")].map((b) => b.textContent);
const press = (key: string) =>
  document.activeElement!.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));

describe("the agent picker", { timeout: 5000 }, () => {
  it("lists every agent, one live in another cell disabled with go to and move here", () => {
    expect(picker.getAttribute("role")).toBe("listbox");
    expect([...picker.querySelectorAll("[role=option]")].map((r) => r.textContent)).toEqual([
      "leadclaude · chatterminal",
      "devclaude · chatGo to cellMove here",
      "qaclaude · terminalchat",
    ]);
    expect(row("dev").classList.contains("disabled")).toBe(true);
    expect(row("dev").querySelector<HTMLButtonElement>(".picker-main")!.disabled).toBe(true);
    expect(row("dev").querySelector(".status-dot")?.className).toBe("status-dot working");
    expect(buttons("lead")).toEqual(["leadclaude · chat", "terminal"]);
  });

  it("picks an agent in its view or the other one", () => {
    row("lead").querySelector<HTMLButtonElement>(".picker-main")!.click();
    row("qa").querySelector<HTMLButtonElement>(".btn.small")!.click();
    expect(picked).toEqual([
      ["lead", "chat"],
      ["qa", "chat"],
    ]);
  });

  it("has one tab stop, on the current agent, which the arrows move; Enter picks", () => {
    show("id-qa");
    expect(row("qa").tabIndex).toBe(0);
    expect(row("qa").getAttribute("aria-selected")).toBe("true");
    expect(row("lead").tabIndex).toBe(-1);
    row("qa").focus();
    press("Home");
    expect(document.activeElement).toBe(row("lead"));
    expect(row("lead").getAttribute("tabindex")).toBe("0");
    expect(row("qa").getAttribute("tabindex")).toBe("-1");
    press("Enter");
    expect(picked).toEqual([["lead", "chat"]]);
  });

  it("says the cell is gone when Go to cell finds no cell", () => {
    [...row("dev").querySelectorAll("button")].find((b) => b.textContent === "Go to cell")!.click();
    expect(bannerHost().querySelector(".banner.notice")?.textContent).toMatch(/no longer exists/);
  });

  it("says there is no agent yet", () => {
    store.agents = [];
    show();
    expect(picker.className).toBe("picker-empty");
    expect(picker.textContent).toMatch(/^No agents yet/);
  });
});

describe("the host pill of a cell's header", () => {
  it("is the agent's host and its link, or nothing for a local agent", () => {
    const pill = elementOf(
      <HostPill agent={agentRow("far", { host: "box", link: "reconnecting" })} />,
    )!;
    expect(pill.className).toBe("badge host warn");
    expect(pill.dataset.host).toBe("box");
    expect(pill.textContent).toBe("box · reconnecting");
    expect(elementOf(<HostPill agent={agentRow("near")} />)).toBeNull();
  });
});

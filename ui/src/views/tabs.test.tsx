// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import type { LayoutOp } from "../model/api.gen";
import { store } from "../model/state";
import type { Layouts } from "../model/types";
import { fakeApi, settle, type FakeApi } from "./fakeapi";
import { TabBar } from "./tabs";

const leaf = (id: string) => ({ type: "leaf", id, agent: null, view: "terminal" }) as never;

let fake: FakeApi;
let bar: TabBar;
let unsubscribe: () => void;

/** The server's side of layouts.apply, on the two tabs "Main" and "Tab 2". */
function apply(op: LayoutOp): { layouts: Layouts } {
  const l = store.layouts!;
  if (op.op === "set_active_tab") return { layouts: { ...l, active_tab: op.tab_id } };
  if (op.op === "close_tab") {
    const tabs = l.tabs.filter((t) => t.id !== op.tab_id);
    return { layouts: { ...l, tabs, active_tab: tabs[0].id } };
  }
  if (op.op === "rename_tab") {
    const tabs = l.tabs.map((t) => (t.id === op.tab_id ? { ...t, title: op.title } : t));
    return { layouts: { ...l, tabs } };
  }
  if (op.op === "add_tab") {
    const tab = { id: "t3", title: op.title ?? "", root: leaf("l3") };
    return { layouts: { ...l, tabs: [...l.tabs, tab], active_tab: "t3" } };
  }
  throw new Error(`no fake for ${op.op}`);
}

beforeEach(() => {
  store.layouts = {
    version: 1,
    active_tab: "t1",
    tabs: [
      { id: "t1", title: "Main", root: leaf("l1") },
      { id: "t2", title: "Tab 2", root: leaf("l2") },
    ],
  };
  fake = fakeApi({ "layouts.apply": (p) => apply(p as LayoutOp) });
  bar = new TabBar();
  unsubscribe = store.subscribe(() => bar.render()); // as main.ts does
  document.body.replaceChildren(bar.el);
  bar.render();
});

afterEach(() => {
  unsubscribe();
  fake.restore();
});

const tab = (id: string) => bar.el.querySelector<HTMLElement>(`.tab[data-tab="${id}"]`)!;
const titles = () => [...bar.el.querySelectorAll(".tab-title")].map((t) => t.textContent);
const press = (key: string) =>
  document.activeElement!.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));

describe("the tab bar", { timeout: 5000 }, () => {
  it("shows each tab, the active one selected and the one tab stop", () => {
    expect(titles()).toEqual(["Main", "Tab 2"]);
    expect(tab("t1").getAttribute("aria-selected")).toBe("true");
    expect(tab("t1").classList.contains("active")).toBe(true);
    expect(tab("t1").tabIndex).toBe(0);
    expect(tab("t2").tabIndex).toBe(-1);
  });

  it("switches to a tab on click", async () => {
    tab("t2").click();
    await settle();
    expect(fake.paramsOf("layouts.apply")).toEqual([{ op: "set_active_tab", tab_id: "t2" }]);
    expect(tab("t2").getAttribute("aria-selected")).toBe("true");
  });

  it("moves the tab stop with the arrows and shows the tab on Enter", async () => {
    tab("t1").focus();
    press("ArrowRight");
    expect(document.activeElement).toBe(tab("t2"));
    expect(tab("t2").tabIndex).toBe(0);
    expect(tab("t1").tabIndex).toBe(-1);
    expect(tab("t1").getAttribute("aria-selected")).toBe("true"); // moved, not shown yet
    press("Enter");
    await settle();
    expect(tab("t2").getAttribute("aria-selected")).toBe("true");
    expect(document.activeElement).toBe(tab("t2"));
  });

  it("closes a tab from its button", async () => {
    tab("t2").querySelector<HTMLButtonElement>(".tab-close")!.click();
    await settle();
    expect(fake.paramsOf("layouts.apply")).toEqual([{ op: "close_tab", tab_id: "t2" }]);
    expect(titles()).toEqual(["Main"]);
    expect(bar.el.querySelector(".tab-close")).toBeNull(); // the last tab stays
  });

  it("renames a tab in place; a render meanwhile keeps what is typed", async () => {
    tab("t2").querySelector(".tab-title")!.dispatchEvent(new MouseEvent("dblclick"));
    const input = bar.el.querySelector<HTMLInputElement>("input.tab-rename")!;
    expect(document.activeElement).toBe(input);
    input.value = "Review";
    store.notify();
    expect(bar.el.querySelector("input.tab-rename")).toBe(input);
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    await settle();
    expect(fake.paramsOf("layouts.apply")).toEqual([
      { op: "rename_tab", tab_id: "t2", title: "Review" },
    ]);
    expect(titles()).toEqual(["Main", "Review"]);
  });

  it("drops the typed title on Escape, from F2", () => {
    tab("t1").focus();
    press("F2");
    const input = bar.el.querySelector<HTMLInputElement>("input.tab-rename")!;
    expect(input.value).toBe("Main");
    input.value = "Other";
    press("Escape");
    expect(fake.calls).toEqual([]);
    expect(titles()).toEqual(["Main", "Tab 2"]);
    expect(document.activeElement).toBe(tab("t1"));
  });

  it("adds a tab named after the count", async () => {
    bar.el.querySelector<HTMLButtonElement>(".tab-add")!.click();
    await settle();
    expect(fake.paramsOf("layouts.apply")).toEqual([{ op: "add_tab", title: "Tab 3" }]);
    expect(titles()).toEqual(["Main", "Tab 2", "Tab 3"]);
  });
});

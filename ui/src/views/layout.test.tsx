// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { store } from "../model/state";
import type { Layouts, LayoutNode, Leaf, Split } from "../model/types";
import { fakeApi, settle, type FakeApi } from "./fakeapi";
import { Workspace } from "./layout";

const leaf = (id: string): Leaf => ({
  type: "leaf",
  id,
  agent: null,
  view: "terminal",
  agent_was_running: false,
  conversation_id: null,
});
const split = (
  id: string,
  direction: Split["direction"],
  sizes: number[],
  ...children: LayoutNode[]
) => ({ type: "split", id, direction, sizes, children }) as Split;

function layouts(root: LayoutNode): Layouts {
  return { version: 1, tabs: [{ id: "t1", title: "Main", root }], active_tab: "t1" };
}

let fake: FakeApi;
let ws: Workspace;
let unsubscribe: () => void;

beforeEach(() => {
  localStorage.clear();
  store.agents = [];
  fake = fakeApi({
    // The server takes the resize as asked.
    "layouts.apply": (p) => {
      const root = store.layouts!.tabs[0].root as Split;
      return { layouts: layouts({ ...root, sizes: p.sizes as number[] }) };
    },
  });
  ws = new Workspace();
  document.body.replaceChildren(ws.el);
  unsubscribe = store.subscribe(() => ws.render());
});

afterEach(() => {
  unsubscribe();
  ws.reset();
  fake.restore();
});

function show(root: LayoutNode): void {
  store.layouts = layouts(root);
  ws.render();
}

const cell = (id: string) => ws.el.querySelector<HTMLElement>(`.cell[data-leaf="${id}"]`)!;
const panes = (splitId: string) => [
  ...ws.el.querySelectorAll<HTMLElement>(`.split[data-split="${splitId}"] > .pane`),
];

/** Drag `divider` along x in a split 1000 px wide (happy-dom lays nothing out). */
function drag(divider: HTMLElement, from: number, to: number): void {
  Object.defineProperty(divider.parentElement, "clientWidth", { value: 1000 });
  const at = (type: string, clientX: number) =>
    divider.dispatchEvent(new PointerEvent(type, { clientX, pointerId: 1, bubbles: true }));
  at("pointerdown", from);
  at("pointermove", to);
  at("pointerup", to);
}

describe("the workspace's layout", { timeout: 5000 }, () => {
  it("renders a split's children in panes sized by the split, a divider between each two", () => {
    show(
      split(
        "s1",
        "row",
        [0.25, 0.75],
        leaf("a"),
        split("s2", "column", [0.5, 0.5], leaf("b"), leaf("c")),
      ),
    );
    const [left, right] = panes("s1");
    expect([left.style.flexGrow, right.style.flexGrow]).toEqual(["0.25", "0.75"]);
    expect(left.firstElementChild).toBe(cell("a"));
    expect(right.querySelector(".split.column")).not.toBeNull();
    expect(panes("s2").map((p) => p.firstElementChild)).toEqual([cell("b"), cell("c")]);
    const dividers = [...ws.el.querySelectorAll<HTMLElement>(".divider")];
    expect(dividers.map((d) => [d.className, d.getAttribute("aria-orientation")])).toEqual([
      ["divider row", "vertical"],
      ["divider column", "horizontal"],
    ]);
    expect(ws.el.getAttribute("aria-labelledby")).toBe("tab-t1");
  });

  it("keeps each cell's element when the tree changes around it", () => {
    show(split("s1", "row", [0.5, 0.5], leaf("a"), leaf("b")));
    const a = cell("a");
    show(split("s1", "row", [0.4, 0.3, 0.3], leaf("a"), leaf("d"), leaf("b")));
    expect(cell("a")).toBe(a);
    expect(panes("s1").map((p) => p.firstElementChild?.getAttribute("data-leaf"))).toEqual([
      "a",
      "d",
      "b",
    ]);
    show(leaf("a")); // the others closed: the one cell in a pane of its own
    expect(ws.el.querySelector(":scope > .pane > .cell")).toBe(a);
    expect(ws.el.querySelector(".divider")).toBeNull();
  });

  it("says so when there is no tab", () => {
    store.layouts = { version: 1, tabs: [], active_tab: "" };
    ws.render();
    expect(ws.el.querySelector(".cell-placeholder")?.textContent).toBe("No tab");
  });

  it("resizes the split its divider is dragged in, the new sizes sent once let go", async () => {
    show(split("s1", "row", [0.5, 0.5], leaf("a"), leaf("b")));
    drag(ws.el.querySelector<HTMLElement>(".divider")!, 500, 600);
    expect(fake.paramsOf("layouts.apply")).toEqual([
      { op: "resize", split_id: "s1", sizes: [0.6, 0.4] },
    ]);
    await settle();
    expect(panes("s1").map((p) => p.style.flexGrow)).toEqual(["0.6", "0.4"]);
  });

  it("sends nothing for a click on a divider, and equal sizes for a double-click", () => {
    show(split("s1", "row", [0.75, 0.25], leaf("a"), leaf("b")));
    const divider = ws.el.querySelector<HTMLElement>(".divider")!;
    drag(divider, 500, 500);
    expect(fake.paramsOf("layouts.apply")).toEqual([]);
    divider.dispatchEvent(new MouseEvent("dblclick", { bubbles: true }));
    expect(fake.paramsOf("layouts.apply")).toEqual([
      { op: "resize", split_id: "s1", sizes: [0.5, 0.5] },
    ]);
  });

  it("maximises one cell over the others, and restores them on the same command", async () => {
    show(split("s1", "row", [0.5, 0.5], leaf("a"), leaf("b")));
    await ws.run("maximize", "b");
    expect(ws.maximized).toBe(true);
    expect(ws.el.classList.contains("has-maximized")).toBe(true);
    expect([...ws.el.querySelectorAll(".cell.maximized")]).toEqual([cell("b")]);
    expect(ws.focused).toBe("b");
    await ws.run("maximize", "b");
    expect(ws.el.classList.contains("has-maximized")).toBe(false);
    expect(ws.el.querySelector(".cell.maximized")).toBeNull();
  });
});

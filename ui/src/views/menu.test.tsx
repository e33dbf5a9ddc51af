// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { closeMenu, type MenuItem, openMenu } from "./menu";

let ran: string[];
let opener: HTMLButtonElement;

const items = (): MenuItem[] => [
  { label: "Split right", keys: "Alt+Shift+R", id: "right", run: () => ran.push("right") },
  { label: "Paste", disabled: true, id: "paste", run: () => ran.push("paste") },
  { label: "Split down", id: "down", run: () => ran.push("down") },
  { label: "Close cell", id: "close", run: () => ran.push("close") },
];

beforeEach(() => {
  ran = [];
  opener = document.createElement("button");
  document.body.replaceChildren(opener);
  opener.focus();
});

afterEach(() => closeMenu());

const menu = () => document.querySelector<HTMLElement>('[role="menu"]');
const focused = () => (document.activeElement as HTMLElement).dataset.item;
const press = (key: string) =>
  document.activeElement!.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));

describe("a popup menu", { timeout: 5000 }, () => {
  it("opens under its button with the focus on the first item", () => {
    openMenu(opener, items(), "Cell actions", opener);
    expect(menu()?.getAttribute("aria-label")).toBe("Cell actions");
    expect(opener.getAttribute("aria-expanded")).toBe("true");
    expect(focused()).toBe("right");
    expect(menu()?.querySelector('[data-item="right"] .menu-keys')?.textContent).toBe(
      "Alt+Shift+R",
    );
    expect(menu()?.querySelector<HTMLButtonElement>('[data-item="paste"]')?.disabled).toBe(true);
  });

  it("walks the enabled items with the arrows, Home and End, wrapping", () => {
    openMenu(opener, items(), "Cell actions", opener);
    press("ArrowDown");
    expect(focused()).toBe("down"); // Paste is disabled: skipped
    press("End");
    expect(focused()).toBe("close");
    press("ArrowDown");
    expect(focused()).toBe("right");
    press("ArrowUp");
    expect(focused()).toBe("close");
    press("Home");
    expect(focused()).toBe("right");
  });

  it("closes on Escape and gives the focus back", () => {
    openMenu(opener, items(), "Cell actions", opener);
    press("Escape");
    expect(menu()).toBeNull();
    expect(opener.getAttribute("aria-expanded")).toBe("false");
    expect(document.activeElement).toBe(opener);
    expect(ran).toEqual([]);
  });

  it("runs an item on click and closes", () => {
    openMenu(opener, items(), "Cell actions", opener);
    menu()!.querySelector<HTMLButtonElement>('[data-item="down"]')!.click();
    expect(ran).toEqual(["down"]);
    expect(menu()).toBeNull();
  });

  it("closes on a press outside it, and keeps one menu open at a time", () => {
    openMenu({ x: 10, y: 10 }, items(), "Terminal");
    openMenu(opener, items(), "Cell actions", opener);
    expect(document.querySelectorAll('[role="menu"]')).toHaveLength(1);
    document.body.dispatchEvent(new Event("pointerdown", { bubbles: true }));
    expect(menu()).toBeNull();
  });
});

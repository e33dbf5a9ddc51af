// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from "vitest";

import { COMMANDS, type Action } from "../model/keys";
import { CommandPalette } from "./palette";

let ran: Action[];
let palette: CommandPalette;
let before: HTMLButtonElement;

beforeEach(() => {
  ran = [];
  palette = new CommandPalette((action) => ran.push(action));
  before = document.createElement("button");
  document.body.replaceChildren(before, palette.el);
  before.focus();
});

const input = () => palette.el.querySelector<HTMLInputElement>('[role="combobox"]')!;
const options = () => [...palette.el.querySelectorAll<HTMLElement>('[role="option"]')];
const selected = () => options().find((o) => o.getAttribute("aria-selected") === "true");
const type = (text: string) => {
  input().value = text;
  input().dispatchEvent(new Event("input", { bubbles: true }));
};
const press = (key: string) =>
  input().dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));

describe("the command palette", { timeout: 5000 }, () => {
  it("opens on every command with its keys, the focus in the field", () => {
    expect(palette.isOpen).toBe(false);
    palette.toggle();
    expect(palette.isOpen).toBe(true);
    expect(document.activeElement).toBe(input());
    expect(options()).toHaveLength(COMMANDS.length);
    const split = options().find((o) => o.dataset.action === "splitRight")!;
    expect(split.querySelector(".palette-keys")?.textContent).toBe("Alt+Shift+→");
    expect(selected()).toBe(options()[0]);
    expect(input().getAttribute("aria-activedescendant")).toBe(options()[0].id);
  });

  it("filters as it is typed and moves the selection with the arrows", () => {
    palette.open();
    type("split");
    const found = options().map((o) => o.dataset.action);
    expect(found.slice(0, 2)).toEqual(["splitRight", "splitDown"]);
    expect(selected()?.dataset.action).toBe("splitRight");
    press("ArrowDown");
    expect(selected()?.dataset.action).toBe("splitDown");
    expect(input().getAttribute("aria-activedescendant")).toBe(selected()?.id);
    press("ArrowUp");
    press("ArrowUp");
    expect(selected()?.dataset.action).toBe(found.at(-1)); // wraps
    type("split zzzq");
    expect(options().map((o) => o.textContent)).toEqual(["No command matches"]);
    expect(input().hasAttribute("aria-activedescendant")).toBe(false);
  });

  it("runs the selected command on Enter, after giving the focus back", () => {
    let focusedWhenRun: Element | null = null;
    palette = new CommandPalette((action) => {
      focusedWhenRun = document.activeElement;
      ran.push(action);
    });
    document.body.append(palette.el);
    palette.open();
    type("split d");
    press("Enter");
    expect(ran).toEqual(["splitDown"]);
    expect(palette.isOpen).toBe(false);
    expect(focusedWhenRun).toBe(before);
  });

  it("runs a command on click, and closes on Escape without running one", () => {
    palette.open();
    press("Escape");
    expect(palette.isOpen).toBe(false);
    expect(document.activeElement).toBe(before);
    palette.open();
    expect(input().value).toBe("");
    options()
      .find((o) => o.dataset.action === "splitRight")!
      .click();
    expect(ran).toEqual(["splitRight"]);
  });
});

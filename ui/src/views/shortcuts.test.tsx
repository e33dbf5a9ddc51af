// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from "vitest";

import { COMMANDS, keyLabel } from "../model/keys";
import { settle } from "./fakeapi";
import { HelpButton, placeOf } from "./shortcuts";

let help: HelpButton;

beforeEach(() => {
  help = new HelpButton();
  document.body.replaceChildren(help.el);
});

const popover = () => help.el.querySelector<HTMLElement>('.help-popover[role="dialog"]')!;
const row = (action: string) => popover().querySelector(`tr[data-action="${action}"]`)!;

describe("the keyboard shortcuts sheet", { timeout: 5000 }, () => {
  it("lists every command that has keys, with its keys and where they work", () => {
    const bound = COMMANDS.filter((c) => c.bindings.length);
    expect(popover().querySelectorAll("tr")).toHaveLength(bound.length);
    const split = row("splitRight");
    expect(split.querySelector("kbd")?.textContent).toBe("Alt+Shift+→");
    expect(split.querySelector("kbd")?.getAttribute("title")).toBe("everywhere");
    expect(split.querySelectorAll("td")[1].textContent).toBe("Split right");
    const prev = COMMANDS.find((c) => c.bindings.length > 1)!;
    const keys = [...row(prev.action).querySelectorAll("kbd")].map((k) => k.textContent);
    expect(keys).toEqual(prev.bindings.map((b) => keyLabel(b.spec)));
    expect(row(prev.action).querySelector(".help-note")?.textContent).toMatch(/^ \(.+\)$/);
  });

  it("opens from its button and closes on Escape or a press elsewhere", async () => {
    expect(popover().hidden).toBe(true);
    help.el.querySelector<HTMLButtonElement>("button.help-toggle")!.click();
    await settle();
    expect(popover().hidden).toBe(false);
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
    await settle();
    expect(popover().hidden).toBe(true);
    help.toggle();
    await settle();
    popover().dispatchEvent(new Event("pointerdown", { bubbles: true })); // inside: stays
    await settle();
    expect(popover().hidden).toBe(false);
    document.body.dispatchEvent(new Event("pointerdown", { bubbles: true }));
    await settle();
    expect(popover().hidden).toBe(true);
  });
});

describe("where a key press happens", () => {
  it("is a text box, a terminal or the page", () => {
    const field = document.createElement("input");
    const box = document.createElement("input");
    box.type = "checkbox";
    const term = document.createElement("div");
    term.className = "xterm";
    const inner = document.createElement("textarea");
    term.append(inner);
    expect(placeOf(field)).toBe("editable");
    expect(placeOf(box)).toBe("page");
    expect(placeOf(inner)).toBe("terminal");
    expect(placeOf(null)).toBe("page");
  });
});

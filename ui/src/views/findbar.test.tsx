// @vitest-environment happy-dom
import { render } from "preact";
import { beforeEach, describe, expect, it } from "vitest";

import { FindBar, FindBarView, type Search } from "./findbar";
import { settle } from "./fakeapi";

type Results = { resultIndex: number; resultCount: number };

/** xterm's search addon as the bar sees it: each find recorded, results pushed by the test. */
function fakeSearch() {
  const finds: string[] = [];
  let listener: (r: Results) => void = () => {};
  let cleared = 0;
  const search: Search = {
    findNext: (query, options) => (finds.push(`next ${query} ${!!options?.incremental}`), true),
    findPrevious: (query) => (finds.push(`previous ${query}`), true),
    clearDecorations: () => void cleared++,
    onDidChangeResults: ((l: (r: Results) => void) => {
      listener = l;
      return { dispose: () => {} };
    }) as Search["onDidChangeResults"],
  };
  return { search, finds, results: (r: Results) => listener(r), cleared: () => cleared };
}

let fake: ReturnType<typeof fakeSearch>;
let bar: FindBar;
let back: number;
let host: HTMLElement;

beforeEach(() => {
  fake = fakeSearch();
  back = 0;
  bar = new FindBar(fake.search, () => void back++);
  host = document.createElement("div");
  document.body.replaceChildren(host);
  render(<FindBarView bar={bar} />, host);
});

const el = () => host.querySelector<HTMLElement>(".find-bar")!;
const input = () => host.querySelector<HTMLInputElement>(".find-input")!;
const count = () => host.querySelector(".find-count")!.textContent;
const key = (k: string, shiftKey = false) =>
  input().dispatchEvent(new KeyboardEvent("keydown", { key: k, shiftKey, bubbles: true }));

describe("the terminal's find bar", { timeout: 5000 }, () => {
  it("is hidden until opened, then searches the selection with the keyboard in its input", async () => {
    expect(el().hidden).toBe(true);
    bar.open("needle");
    await settle();
    expect(el().hidden).toBe(false);
    expect(input().value).toBe("needle");
    expect(document.activeElement).toBe(input());
    expect(fake.finds).toEqual(["next needle true"]);
  });

  it("keeps the last query for a selection of several lines", async () => {
    bar.open("x");
    await settle();
    bar.close();
    bar.open("one\ntwo");
    await settle();
    expect(input().value).toBe("x");
    expect(fake.finds).toEqual(["next x true", "next x true"]);
  });

  it("steps with Enter and Shift+Enter and says which match of how many", async () => {
    bar.open("x");
    await settle();
    key("Enter");
    key("Enter", true);
    expect(fake.finds).toEqual(["next x true", "next x false", "previous x"]);
    fake.results({ resultIndex: 1, resultCount: 4 });
    await settle();
    expect(count()).toBe("2 of 4");
    fake.results({ resultIndex: -1, resultCount: 1000 });
    await settle();
    expect(count()).toBe("1000+ matches");
    fake.results({ resultIndex: -1, resultCount: 0 });
    await settle();
    expect(count()).toBe("No results");
    expect(el().classList.contains("none")).toBe(true);
  });

  it("says nothing once its input is emptied", async () => {
    bar.open("x");
    fake.results({ resultIndex: -1, resultCount: 0 });
    await settle();
    input().value = "";
    input().dispatchEvent(new Event("input", { bubbles: true }));
    await settle();
    expect(count()).toBe("");
    expect(el().classList.contains("none")).toBe(false);
    expect(fake.cleared()).toBe(1);
  });

  it("closes on Escape and on its button, clearing the matches and giving the keyboard back", async () => {
    bar.open("x");
    await settle();
    key("Escape");
    await settle();
    expect(el().hidden).toBe(true);
    expect([fake.cleared(), back]).toEqual([1, 1]);
    bar.open("");
    await settle();
    host.querySelector<HTMLButtonElement>('button[aria-label="Close find"]')!.click();
    await settle();
    expect(el().hidden).toBe(true);
    expect([fake.cleared(), back]).toEqual([2, 2]);
  });

  it("runs the previous and next buttons", async () => {
    bar.open("x");
    await settle();
    host.querySelector<HTMLButtonElement>('button[aria-label="Previous match"]')!.click();
    host.querySelector<HTMLButtonElement>('button[aria-label="Next match"]')!.click();
    expect(fake.finds.slice(1)).toEqual(["previous x", "next x false"]);
  });
});

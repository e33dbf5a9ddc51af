// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { ApiFailure } from "../model/api";
import { CELL_GONE } from "../model/picker";
import { store } from "../model/state";
import { bannerHost, hide, showError, showNotice, showProblems } from "./banner";

beforeEach(() => {
  store.agents = [];
  document.body.replaceChildren(bannerHost());
});

afterEach(() => hide());

const banner = () => bannerHost().querySelector<HTMLElement>(".banner");
const button = (text: string) =>
  [...bannerHost().querySelectorAll("button")].find((b) => b.textContent === text)!;

describe("the banner", { timeout: 5000 }, () => {
  it("shows an error with its code and context, then dismisses it", () => {
    showError(new ApiFailure({ code: "NOT_FOUND", message: "no agent ghost" }), "Edit ghost");
    expect(banner()?.getAttribute("role")).toBe("alert");
    expect(banner()?.dataset.code).toBe("NOT_FOUND");
    expect(banner()?.querySelector(".banner-text")?.textContent).toMatch(/^Edit ghost: /);
    button("✕").click();
    expect(banner()).toBeNull();
  });

  it("offers Go to cell and Move it here for an agent running in another cell", () => {
    const running = { code: "AGENT_ALREADY_RUNNING", message: "x", node_id: "leaf-9" };
    showError(new ApiFailure({ ...running, agent_id: "id-gone" }), "Start", "leaf-1");
    expect([...banner()!.querySelectorAll("button")].map((b) => b.textContent)).toEqual([
      "Go to cell",
      "Move it here",
      "✕",
    ]);
    button("Go to cell").click(); // no layout holds leaf-9: it says the cell is gone
    expect(banner()?.classList.contains("notice")).toBe(true);
    expect(banner()?.textContent).toBe(CELL_GONE);
  });

  it("replaces the banner with a new element each time", () => {
    showNotice("first");
    const before = banner();
    showNotice("second");
    expect(banner()).not.toBe(before);
    expect(bannerHost().querySelectorAll(".banner")).toHaveLength(1);
    expect(banner()?.textContent).toBe("second");
  });

  it("runs a notice's action and goes; a notice without one has no dismiss", () => {
    showNotice("plain");
    expect(banner()?.getAttribute("role")).toBe("status");
    expect(banner()?.querySelector("button")).toBeNull();
    let ran = 0;
    showNotice("claude is now version 2", { label: "Run doctor", run: () => ran++ });
    button("Run doctor").click();
    expect(ran).toBe(1);
    expect(banner()).toBeNull();
  });

  it("shows the first problem and lists the others under it", () => {
    showProblems([
      { code: "CORRUPT_FILE", message: "bad json", path: "/p/a.json" },
      { code: "CORRUPT_FILE", message: "bad yaml", path: "/p/b.md" },
      { code: "NOT_FOUND", message: "gone" },
    ] as never);
    expect(banner()?.dataset.count).toBe("3");
    expect(banner()?.dataset.code).toBe("CORRUPT_FILE");
    expect(banner()?.querySelector("summary")?.textContent).toBe("2 more problems");
    const more = [...banner()!.querySelectorAll<HTMLElement>("li.problem")];
    expect(more.map((li) => li.dataset.code)).toEqual(["CORRUPT_FILE", "NOT_FOUND"]);
  });
});

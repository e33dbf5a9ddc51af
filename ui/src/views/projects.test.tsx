// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { ApiFailure } from "../model/api";
import type { RecentProject } from "../model/types";
import { fakeApi, settle, type FakeApi } from "./fakeapi";
import { OpenProjectDialog } from "./projects";

const recent: RecentProject[] = [
  { root: "/home/me/app", name: "app", current: true, exists: true, opened_at_ms: 2 },
  { root: "/home/me/lib", name: "lib", current: false, exists: true, opened_at_ms: 1 },
  { root: "/gone", name: "gone", current: false, exists: false, opened_at_ms: 0 },
];

let fake: FakeApi;
let dialog: OpenProjectDialog;
let opener: HTMLButtonElement;

beforeEach(async () => {
  fake = fakeApi({
    "project.recent": () => recent,
    "project.open": (p) => {
      if (p.path === "/nowhere")
        throw new ApiFailure({ code: "NOT_FOUND", message: "no such folder: /nowhere" });
      return {};
    },
  });
  dialog = new OpenProjectDialog();
  opener = document.createElement("button");
  document.body.replaceChildren(opener, dialog.el);
  opener.focus();
  dialog.toggle();
  await settle();
});

afterEach(() => {
  dialog.close();
  fake.restore();
});

const field = () =>
  dialog.el.querySelector<HTMLInputElement>('input[aria-label="Project folder"]')!;
const row = (root: string) =>
  dialog.el.querySelector<HTMLButtonElement>(`.recent-row[data-root="${root}"]`)!;
const error = () => dialog.el.querySelector<HTMLElement>(".dialog-error")!;
const submit = (path: string) => {
  field().value = path;
  dialog.el.querySelector("form")!.dispatchEvent(new Event("submit", { cancelable: true }));
};

describe("the open-project dialog", { timeout: 5000 }, () => {
  it("opens on the path field and lists the recent projects", () => {
    expect(dialog.isOpen).toBe(true);
    expect(document.activeElement).toBe(field());
    expect(dialog.el.querySelector<HTMLElement>(".choose-folder")!.hidden).toBe(true);
    expect(row("/home/me/app").disabled).toBe(true);
    expect(row("/home/me/app").querySelector(".badge")?.textContent).toBe("open");
    expect(row("/gone").disabled).toBe(true);
    expect(row("/gone").querySelector(".badge")?.textContent).toBe("missing");
    expect(row("/home/me/lib").title).toBe("Open /home/me/lib");
    expect(error().hidden).toBe(true);
  });

  it("opens a recent project and closes, giving the focus back", async () => {
    row("/home/me/lib").click();
    await settle();
    expect(fake.paramsOf("project.open")).toEqual([{ path: "/home/me/lib" }]);
    expect(dialog.isOpen).toBe(false);
    expect(document.activeElement).toBe(opener);
  });

  it("says why a typed path did not open, and keeps what was typed", async () => {
    submit("  ");
    expect(error().hidden).toBe(false);
    expect(error().dataset.code).toBe("MISSING_FIELD");
    expect(fake.paramsOf("project.open")).toEqual([]);
    submit("/nowhere");
    await settle();
    expect(error().textContent).toContain("no such folder");
    expect(field().value).toBe("/nowhere");
    expect(dialog.isOpen).toBe(true);
    submit("/home/me/new");
    await settle();
    expect(fake.paramsOf("project.open").at(-1)).toEqual({ path: "/home/me/new" });
    expect(dialog.isOpen).toBe(false);
  });

  it("closes on Escape", () => {
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
    expect(dialog.isOpen).toBe(false);
  });
});

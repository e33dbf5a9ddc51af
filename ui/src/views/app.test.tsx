// @vitest-environment happy-dom
import { render } from "preact";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { store } from "../model/state";
import type { ProjectInfo } from "../model/types";
import { App, Shell } from "./app";
import { fakeApi, settle, type FakeApi } from "./fakeapi";

let fake: FakeApi;
let shell: Shell;
let root: HTMLElement;

beforeEach(() => {
  fake = fakeApi({});
  shell = new Shell();
  root = document.createElement("div");
  document.body.replaceChildren(root);
  render(<App shell={shell} />, root);
});

afterEach(() => {
  render(null, root);
  fake.restore();
});

const main = () => root.querySelector<HTMLElement>("main.main")!;

describe("the app shell", { timeout: 5000 }, () => {
  it("mounts each view's element in its place, in the header and under it", () => {
    const header = root.querySelector(":scope > header.topbar")!;
    // A mounted element stands in a wrapper that takes no box: read through it.
    const shown = [...header.children].map((el) =>
      (el as HTMLElement).style.display === "contents" ? el.firstElementChild! : el,
    );
    expect(shown.map((el) => el.className)).toEqual([
      "logo",
      "project-name",
      shell.tabs.el.className,
      "spacer",
      "connection",
      shell.help.el.className,
      "btn small",
    ]);
    expect(shown[2]).toBe(shell.tabs.el);
    expect(shown[4].textContent).toBe("connecting…");
    expect(main().contains(shell.workspace.el)).toBe(true);
    expect(main().contains(shell.panel.el)).toBe(true);
    expect(root.contains(shell.palette.el) && root.contains(shell.trustBanner.el)).toBe(true);
  });

  it("names the open project in the header and the window's title", async () => {
    expect(root.querySelector(".project-name")?.textContent).toBe("IdeA");
    store.project = { name: "shop" } as ProjectInfo;
    store.notify();
    await settle();
    expect(root.querySelector(".project-name")?.textContent).toBe("shop");
    expect(document.title).toBe("shop — IdeA");
  });

  it("says the connection's state", async () => {
    shell.connectionChanged("closed", 1006, 2000);
    await settle();
    const connection = root.querySelector<HTMLElement>(".connection")!;
    expect([connection.dataset.state, connection.textContent]).toEqual(["closed", "disconnected"]);
  });

  it("hides and shows the side panel from its button and its command", async () => {
    root.querySelector<HTMLButtonElement>('button[title="Toggle side panel"]')!.click();
    await settle();
    expect(main().classList.contains("panel-hidden")).toBe(true);
    shell.run("panel");
    await settle();
    expect(main().classList.contains("panel-hidden")).toBe(false);
  });
});

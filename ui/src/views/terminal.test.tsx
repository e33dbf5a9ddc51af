// @vitest-environment happy-dom
// The terminal host's own parts. xterm itself is not drawn here: happy-dom lays nothing out, so
// a cell never has a size and the terminal is never opened, fitted nor attached (the e2e tests
// in tests/e2e/test_terminal_layout.py draw it in Chromium).
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { fakeApi, settle, type FakeApi } from "./fakeapi";
import { stepTerminalFont, terminalFontSize } from "./termfont";
import { TerminalView } from "./terminal";
import type { TerminalProbe } from "./termprobe";

let fake: FakeApi;
let view: TerminalView;

const probe = (name: string) =>
  (
    window as unknown as { ideaTerminals: { get(n: string): TerminalProbe | undefined } }
  ).ideaTerminals.get(name);

beforeEach(() => {
  localStorage.clear();
  fake = fakeApi({});
  view = new TerminalView("sh");
  document.body.replaceChildren(view.el);
});

afterEach(() => {
  view.dispose();
  fake.restore();
});

describe("the terminal host", { timeout: 5000 }, () => {
  it("holds the element xterm opens into and a hidden find bar", () => {
    expect(view.el.classList.contains("terminal-view")).toBe(true);
    expect(view.el.dataset.agent).toBe("sh");
    const [host, bar] = [...view.el.children] as HTMLElement[];
    expect(host.className).toBe("terminal-host");
    expect(bar.classList.contains("find-bar")).toBe(true);
    expect(bar.hidden).toBe(true);
  });

  it("finds nothing before the terminal is drawn, and never asked the server to attach", async () => {
    view.show(); // no size in happy-dom: not opened
    view.find();
    await settle();
    expect(view.el.querySelector<HTMLElement>(".find-bar")!.hidden).toBe(true);
    expect(fake.calls).toEqual([]);
  });

  it("takes the font size every terminal steps to", () => {
    const before = terminalFontSize();
    stepTerminalFont("fontBigger");
    expect(view.el.dataset.fontSize).toBe(String(before + 1));
    expect(probe("sh")?.fontSize).toBe(before + 1);
    stepTerminalFont("fontReset");
    expect(view.el.dataset.fontSize).toBe(String(before));
  });

  it("answers the test hook by its agent's name until disposed, and detaches nothing unattached", () => {
    expect(probe("sh")?.renderer).toBe("dom");
    expect(probe("sh")?.lines()).toEqual([]);
    view.dispose();
    expect(probe("sh")).toBeUndefined();
    expect(fake.calls).toEqual([]);
  });
});

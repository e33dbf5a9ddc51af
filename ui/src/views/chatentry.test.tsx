// @vitest-environment jsdom
import { render } from "preact";
import { describe, expect, it } from "vitest";

import type { Entry } from "../model/chatlog";
import { renderDelay } from "../model/chatrender";
import { MARKDOWN_MAX_CHARS, Pieces, PREVIEW_CHARS, STEP_CHARS } from "../model/longtext";
import { EntryView, signature } from "./chatentry";
import { settle } from "./fakeapi";

/** One entry rendered as the chat renders it; `update` renders it again (at once) after a change. */
function entryView(e: Entry): { readonly el: HTMLElement; update(e: Entry): void } {
  const host = document.createElement("div");
  document.body.append(host);
  const update = (entry: Entry) => render(<EntryView entry={entry} />, host);
  update(e);
  return {
    get el() {
      return host.firstElementChild as HTMLElement;
    },
    update,
  };
}

function reply(): Entry & { kind: "assistant" } {
  return { kind: "assistant", text: new Pieces(), done: false, error: null, interrupted: false };
}

describe("a streaming reply", () => {
  it("keeps the blocks already complete and renders only the one being written", () => {
    const e = reply();
    const view = entryView(e);
    e.text.append("# Title\n\nFirst paragraph.\n\nSecond, being wri");
    view.update(e);
    const title = view.el.querySelector("h1");
    const first = view.el.querySelectorAll("p")[0];
    expect(title?.textContent).toBe("Title");
    expect(view.el.querySelectorAll("p")[1].textContent).toBe("Second, being wri");

    e.text.append("tten.\n\n```python\nx = 1\n\ny = 2\n");
    view.update(e);
    expect(view.el.querySelector("h1")).toBe(title); // not rendered again
    expect(view.el.querySelectorAll("p")[0]).toBe(first);
    expect(view.el.querySelectorAll("p")[1].textContent).toBe("Second, being written.");
    // The open code block is not cut at its blank line.
    expect(view.el.querySelectorAll(".code-block")).toHaveLength(1);
    expect(view.el.querySelector("pre code")?.textContent).toBe("x = 1\n\ny = 2\n");
    expect(view.el.classList.contains("streaming")).toBe(true);
  });

  it("is rendered whole once done, with a Copy button on its code", () => {
    const e = reply();
    const view = entryView(e);
    e.text.append("1. one\n\n2. two\n\n```sh\nmake\n```");
    view.update(e);
    e.done = true;
    view.update(e);
    expect(view.el.querySelectorAll("ol")).toHaveLength(1); // one list, not two halves
    expect(view.el.querySelectorAll("li")).toHaveLength(2);
    expect(view.el.querySelector(".code-block .code-lang")?.textContent).toBe("sh");
    expect(view.el.querySelector(".code-block button.code-copy")?.textContent).toBe("Copy");
    expect(view.el.classList.contains("streaming")).toBe(false);
  });

  it("puts off re-rendering a huge block being written, not what was just completed", () => {
    const e = { ...reply(), text: new Pieces("x".repeat(40_000)) };
    const view = entryView(e); // renders at once
    expect(view.el.textContent).toContain("xxx");
    e.text.append("y");
    view.update(e);
    expect(view.el.textContent).not.toContain("y"); // not yet
    e.text.append("\n\nnext");
    view.update(e); // a block was completed: the tail goes now
    expect(view.el.textContent).toContain("y");
    expect(view.el.textContent).toContain("next");
  });

  it("draws a huge block it put off by itself once its delay passed", async () => {
    const e = { ...reply(), text: new Pieces("x".repeat(40_000)) };
    const view = entryView(e);
    e.text.append("y");
    view.update(e);
    expect(view.el.textContent).not.toContain("y");
    await new Promise((r) => setTimeout(r, renderDelay(40_001) + 50));
    await settle();
    expect(view.el.textContent).toContain("y");
  });
});

describe("an interrupted reply", () => {
  it("shows a neutral marker, with the words said before it, and no error", () => {
    const e = { ...reply(), text: new Pieces("Started to"), done: true, interrupted: true };
    const view = entryView(e);
    expect(view.el.querySelector(".chat-interrupted")?.textContent).toBe("Interrupted");
    expect(view.el.querySelector(".msg-error")).toBeNull();
    expect(view.el.classList.contains("bare")).toBe(false);
    const bare = entryView({ ...reply(), done: true, interrupted: true });
    expect(bare.el.classList.contains("bare")).toBe(true);
  });
});

describe("a tool call", () => {
  it("is labelled by the tool's own name, its server apart, input and output labelled", () => {
    const e: Entry = {
      kind: "tool",
      id: "t1",
      name: "mcp__idea__idea_ask_agent",
      input: { targetAgent: "beta", task: "review" },
      output: '{"reply":"ok"}',
      isError: false,
    };
    const el = entryView(e).el;
    expect(el.querySelector(".tool-name")?.textContent).toBe("idea_ask_agent");
    expect(el.querySelector(".tool-server")?.textContent).toBe("idea");
    expect([...el.querySelectorAll(".tool-label")].map((l) => l.textContent)).toEqual([
      "Input",
      "Output",
    ]);
    expect(el.querySelector(".tool-input code .hljs-attr")?.textContent).toBe('"targetAgent"');
    expect(el.querySelector(".tool-output code")?.textContent).toBe('{\n  "reply": "ok"\n}');
  });

  it("changes signature when its output comes, and stays open if the user opened it", () => {
    const e: Entry = {
      kind: "tool",
      id: "t1",
      name: "Bash",
      input: { command: "make" },
      output: null,
      isError: false,
    };
    const before = signature(e);
    const view = entryView(e);
    (view.el as HTMLDetailsElement).open = true;
    e.output = "done";
    expect(signature(e)).not.toBe(before);
    view.update(e);
    expect((view.el as HTMLDetailsElement).open).toBe(true);
    expect(view.el.querySelector(".tool-output pre")?.textContent).toBe("done");
  });
});

const LINE = "lorem ipsum dolor sit amet ".repeat(40_000); // 1 MB, one line

function click(el: Element | null | undefined): void {
  (el as HTMLButtonElement).click();
}

describe("a reply too long to format", () => {
  it("streams as plain text folded to one step, whatever came after", () => {
    const e = reply();
    const view = entryView(e);
    for (let i = 0; i < LINE.length; i += 16_384) {
      e.text.append(LINE.slice(i, i + 16_384));
      view.update(e);
    }
    const steps = view.el.querySelectorAll(".folded-step");
    expect(steps).toHaveLength(1);
    expect(steps[0].textContent).toBe(LINE.slice(0, PREVIEW_CHARS));
    expect(view.el.querySelector(".md p")).toBeNull(); // no Markdown ran over it
    expect(view.el.querySelector(".fold-note")?.textContent).toBe(
      "Showing 8 KiB of 1.0 MiB · plain text: too long to format",
    );
    e.done = true;
    view.update(e);
    expect(view.el.querySelectorAll(".folded-step")[0]).toBe(steps[0]); // not rendered again
    expect(view.el.textContent?.length).toBeLessThan(PREVIEW_CHARS + 200);
  });

  it("shows one more step per Show more, then says nothing is hidden", async () => {
    const e = { ...reply(), text: new Pieces(LINE.slice(0, 3 * STEP_CHARS - 10)), done: true };
    const view = entryView(e);
    const more = view.el.querySelector(".fold-more") as HTMLButtonElement;
    click(more);
    await settle();
    expect(view.el.querySelectorAll(".folded-step")).toHaveLength(2);
    expect(view.el.querySelector(".folded-text")?.textContent).toBe(
      LINE.slice(0, PREVIEW_CHARS + STEP_CHARS),
    );
    expect(view.el.querySelector(".fold-note")?.textContent).toBe(
      "Showing 72 KiB of 192 KiB · plain text: too long to format",
    );
    click(more);
    await settle();
    click(more);
    await settle();
    expect(view.el.querySelectorAll(".folded-step")).toHaveLength(4);
    expect(view.el.querySelector(".folded-text")?.textContent).toBe(
      LINE.slice(0, 3 * STEP_CHARS - 10),
    );
    expect(more.hidden).toBe(true);
    expect((view.el.querySelector(".fold-all") as HTMLButtonElement).hidden).toBe(true);
    expect(view.el.querySelector(".fold-note")?.textContent).toBe(
      "192 KiB · plain text: too long to format",
    );
  });

  it("turns plain once it grows past the threshold, and markup in it stays text", () => {
    const e = reply();
    const view = entryView(e);
    e.text.append("# Heading\n\n<script>window.x = 1</script> ");
    view.update(e);
    expect(view.el.querySelector("h1")).not.toBeNull();
    e.text.append("a".repeat(MARKDOWN_MAX_CHARS));
    view.update(e);
    expect(view.el.querySelector("h1")).toBeNull();
    expect(view.el.querySelector("script")).toBeNull();
    expect(view.el.querySelector(".folded-step")?.textContent).toContain(
      "<script>window.x = 1</script>",
    );
  });
});

describe("other long entries", () => {
  it("folds a long message of the user", () => {
    const el = entryView({ kind: "user", text: LINE, from: null, pending: false }).el;
    expect(el.querySelector(".folded-step")?.textContent).toBe(LINE.slice(0, PREVIEW_CHARS));
    expect(el.textContent?.length).toBeLessThan(PREVIEW_CHARS + 200);
  });

  it("folds a long tool output, unhighlighted", () => {
    const output = JSON.stringify({ rows: Array.from({ length: 20_000 }, (_, i) => ({ i })) });
    const e: Entry = { kind: "tool", id: "t1", name: "Bash", input: {}, output, isError: false };
    const el = entryView(e).el;
    expect(el.querySelector(".tool-output .folded-step")).not.toBeNull();
    expect(el.querySelector(".tool-output .hljs-attr")).toBeNull();
    expect(el.querySelector(".tool-output .fold-more")).not.toBeNull();
  });
});

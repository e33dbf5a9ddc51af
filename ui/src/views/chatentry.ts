// One entry of a chat: the user's message (plain text), a reply (Markdown, rendered as it streams),
// a tool call (its own name, input and output labelled, JSON highlighted). A long entry is folded
// (views/foldedtext.ts); a reply too long to format at once is shown as plain text, never parsed.

import { blockBoundary, renderDelay } from "../model/chatrender";
import type { Entry } from "../model/chatlog";
import { asMarkdown, folds } from "../model/longtext";
import { renderCode, renderMarkdown } from "../model/markdown";
import { emptyData, toolData, toolLabel } from "../model/toolcall";
import { copyButton } from "./copybutton";
import { h } from "./dom";
import { FoldedText } from "./foldedtext";

type Assistant = Entry & { kind: "assistant" };

/** A view of one entry; `update` re-renders it in place, giving the ms it wants to wait before the
 * next try when it put off part of the work (a long reply streaming), else 0. */
export interface EntryView {
  readonly el: HTMLElement;
  update(e: Entry): number;
}

/** The signature of what an entry shows: when it is unchanged, so is the entry's view. */
export function signature(e: Entry): string {
  switch (e.kind) {
    case "user":
      return `u|${e.pending}`;
    case "assistant":
      return `a|${e.text.length}|${e.done}|${e.interrupted}|${e.error ?? ""}`;
    case "tool":
      return `t|${e.output === null ? -1 : e.output.length}|${e.isError}`;
  }
}

export function entryView(e: Entry): EntryView {
  switch (e.kind) {
    case "user":
      return new Replaced(e, renderUser);
    case "assistant":
      return new ReplyView(e);
    case "tool":
      return new Replaced(e, renderTool);
  }
}

/** Small entries: drawn again whole when they change. */
class Replaced<E extends Entry> implements EntryView {
  el: HTMLElement;
  constructor(
    e: E,
    private readonly draw: (e: E) => HTMLElement,
  ) {
    this.el = draw(e);
  }
  update(e: Entry): number {
    const next = this.draw(e as E);
    // A tool call the user opened stays open when its output comes.
    if (this.el instanceof HTMLDetailsElement && next instanceof HTMLDetailsElement)
      next.open = this.el.open;
    this.el.replaceWith(next);
    this.el = next;
    return 0;
  }
}

function renderUser(e: Entry & { kind: "user" }): HTMLElement {
  return h(
    "div.msg.user",
    { class: e.pending ? "pending" : "", title: e.pending ? "Waiting for its turn" : undefined },
    e.from ? h("div.msg-from", {}, `from ${e.from}`) : null,
    folds(e.text) ? new FoldedText(e.text).el : e.text,
  );
}

/**
 * A reply. While it streams, the Markdown blocks already complete are rendered once and kept; only
 * the block being written is rendered again (and less often as it grows). Once the reply is done
 * it is rendered whole, once, so that what spans blocks (a list with blank lines) comes out right.
 * Past MARKDOWN_MAX_CHARS it becomes plain text, folded, for good: more text only updates the fold.
 */
class ReplyView implements EntryView {
  readonly el = h("div.msg.assistant");
  private body = h("div.md");
  private marker = h("div.chat-interrupted", { title: "You interrupted this turn" }, "Interrupted");
  private error = h("div.msg-error");
  private frozenEnd = 0; // text[0:frozenEnd] is rendered in the frozen nodes
  private tail: Node[] = [];
  private lastTailAt = -Infinity;
  private finished = false;
  private plain: FoldedText | null = null;

  constructor(e: Assistant) {
    this.el.append(this.body);
    this.update(e);
  }

  update(entry: Entry): number {
    const e = entry as Assistant;
    let wait = 0;
    if (this.plain || !asMarkdown(e.text.length)) {
      this.showPlain(e);
    } else if (e.done) {
      if (!this.finished) {
        this.finished = true;
        this.body.innerHTML = renderMarkdown(`${e.text}`);
        decorate(this.body);
        this.tail = [];
      }
    } else {
      wait = this.stream(`${e.text}`);
    }
    this.el.classList.toggle("streaming", !e.done);
    this.el.classList.toggle("interrupted", e.interrupted);
    // An interruption without a word of answer is a marker in the flow, not an empty bubble.
    this.el.classList.toggle("bare", e.interrupted && !e.text.length);
    this.error.textContent = e.error ?? "";
    if (e.interrupted) this.el.append(this.marker);
    else this.marker.remove();
    if (e.error) this.el.append(this.error);
    else this.error.remove();
    return wait;
  }

  private showPlain(e: Assistant): void {
    if (this.plain) {
      this.plain.refresh(e.text);
      return;
    }
    this.plain = new FoldedText(e.text, "plain text: too long to format");
    this.body.replaceChildren(this.plain.el);
    this.body.classList.add("plain");
    this.tail = [];
  }

  private stream(text: string): number {
    const end = blockBoundary(text, this.frozenEnd);
    const froze = end > this.frozenEnd;
    if (froze) {
      const done = fragment(text.slice(this.frozenEnd, end));
      this.body.insertBefore(done, this.tail[0] ?? null);
      this.frozenEnd = end;
    }
    const tailText = text.slice(this.frozenEnd);
    const now = performance.now();
    const wait = renderDelay(tailText.length) - (now - this.lastTailAt);
    // The old tail holds what was just frozen: it must go now, whatever the delay.
    if (wait > 0 && !froze) return wait;
    this.lastTailAt = now;
    for (const n of this.tail) n.parentNode?.removeChild(n);
    const tail = fragment(tailText);
    this.tail = [...tail.childNodes];
    this.body.append(tail);
    return 0;
  }
}

function fragment(markdown: string): DocumentFragment {
  const t = document.createElement("template");
  t.innerHTML = renderMarkdown(markdown);
  decorate(t.content);
  return t.content;
}

/** Code blocks get their language and a Copy button (added here: the HTML stays sanitized data). */
function decorate(root: ParentNode): void {
  for (const pre of root.querySelectorAll<HTMLPreElement>("pre")) {
    const code = pre.querySelector("code");
    const lang = /\blanguage-(\S+)/.exec(code?.className ?? "")?.[1] ?? "";
    const block = h("div.code-block");
    pre.replaceWith(block);
    block.append(
      h(
        "div.code-head",
        {},
        h("span.code-lang", {}, lang),
        copyButton(() => code?.textContent ?? pre.textContent ?? ""),
      ),
      pre,
    );
  }
}

function renderTool(e: Entry & { kind: "tool" }): HTMLElement {
  const { tool, server } = toolLabel(e.name);
  const input = toolData(e.input);
  const output = e.output === null ? null : toolData(e.output);
  return h(
    "details.msg.tool",
    { class: e.isError ? "error" : "", dataset: { tool: e.name } },
    h(
      "summary",
      { title: e.name },
      // Text, not an emoji: the window may have no emoji font.
      h("span.tool-tag", {}, "tool"),
      h("span.tool-name", {}, tool),
      server ? h("span.tool-server", { title: `MCP server ${server}` }, server) : null,
      e.output === null ? h("span.tool-running", {}, " …") : null,
    ),
    emptyData(input) ? null : section("Input", input, "tool-input"),
    output === null ? null : section(e.isError ? "Error" : "Output", output, "tool-output"),
  );
}

function section(label: string, data: { text: string; json: boolean }, cls: string): HTMLElement {
  if (folds(data.text)) {
    // Too long to highlight at once: plain, folded.
    const long = new FoldedText(data.text).el;
    return h("div.tool-section", { class: cls }, h("div.tool-label", {}, label), long);
  }
  const code = h("code.hljs", { class: data.json ? "language-json" : "" });
  if (data.json) code.innerHTML = renderCode(data.text, "json");
  else code.textContent = data.text;
  return h(
    "div.tool-section",
    { class: cls },
    h("div.tool-label", {}, label),
    h("pre.tool-data", {}, code),
  );
}

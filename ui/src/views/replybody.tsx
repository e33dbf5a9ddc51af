// The Markdown of a reply, kept in an element as it streams: the blocks already complete are
// rendered once and kept; only the block being written is rendered again (and less often as it
// grows: model/chatrender.ts). Once the reply is done it is rendered whole, once, so that what
// spans blocks (a list with blank lines) comes out right. The HTML is sanitized data
// (model/markdown.ts); its code blocks get their language and a Copy button here.

import { render } from "preact";

import { blockBoundary, renderDelay } from "../model/chatrender";
import { renderMarkdown } from "../model/markdown";
import { CopyButton } from "./copybutton";

export class MarkdownStream {
  private frozenEnd = 0; // text[0:frozenEnd] is rendered in the frozen nodes
  private tail: Node[] = [];
  private lastTailAt = -Infinity;
  private finished = false;

  constructor(private readonly body: HTMLElement) {}

  /** Show `text`; the ms to wait before trying again when the work was put off, else 0. */
  update(text: string, done: boolean): number {
    if (!done) return this.stream(text);
    if (!this.finished) {
      this.finished = true;
      this.body.innerHTML = renderMarkdown(text);
      decorate(this.body);
      this.tail = [];
    }
    return 0;
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

/** Each `<pre>` in a `.code-block`, under a head with its language and a Copy button. */
function decorate(root: ParentNode): void {
  for (const pre of root.querySelectorAll<HTMLPreElement>("pre")) {
    const code = pre.querySelector("code");
    const lang = /\blanguage-(\S+)/.exec(code?.className ?? "")?.[1] ?? "";
    const block = document.createElement("div");
    block.className = "code-block";
    pre.replaceWith(block);
    render(<CodeHead lang={lang} text={() => code?.textContent ?? pre.textContent ?? ""} />, block);
    block.append(pre);
  }
}

function CodeHead({ lang, text }: { lang: string; text: () => string }) {
  return (
    <div class="code-head">
      <span class="code-lang">{lang}</span>
      <CopyButton text={text} />
    </div>
  );
}

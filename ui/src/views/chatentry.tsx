// One entry of a chat: the user's message (plain text), a reply (Markdown, rendered as it streams:
// views/replybody.tsx), a tool call (its own name, input and output labelled, JSON highlighted). A
// long entry is folded (views/foldedtext.tsx); a reply too long to format at once is shown as
// plain text, never parsed. An entry is rendered again only when its signature changed.

import { Component } from "preact";
import { useLayoutEffect, useReducer, useRef } from "preact/hooks";

import type { Entry } from "../model/chatlog";
import { asMarkdown, folds } from "../model/longtext";
import { renderCode } from "../model/markdown";
import { emptyData, toolData, toolLabel } from "../model/toolcall";
import { FoldedText } from "./foldedtext";
import { classes } from "./reactive";
import { MarkdownStream } from "./replybody";

type Of<K extends Entry["kind"]> = Entry & { kind: K };

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

type EntryProps = {
  /** Changed in place as a turn streams: its signature says when it shows something new. */
  entry: Entry;
  /** Called once a reply has drawn what it put off (the chat keeps its scroll). */
  onDrawn?: () => void;
};

/** One entry of the transcript, rendered again only when it is another or its signature changed. */
export class EntryView extends Component<EntryProps> {
  private drawn = "";

  shouldComponentUpdate(next: EntryProps): boolean {
    return next.entry !== this.props.entry || signature(next.entry) !== this.drawn;
  }

  render({ entry, onDrawn }: EntryProps) {
    const sig = (this.drawn = signature(entry));
    // `sig` is passed on: the entry is the same object, and @preact/signals skips a component
    // whose props are all the same.
    switch (entry.kind) {
      case "user":
        return <UserMessage e={entry} sig={sig} />;
      case "assistant":
        return <Reply e={entry} sig={sig} onDrawn={onDrawn} />;
      case "tool":
        return <ToolCall e={entry} sig={sig} />;
    }
  }
}

function UserMessage({ e }: { e: Of<"user">; sig: string }) {
  return (
    <div
      class={classes("msg user", e.pending && "pending")}
      title={e.pending ? "Waiting for its turn" : undefined}
    >
      {e.from ? <div class="msg-from">{`from ${e.from}`}</div> : null}
      {folds(e.text) ? <FoldedText text={e.text} length={e.text.length} /> : e.text}
    </div>
  );
}

/**
 * A reply: its Markdown streams into `.md` (a MarkdownStream), which tries again by itself when it
 * put off the block being written. Past MARKDOWN_MAX_CHARS it becomes plain text, folded, for
 * good: more text only updates the fold.
 */
function Reply({ e, onDrawn }: { e: Of<"assistant">; sig: string; onDrawn?: () => void }) {
  const body = useRef<HTMLDivElement>(null);
  const stream = useRef<MarkdownStream | null>(null);
  const plain = useRef(false);
  const retrying = useRef(false);
  const [, retry] = useReducer((n: number) => n + 1, 0);
  plain.current ||= !asMarkdown(e.text.length);
  useLayoutEffect(() => {
    if (plain.current || !body.current) return;
    stream.current ??= new MarkdownStream(body.current);
    const wait = stream.current.update(`${e.text}`, e.done);
    if (retrying.current) onDrawn?.(); // drawn by itself, not with the rest of the chat
    retrying.current = wait > 0;
    if (wait <= 0) return;
    const timer = setTimeout(() => retry(0), wait);
    return () => clearTimeout(timer);
  });
  return (
    <div
      class={classes(
        "msg assistant",
        !e.done && "streaming",
        e.interrupted && "interrupted",
        // An interruption without a word of answer is a marker in the flow, not an empty bubble.
        e.interrupted && !e.text.length && "bare",
      )}
    >
      {plain.current ? (
        <div key="plain" class="md plain">
          <FoldedText text={e.text} length={e.text.length} hint="plain text: too long to format" />
        </div>
      ) : (
        <div key="md" class="md" ref={body} />
      )}
      {e.interrupted ? (
        <div class="chat-interrupted" title="You interrupted this turn">
          Interrupted
        </div>
      ) : null}
      {e.error ? <div class="msg-error">{e.error}</div> : null}
    </div>
  );
}

/** A tool call; one the user opened stays open when its output comes (`open` is never set). */
function ToolCall({ e }: { e: Of<"tool">; sig: string }) {
  const { tool, server } = toolLabel(e.name);
  const input = toolData(e.input);
  const output = e.output === null ? null : toolData(e.output);
  return (
    <details class={classes("msg tool", e.isError && "error")} data-tool={e.name}>
      <summary title={e.name}>
        {/* Text, not an emoji: the window may have no emoji font. */}
        <span class="tool-tag">tool</span>
        <span class="tool-name">{tool}</span>
        {server ? (
          <span class="tool-server" title={`MCP server ${server}`}>
            {server}
          </span>
        ) : null}
        {e.output === null ? <span class="tool-running">{" …"}</span> : null}
      </summary>
      {emptyData(input) ? null : <Section label="Input" data={input} cls="tool-input" />}
      {output === null ? null : (
        <Section label={e.isError ? "Error" : "Output"} data={output} cls="tool-output" />
      )}
    </details>
  );
}

type SectionProps = { label: string; data: { text: string; json: boolean }; cls: string };

function Section({ label, data, cls }: SectionProps) {
  return (
    <div class={`tool-section ${cls}`}>
      <div class="tool-label">{label}</div>
      {folds(data.text) ? (
        // Too long to highlight at once: plain, folded.
        <FoldedText text={data.text} length={data.text.length} />
      ) : (
        <pre class="tool-data">
          {data.json ? (
            <code
              class="hljs language-json"
              dangerouslySetInnerHTML={{ __html: renderCode(data.text, "json") }}
            />
          ) : (
            <code class="hljs">{data.text}</code>
          )}
        </pre>
      )}
    </div>
  );
}

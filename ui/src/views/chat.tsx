// A chat cell: the transcript of a structured agent, streaming, tool calls folded, and a composer.
// Renders on animation frames; an entry is rendered again only when its signature changed
// (views/chatentry.tsx), so a streamed chunk redraws its own entry, never the transcript. Scrolling
// sticks to the newest message unless the user scrolled up, across re-layouts (a tab switch, a
// split) and across views of the same agent; a message sent always scrolls to it.

import { signal } from "@preact/signals";
import { createRef, render } from "preact";
import { useLayoutEffect } from "preact/hooks";

import { api } from "../model/api";
import {
  addUserMessage,
  askInterrupt,
  type Entry,
  markInterrupted,
  replyAnnouncement,
  seed,
  setIdle,
  transcript,
} from "../model/chatlog";
import { atBottom } from "../model/chatrender";
import { showError } from "./banner";
import { EntryView } from "./chatentry";
import { rootElement } from "./reactive";

type WindowBridge = { open_url(url: string): Promise<boolean> };

/** Per agent: null while following the newest message, else where the user scrolled to. */
const scrolledTo = new Map<string, number | null>();

/** A key per entry object: a transcript replaced whole gets new views. */
const keys = new WeakMap<Entry, number>();
let lastKey = 0;
function keyOf(entry: Entry): number {
  let key = keys.get(entry);
  if (key === undefined) keys.set(entry, (key = ++lastKey));
  return key;
}

export class ChatView {
  readonly el = rootElement("chat-view");
  readonly log = createRef<HTMLDivElement>();
  readonly input = createRef<HTMLTextAreaElement>();
  /** Said to screen readers: each finished reply once, politely (never every streamed piece). */
  readonly announcement = signal("");
  /** Bumped on the frame after the transcript changed: the chat renders again. */
  readonly version = signal(0);
  private announced: Entry | undefined;
  private seeded = false; // the history is in: from now on a finished reply is news
  private frame = 0;
  private resize: ResizeObserver;
  private unsubscribe: () => void;

  constructor(
    readonly agentId: string,
    readonly agentName: string,
  ) {
    const t = transcript(agentId);
    const listener = () => this.schedule();
    t.listeners.add(listener);
    this.unsubscribe = () => t.listeners.delete(listener);
    render(<Chat chat={this} />, this.el);
    // Attached again (a tab switch, a split moved the cell) or resized: back where it was.
    this.resize = new ResizeObserver(() => this.restoreScroll());
    if (this.log.current) this.resize.observe(this.log.current);
    void seed(agentId, agentName).finally(() => {
      this.announced = lastReply(transcript(agentId).entries);
      this.seeded = true;
    });
  }

  focus(): void {
    this.input.current?.focus();
  }

  async send(): Promise<void> {
    const input = this.input.current;
    const text = input?.value.trim();
    if (!input || !text) return;
    input.value = "";
    scrolledTo.set(this.agentId, null); // what you send, you see
    const message = addUserMessage(this.agentId, text);
    try {
      const r = await api.call("chat.send", { name: this.agentName, text });
      if (r?.interrupted) markInterrupted(this.agentId, message);
    } catch (e) {
      setIdle(this.agentId);
      showError(e, `Message to ${this.agentName}`);
    }
  }

  async interrupt(): Promise<void> {
    askInterrupt(this.agentId);
    try {
      const r = await api.call("chat.interrupt", { name: this.agentName });
      if (!r.interrupted) askInterrupt(this.agentId, false);
    } catch (e) {
      askInterrupt(this.agentId, false);
      showError(e);
    }
  }

  /** Render on the next frame: many deltas in one frame make one render. */
  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.version.value++;
    });
  }

  /** After a render: say the newest finished reply, if it is news. */
  announce(entries: readonly Entry[]): void {
    const last = lastReply(entries);
    if (!this.seeded || !last || last === this.announced) return;
    this.announced = last;
    this.announcement.value = replyAnnouncement(this.agentName, last);
  }

  onScroll(): void {
    const log = this.log.current;
    if (!log?.isConnected || log.clientHeight === 0) return; // detached or hidden: not the user
    scrolledTo.set(
      this.agentId,
      atBottom(log.scrollTop, log.scrollHeight, log.clientHeight) ? null : log.scrollTop,
    );
  }

  readonly restoreScroll = (): void => {
    const log = this.log.current;
    if (!log?.isConnected || log.clientHeight === 0) return;
    const top = scrolledTo.get(this.agentId) ?? null;
    log.scrollTop = top === null ? log.scrollHeight : top;
  };

  dispose(): void {
    this.unsubscribe();
    this.resize.disconnect();
    cancelAnimationFrame(this.frame);
    render(null, this.el);
  }
}

function Chat({ chat }: { chat: ChatView }) {
  void chat.version.value;
  const t = transcript(chat.agentId);
  const waiting = Math.max(0, t.queued - 1);
  useLayoutEffect(() => {
    chat.announce(t.entries);
    chat.restoreScroll();
  });
  return (
    <>
      <div class="sr-only chat-announcer" role="status" aria-live="polite">
        {chat.announcement}
      </div>
      <div
        class="chat-log"
        ref={chat.log}
        onScroll={() => chat.onScroll()}
        onClick={(e) => openLink(e)}
      >
        {t.entries.length ? (
          t.entries.map((entry) => (
            <EntryView key={keyOf(entry)} entry={entry} onDrawn={chat.restoreScroll} />
          ))
        ) : (
          <div class="chat-empty">{`Say something to ${chat.agentName}.`}</div>
        )}
      </div>
      <div class="chat-busy" hidden={!t.busy && t.queued === 0}>
        <span class="spinner" />
        <span class="chat-busy-text">
          {waiting ? `working… · ${waiting} more waiting` : "working…"}
        </span>
      </div>
      <div class="chat-composer">
        <textarea
          class="chat-input"
          rows={2}
          placeholder="Message… (Enter to send, Shift+Enter for a new line)"
          ref={chat.input}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              void chat.send();
            }
          }}
        />
        <div class="chat-buttons">
          <button class="btn primary" onClick={() => void chat.send()}>
            Send
          </button>
          <button
            class="btn chat-interrupt"
            title="Interrupt the running turn (the agent keeps running)"
            disabled={!t.busy}
            onClick={() => void chat.interrupt()}
          >
            Interrupt
          </button>
        </div>
      </div>
    </>
  );
}

/** A link in a reply: a new tab in a browser (the HTML says so), the system browser in the window. */
function openLink(e: MouseEvent): void {
  const a = (e.target as Element | null)?.closest?.("a[href]");
  if (!(a instanceof HTMLAnchorElement)) return;
  const bridge = (window as unknown as { pywebview?: { api?: Partial<WindowBridge> } }).pywebview
    ?.api;
  if (typeof bridge?.open_url !== "function") return;
  e.preventDefault();
  void bridge.open_url(a.href);
}

/** The newest finished reply, if any. */
function lastReply(entries: readonly Entry[]): Entry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.kind === "assistant") return e.done ? e : undefined;
  }
  return undefined;
}

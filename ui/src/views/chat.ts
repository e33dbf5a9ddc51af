// A chat cell: the transcript of a structured agent, streaming, tool calls folded, and a composer.
// Renders on animation frames, only the entries that changed (model/chatrender.ts). Scrolling sticks
// to the newest message unless the user scrolled up, across re-layouts (a tab switch, a split) and
// across views of the same agent; a message sent always scrolls to it.

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
import { atBottom, planRender, type Shown } from "../model/chatrender";
import { showError } from "./banner";
import { type EntryView, entryView, signature } from "./chatentry";
import { h } from "./dom";

type SendResult = { reply: string | null; interrupted?: boolean };
type WindowBridge = { open_url(url: string): Promise<boolean> };

/** Per agent: null while following the newest message, else where the user scrolled to. */
const scrolledTo = new Map<string, number | null>();

export class ChatView {
  readonly el = h("div.chat-view");
  private log = h("div.chat-log");
  private empty = h("div.chat-empty");
  // Screen readers hear each finished reply once, politely (never every streamed piece).
  private announcer = h("div.sr-only.chat-announcer", { role: "status", "aria-live": "polite" });
  private announced: Entry | undefined;
  private seeded = false; // the history is in: from now on a finished reply is news
  private busyText = h("span.chat-busy-text", {}, "working…");
  private busy = h("div.chat-busy", {}, h("span.spinner"), this.busyText);
  private input = h("textarea.chat-input", {
    rows: 2,
    placeholder: "Message… (Enter to send, Shift+Enter for a new line)",
  });
  private sendBtn = h("button.btn.primary", { onclick: () => void this.send() }, "Send");
  private interruptBtn = h(
    "button.btn.chat-interrupt",
    {
      title: "Interrupt the running turn (the agent keeps running)",
      onclick: () => void this.interrupt(),
    },
    "Interrupt",
  );
  private views: EntryView[] = [];
  private shown: Shown[] = [];
  private frame = 0;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private resize: ResizeObserver;
  private unsubscribe: () => void;

  constructor(
    private readonly agentId: string,
    private readonly agentName: string,
  ) {
    this.empty.textContent = `Say something to ${agentName}.`;
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        void this.send();
      }
    });
    this.log.addEventListener("scroll", () => this.onScroll());
    this.log.addEventListener("click", (e) => openLink(e));
    // Attached again (a tab switch, a split moved the cell) or resized: back where it was.
    this.resize = new ResizeObserver(() => this.restoreScroll());
    this.resize.observe(this.log);
    this.el.append(
      this.announcer,
      this.log,
      this.busy,
      h(
        "div.chat-composer",
        {},
        this.input,
        h("div.chat-buttons", {}, this.sendBtn, this.interruptBtn),
      ),
    );
    const t = transcript(agentId);
    const listener = () => this.schedule();
    t.listeners.add(listener);
    this.unsubscribe = () => t.listeners.delete(listener);
    this.render();
    void seed(agentId, agentName).finally(() => {
      this.announced = lastReply(transcript(agentId).entries);
      this.seeded = true;
    });
  }

  focus(): void {
    this.input.focus();
  }

  private async send(): Promise<void> {
    const text = this.input.value.trim();
    if (!text) return;
    this.input.value = "";
    scrolledTo.set(this.agentId, null); // what you send, you see
    const message = addUserMessage(this.agentId, text);
    try {
      const r = await api.call<SendResult>("chat.send", { name: this.agentName, text });
      if (r?.interrupted) markInterrupted(this.agentId, message);
    } catch (e) {
      setIdle(this.agentId);
      showError(e, `Message to ${this.agentName}`);
    }
  }

  private async interrupt(): Promise<void> {
    askInterrupt(this.agentId);
    try {
      const r = await api.call<{ interrupted: boolean }>("chat.interrupt", {
        name: this.agentName,
      });
      if (!r.interrupted) askInterrupt(this.agentId, false);
    } catch (e) {
      askInterrupt(this.agentId, false);
      showError(e);
    }
  }

  /** Render on the next frame: many deltas in one frame make one render. */
  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => ((this.frame = 0), this.render()));
  }

  private render(): void {
    clearTimeout(this.retry);
    const t = transcript(this.agentId);
    const now = t.entries.map((entry) => ({ entry, sig: signature(entry) }));
    const plan = planRender(this.shown, now);
    if (plan.removeFrom !== null) {
      for (const v of this.views.splice(plan.removeFrom)) v.el.remove();
      this.shown.splice(plan.removeFrom);
    }
    let wait = 0;
    for (const i of plan.update) {
      const { entry, sig } = now[i];
      const view = this.views[i];
      let later = 0;
      if (view && this.shown[i].entry === entry) {
        later = view.update(entry);
      } else {
        const fresh = entryView(entry);
        if (view) view.el.replaceWith(fresh.el);
        else this.log.append(fresh.el);
        this.views[i] = fresh;
      }
      // Put off: keep the old signature so that the next render tries again.
      this.shown[i] =
        later > 0 && this.shown[i] ? { entry, sig: this.shown[i].sig } : { entry, sig };
      wait = later > 0 ? (wait ? Math.min(wait, later) : later) : wait;
    }
    if (wait > 0) this.retry = setTimeout(() => this.schedule(), wait);
    if (!t.entries.length) this.log.append(this.empty);
    else this.empty.remove();
    const waiting = Math.max(0, t.queued - 1);
    this.busy.hidden = !t.busy && t.queued === 0;
    this.busyText.textContent = waiting ? `working… · ${waiting} more waiting` : "working…";
    this.interruptBtn.disabled = !t.busy;
    this.announce(t.entries);
    this.restoreScroll();
  }

  private announce(entries: readonly Entry[]): void {
    const last = lastReply(entries);
    if (!this.seeded || !last || last === this.announced) return;
    this.announced = last;
    this.announcer.textContent = replyAnnouncement(this.agentName, last);
  }

  private onScroll(): void {
    const log = this.log;
    if (!log.isConnected || log.clientHeight === 0) return; // detached or hidden: not the user
    scrolledTo.set(
      this.agentId,
      atBottom(log.scrollTop, log.scrollHeight, log.clientHeight) ? null : log.scrollTop,
    );
  }

  private restoreScroll(): void {
    const log = this.log;
    if (!log.isConnected || log.clientHeight === 0) return;
    const top = scrolledTo.get(this.agentId) ?? null;
    log.scrollTop = top === null ? log.scrollHeight : top;
  }

  dispose(): void {
    this.unsubscribe();
    this.resize.disconnect();
    cancelAnimationFrame(this.frame);
    clearTimeout(this.retry);
  }
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

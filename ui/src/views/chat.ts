// A chat cell: the transcript of a structured agent, streaming, tool calls folded, and a composer.

import { api } from "../model/api";
import { addUserMessage, type Entry, seed, setIdle, transcript } from "../model/chatlog";
import { showError } from "./banner";
import { clear, h } from "./dom";

export class ChatView {
  readonly el = h("div.chat-view");
  private log = h("div.chat-log");
  private busyText = h("span.chat-busy-text", {}, "working…");
  private busy = h("div.chat-busy", {}, h("span.spinner"), this.busyText);
  private input = h("textarea.chat-input", {
    rows: 2,
    placeholder: "Message… (Enter to send, Shift+Enter for a new line)",
  });
  private sendBtn = h("button.btn.primary", { onclick: () => void this.send() }, "Send");
  private stopBtn = h("button.btn", { onclick: () => void this.interrupt() }, "Stop");
  private unsubscribe: () => void;

  constructor(
    private readonly agentId: string,
    private readonly agentName: string,
  ) {
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        void this.send();
      }
    });
    this.el.append(
      this.log,
      this.busy,
      h("div.chat-composer", {}, this.input, h("div.chat-buttons", {}, this.sendBtn, this.stopBtn)),
    );
    const t = transcript(agentId);
    const listener = () => this.render();
    t.listeners.add(listener);
    this.unsubscribe = () => t.listeners.delete(listener);
    this.render();
    void seed(agentId, agentName);
  }

  focus(): void {
    this.input.focus();
  }

  private async send(): Promise<void> {
    const text = this.input.value.trim();
    if (!text) return;
    this.input.value = "";
    addUserMessage(this.agentId, text);
    try {
      await api.call("chat.send", { name: this.agentName, text });
    } catch (e) {
      setIdle(this.agentId);
      showError(e, `Message to ${this.agentName}`);
    }
  }

  private async interrupt(): Promise<void> {
    try {
      await api.call("chat.interrupt", { name: this.agentName });
    } catch (e) {
      showError(e);
    }
  }

  private render(): void {
    const t = transcript(this.agentId);
    const atBottom = this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 40;
    clear(
      this.log,
      ...(t.entries.length
        ? t.entries.map(renderEntry)
        : [h("div.chat-empty", {}, `Say something to ${this.agentName}.`)]),
    );
    const waiting = Math.max(0, t.queued - 1);
    this.busy.hidden = !t.busy && t.queued === 0;
    this.busyText.textContent = waiting ? `working… · ${waiting} more waiting` : "working…";
    this.stopBtn.disabled = !t.busy;
    if (atBottom) this.log.scrollTop = this.log.scrollHeight;
  }

  dispose(): void {
    this.unsubscribe();
  }
}

function renderEntry(e: Entry): HTMLElement {
  switch (e.kind) {
    case "user":
      return h(
        "div.msg.user",
        { class: e.pending ? "pending" : "", title: e.pending ? "Waiting for its turn" : undefined },
        e.from ? h("div.msg-from", {}, `from ${e.from}`) : null,
        e.text,
      );
    case "assistant":
      return h(
        "div.msg.assistant",
        { class: e.done ? "" : "streaming" },
        e.text,
        e.error ? h("div.msg-error", {}, e.error) : null,
      );
    case "tool":
      return h(
        "details.msg.tool",
        { class: e.isError ? "error" : "" },
        // Text, not an emoji: the window may have no emoji font.
        h("summary", {}, h("span.tool-tag", {}, "tool"), e.name, e.output === null ? " …" : ""),
        h("pre", {}, JSON.stringify(e.input, null, 2)),
        e.output !== null ? h("pre.tool-output", {}, e.output) : null,
      );
  }
}

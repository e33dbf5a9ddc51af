// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { forgetTranscripts, onChatEvent } from "../model/chatlog";
import { PREVIEW_CHARS } from "../model/longtext";
import { ChatView } from "./chat";
import { fakeApi, settle, type FakeApi } from "./fakeapi";

let fake: FakeApi;
let chat: ChatView;
let seq = 0;

/** A chat event of agent a1 as the server pushes it (main.ts hands ChatEvent to onChatEvent). */
function event(data: Record<string, unknown>): void {
  onChatEvent({ agent_id: "a1", seq: ++seq, ...data } as Parameters<typeof onChatEvent>[0]);
}

/** Past the animation frame the chat renders on. */
async function frame(): Promise<void> {
  await new Promise((r) => requestAnimationFrame(r));
  await settle();
}

beforeEach(async () => {
  forgetTranscripts();
  fake = fakeApi({
    "chat.history": () => ({ entries: [], seq: 0, queued: 0 }),
    "delegations.recent": () => [],
    "chat.send": () => ({ interrupted: false }),
  });
  chat = new ChatView("a1", "bot");
  document.body.replaceChildren(chat.el);
  await settle();
});

afterEach(() => {
  chat.dispose();
  fake.restore();
});

const $ = <T extends Element = HTMLElement>(sel: string) => chat.el.querySelector<T>(sel);

describe("the chat", { timeout: 5000 }, () => {
  it("shows the entries as a turn streams, drawing again only the entry that changed", async () => {
    expect($(".chat-empty")?.textContent).toBe("Say something to bot.");
    event({ type: "turn_started", prompt: "hello", requester_id: null });
    event({ type: "text", text: "Hi" });
    await frame();
    expect($(".msg.user")?.textContent).toBe("hello");
    const user = $(".msg.user");
    expect($(".msg.assistant.streaming")?.textContent?.trim()).toBe("Hi");
    expect(($(".chat-interrupt") as HTMLButtonElement).disabled).toBe(false);
    event({ type: "text", text: " there." });
    event({ type: "final", text: "", is_error: false });
    await frame();
    expect($(".msg.assistant")?.textContent?.trim()).toBe("Hi there.");
    expect($(".msg.assistant")?.classList.contains("streaming")).toBe(false);
    expect($(".msg.user")).toBe(user); // not drawn again
    expect($(".chat-empty")).toBeNull();
    expect($(".chat-announcer")?.textContent).not.toBe("");
  });

  it("folds a long tool output", async () => {
    event({ type: "turn_started", prompt: "run", requester_id: null });
    event({ type: "tool_use", tool_id: "t1", name: "Bash", input: { command: "yes" } });
    event({ type: "tool_result", tool_id: "t1", output: "y\n".repeat(100_000), is_error: false });
    await frame();
    const step = $(".tool-output .folded-step");
    expect(step?.textContent?.length).toBeLessThanOrEqual(PREVIEW_CHARS);
    expect($(".tool-output .fold-more")?.hidden).toBe(false);
  });

  it("copies the whole of a folded output with its Copy button", async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    const output = "y\n".repeat(100_000);
    event({ type: "turn_started", prompt: "run", requester_id: null });
    event({ type: "tool_use", tool_id: "t1", name: "Bash", input: {} });
    event({ type: "tool_result", tool_id: "t1", output, is_error: false });
    await frame();
    const copy = $<HTMLButtonElement>(".tool-output .fold-bar button.code-copy")!;
    expect(copy.title).toBe("Copy the whole text");
    copy.click();
    await settle();
    expect(writeText).toHaveBeenCalledWith(output);
    expect(copy.textContent).toBe("Copied");
  });

  it("sends the message typed on Enter, and shows it at once", async () => {
    const input = $<HTMLTextAreaElement>("textarea.chat-input")!;
    input.value = "  do it  ";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    await settle();
    expect(fake.paramsOf("chat.send")).toEqual([{ name: "bot", text: "do it" }]);
    expect(input.value).toBe("");
    await frame();
    expect($(".msg.user.pending")?.textContent).toBe("do it");
  });
});

import { beforeEach, describe, expect, it } from "vitest";

import {
  addUserMessage,
  askInterrupt,
  type Entry,
  forgetTranscripts,
  markInterrupted,
  onChatEvent,
  replyAnnouncement,
  transcript,
} from "./chatlog";
import { Pieces } from "./longtext";
import type { ChatEventData } from "./types";

let seq = 0;
function ev(data: Record<string, unknown>): ChatEventData {
  seq += 1;
  return { agent_id: "a1", agent_name: "bot", seq, ...data } as unknown as ChatEventData;
}
const started = (prompt: string) => ev({ type: "turn_started", requester_id: null, prompt });
const text = (t: string) => ev({ type: "text", text: t });
const failed = (error: string) =>
  ev({ type: "final", text: "", is_error: true, error, conversation_id: null });
const finished = (t: string) =>
  ev({ type: "final", text: t, is_error: false, error: null, conversation_id: null });

function answers() {
  return transcript("a1").entries.filter(
    (e): e is Entry & { kind: "assistant" } => e.kind === "assistant",
  );
}

beforeEach(() => forgetTranscripts());

describe("an interrupted turn", () => {
  it("shows as interrupted, not as an error, when this page asked for it", () => {
    addUserMessage("a1", "SLOW task");
    onChatEvent(started("SLOW task"));
    onChatEvent(text("Working on"));
    askInterrupt("a1");
    onChatEvent(failed("aborted_streaming: [ede_diagnostic] result_type=user"));
    expect(answers()).toMatchObject([
      { kind: "assistant", done: true, error: null, interrupted: true },
    ]);
    expect(`${answers()[0].text}`).toBe("Working on");
  });

  it("shows as interrupted when the server says so, as a history replayed after a reload does", () => {
    onChatEvent(started("SLOW task"));
    onChatEvent(
      ev({
        type: "final",
        text: "",
        is_error: true,
        error: "aborted_streaming",
        conversation_id: null,
        interrupted: true,
      }),
    );
    expect(answers()[0]).toMatchObject({ error: null, interrupted: true });
  });

  it("stays a failure when nobody asked to interrupt it", () => {
    addUserMessage("a1", "FAIL");
    onChatEvent(started("FAIL"));
    onChatEvent(failed("API Error: 500"));
    expect(answers()[0]).toMatchObject({ error: "API Error: 500", interrupted: false });
  });

  it("does not carry the request over to the next turn", () => {
    addUserMessage("a1", "first");
    onChatEvent(started("first"));
    askInterrupt("a1");
    onChatEvent(finished("done anyway")); // it finished before the interrupt landed
    addUserMessage("a1", "second");
    onChatEvent(started("second"));
    onChatEvent(failed("API Error: 500"));
    expect(answers().map((a) => [a.interrupted, a.error])).toEqual([
      [false, null],
      [false, "API Error: 500"],
    ]);
  });

  it("is marked when chat.send says so, even if another page interrupted it", () => {
    const mine = addUserMessage("a1", "long");
    onChatEvent(started("long"));
    onChatEvent(failed("interrupted"));
    expect(answers()[0].error).toBe("interrupted");
    markInterrupted("a1", mine);
    expect(answers()[0]).toMatchObject({ error: null, interrupted: true, done: true });
  });

  it("is found by its text once the history replaced the page's own entry", () => {
    onChatEvent(started("long"));
    onChatEvent(failed("interrupted"));
    markInterrupted("a1", { kind: "user", text: "long", from: null, pending: false });
    expect(answers()[0].interrupted).toBe(true);
  });

  it("marks only the answer of that message", () => {
    const first = addUserMessage("a1", "one");
    onChatEvent(started("one"));
    onChatEvent(finished("answer one"));
    addUserMessage("a1", "two");
    markInterrupted("a1", first);
    onChatEvent(started("two"));
    onChatEvent(failed("boom"));
    expect(answers().map((a) => a.interrupted)).toEqual([true, false]);
  });
});

describe("what a screen reader hears when a reply ends", () => {
  const reply = (over: { text?: string; interrupted?: boolean; error?: string }) =>
    ({
      kind: "assistant",
      done: true,
      error: null,
      interrupted: false,
      ...over,
      text: new Pieces(over.text ?? ""),
    }) as const;

  it("names who answered and the start of the answer, in one line", () => {
    expect(replyAnnouncement("bot", reply({ text: "## Plan\n\nStep  one" }))).toBe(
      "bot replied: ## Plan Step one",
    );
    expect(replyAnnouncement("bot", reply({ text: "x".repeat(500) }))).toHaveLength(
      "bot replied: ".length + 200,
    );
  });

  it("says an interruption or a failure for what it is", () => {
    expect(replyAnnouncement("bot", reply({ interrupted: true }))).toBe("bot: interrupted");
    expect(replyAnnouncement("bot", reply({ error: "API Error: 500" }))).toBe(
      "bot failed: API Error: 500",
    );
    expect(replyAnnouncement("bot", { kind: "user", text: "hi", from: null, pending: false })).toBe(
      "",
    );
  });
});

describe("a reply streamed in many pieces", () => {
  it("keeps the pieces as they came: a delta costs its own size, not the reply so far", () => {
    onChatEvent(started("ONE_LINE_REPLY"));
    const piece = "lorem ipsum ".repeat(100);
    for (let i = 0; i < 1000; i++) onChatEvent(text(piece));
    const [answer] = answers();
    expect(answer.text.pieceCount).toBe(1000);
    expect(answer.text.length).toBe(1000 * piece.length);
    onChatEvent(finished(piece.repeat(1000)));
    expect(answer.text.pieceCount).toBe(1000); // the final text is not added again
    expect(answer.done).toBe(true);
  });

  it("takes the final text when nothing streamed", () => {
    onChatEvent(started("hi"));
    onChatEvent(finished("whole answer"));
    expect(`${answers()[0].text}`).toBe("whole answer");
  });

  it("is announced by its start, in a bounded time", () => {
    onChatEvent(started("big"));
    onChatEvent(text(`Start here. ${"z".repeat(2_000_000)}`));
    onChatEvent(finished(""));
    expect(replyAnnouncement("bot", answers()[0])).toMatch(/^bot replied: Start here\. z+…$/);
    expect(answers()[0].text.pieceCount).toBe(1);
  });
});

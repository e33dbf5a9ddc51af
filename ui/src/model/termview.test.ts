import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { ACK_DELAY_MS, ACK_STEP_BYTES, Acker, viewOf } from "./termview";

const seen = { shown: true, pageVisible: true, intersecting: true, focused: false };

describe("a terminal's view", { timeout: 5000 }, () => {
  it("is live with the keyboard, a glance on screen without it, hidden off screen", () => {
    expect(viewOf({ ...seen, focused: true })).toBe("live");
    expect(viewOf(seen)).toBe("glance");
    expect(viewOf({ ...seen, shown: false, focused: true })).toBe("hidden");
    expect(viewOf({ ...seen, pageVisible: false, focused: true })).toBe("hidden");
    expect(viewOf({ ...seen, intersecting: false })).toBe("hidden");
  });
});

describe("the acknowledgements of what a live view parsed", { timeout: 5000 }, () => {
  let sent: number[];
  let live: boolean;
  let acker: Acker;
  beforeEach(() => {
    vi.useFakeTimers();
    sent = [];
    live = true;
    acker = new Acker(
      (n) => sent.push(n),
      () => live,
    );
  });
  afterEach(() => {
    acker.dispose();
    vi.useRealTimers();
  });

  it("go at once past a step, else shortly after the last parse, cumulative", () => {
    acker.add(ACK_STEP_BYTES);
    expect(sent).toEqual([ACK_STEP_BYTES]);
    acker.add(10);
    acker.add(5);
    expect(sent).toEqual([ACK_STEP_BYTES]);
    vi.advanceTimersByTime(ACK_DELAY_MS);
    expect(sent).toEqual([ACK_STEP_BYTES, ACK_STEP_BYTES + 15]);
    vi.advanceTimersByTime(1000);
    expect(sent).toHaveLength(2); // nothing new: nothing sent
  });

  it("are not sent by a view that is not live, which still counts", () => {
    live = false;
    acker.add(ACK_STEP_BYTES * 2);
    vi.advanceTimersByTime(1000);
    expect(sent).toEqual([]);
    expect(acker.parsed).toBe(ACK_STEP_BYTES * 2);
    acker.told(); // said with terminal.view when it became live
    live = true;
    acker.add(1);
    vi.advanceTimersByTime(ACK_DELAY_MS);
    expect(sent).toEqual([ACK_STEP_BYTES * 2 + 1]);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { BATCH_MS, drawQueued, drawSoon } from "./termbatch";

describe("the glanced terminals' frames", { timeout: 5000 }, () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    drawQueued();
    vi.useRealTimers();
  });

  it("are drawn together once the first has waited BATCH_MS, in the order they came", () => {
    const drawn: string[] = [];
    drawSoon(() => drawn.push("a1"));
    vi.advanceTimersByTime(BATCH_MS - 10);
    drawSoon(() => drawn.push("b1"));
    drawSoon(() => drawn.push("a2"));
    expect(drawn).toEqual([]);
    vi.advanceTimersByTime(10);
    expect(drawn).toEqual(["a1", "b1", "a2"]);
    drawSoon(() => drawn.push("c1"));
    vi.advanceTimersByTime(BATCH_MS);
    expect(drawn).toEqual(["a1", "b1", "a2", "c1"]);
  });

  it("are drawn at once when asked (a terminal that became live keeps its order)", () => {
    const drawn: string[] = [];
    drawSoon(() => drawn.push("queued"));
    drawQueued();
    drawn.push("live");
    vi.advanceTimersByTime(BATCH_MS * 2);
    expect(drawn).toEqual(["queued", "live"]);
  });
});

import { describe, expect, it } from "vitest";

import { retryDelay } from "./api";

describe("reconnecting", () => {
  it("waits 0.5 s, then twice as long each time, at most 10 s", () => {
    const none = () => 0;
    expect([0, 1, 2, 3, 4, 5, 6, 10].map((n) => retryDelay(n, none))).toEqual([
      500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000,
    ]);
  });

  it("spreads clients by up to a fifth more", () => {
    expect(retryDelay(0, () => 0.999)).toBe(600);
    expect(retryDelay(8, () => 1)).toBe(12_000);
    expect(retryDelay(-3, () => 0)).toBe(500);
  });
});

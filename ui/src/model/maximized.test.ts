import { describe, expect, it } from "vitest";
import { readMaximized, withMaximized } from "./maximized";

describe("a tab's maximised cell across reloads", () => {
  it("reads back what was written, and nothing from a bad value", () => {
    expect(readMaximized(JSON.stringify({ t1: "l2" }))).toEqual({ t1: "l2" });
    for (const bad of [null, "", "not json", "[1]", "3", JSON.stringify({ t1: 5, t2: "" })]) {
      expect(readMaximized(bad)).toEqual({});
    }
  });
  it("sets, clears and keeps the newest tabs only", () => {
    expect(withMaximized({ t1: "l1" }, "t2", "l9")).toEqual({ t1: "l1", t2: "l9" });
    expect(withMaximized({ t1: "l1", t2: "l9" }, "t1", "")).toEqual({ t2: "l9" });
    let kept = {};
    for (let i = 0; i < 70; i++) kept = withMaximized(kept, `t${i}`, "l");
    expect(Object.keys(kept)).toHaveLength(64);
    expect(kept).not.toHaveProperty("t0");
    expect(kept).toHaveProperty("t69");
  });
});

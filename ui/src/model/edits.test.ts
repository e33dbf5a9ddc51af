import { describe, expect, it } from "vitest";

import {
  editConflictOf,
  opened,
  overwrite,
  refused,
  shortPath,
  shownText,
  versionParam,
  type EditConflict,
} from "./edits";
import type { ApiError } from "./types";

const V1 = "a".repeat(64);
const V2 = "b".repeat(64);

function conflictError(over: Partial<ApiError> = {}): ApiError {
  return {
    code: "CONFLICT",
    message: "/p/.ideai/agents/rev.md changed on disk since it was opened",
    path: "/p/.ideai/agents/rev.md",
    version_on_disk: V2,
    content_on_disk: "---\nprofile: claude\n---\nBy hand.\n",
    yours: "---\nprofile: claude\n---\nMine.\n",
    ...over,
  };
}

describe("the version an editor holds", () => {
  it("is the one its get gave, sent back with the save", () => {
    const state = opened({ name: "rev", version: V1 });
    expect(state).toEqual({ version: V1, conflict: null });
    expect(versionParam(state)).toEqual({ version: V1 });
  });

  it("an empty version (no file yet) is a version too", () => {
    expect(versionParam(opened({ policy: {}, version: "" }))).toEqual({ version: "" });
  });

  it("is not sent when the server gave none (an old server: the save replaces the file)", () => {
    for (const result of [{ name: "rev" }, null, undefined, { version: 7 }]) {
      expect(versionParam(opened(result))).toEqual({});
    }
  });
});

describe("a refused save", () => {
  it("is a conflict only when a CONFLICT carries the version on disk", () => {
    const conflict = editConflictOf(conflictError());
    expect(conflict).toEqual({
      message: "/p/.ideai/agents/rev.md changed on disk since it was opened",
      path: "/p/.ideai/agents/rev.md",
      version_on_disk: V2,
      content_on_disk: "---\nprofile: claude\n---\nBy hand.\n",
      yours: "---\nprofile: claude\n---\nMine.\n",
    });
    // A rename to a taken name, a running agent: CONFLICTs of another kind, said as before.
    expect(
      editConflictOf({ code: "CONFLICT", message: "an agent named 'x' already exists" }),
    ).toBeNull();
    expect(editConflictOf({ code: "INVALID", message: "x", version_on_disk: V2 })).toBeNull();
    expect(editConflictOf(null)).toBeNull();
  });

  it("keeps the version the edit was made on until the user chooses", () => {
    const state = refused(opened({ version: V1 }), editConflictOf(conflictError()) as EditConflict);
    expect(state.version).toBe(V1);
    expect(state.conflict?.content_on_disk).toContain("By hand.");
    expect(versionParam(state)).toEqual({ version: V1 }); // saving again is refused again
  });

  it("overwrite saves on the version now on disk, knowingly", () => {
    const state = overwrite(
      refused(opened({ version: V1 }), editConflictOf(conflictError()) as EditConflict),
    );
    expect(state).toEqual({ version: V2, conflict: null });
    expect(versionParam(state)).toEqual({ version: V2 });
    expect(overwrite(opened({ version: V1 }))).toEqual({ version: V1, conflict: null }); // nothing to overwrite
  });

  it("reload starts again from what the get gives", () => {
    expect(opened({ version: V2 })).toEqual({ version: V2, conflict: null });
  });
});

describe("what the notice shows", () => {
  it("cuts a long version and says how much is not shown", () => {
    expect(shownText("short")).toBe("short");
    const shown = shownText("x".repeat(25_000), 20_000);
    expect(shown.startsWith("x".repeat(20_000))).toBe(true);
    expect(shown).toContain("5,000 more characters not shown");
  });

  it("names the file from the project's .ideai folder", () => {
    expect(shortPath("/home/u/p/.ideai/agents/rev.md")).toBe("agents/rev.md");
    expect(shortPath("C:\\u\\p\\.ideai\\policy.json")).toBe("policy.json");
    expect(shortPath("policy.json")).toBe("policy.json");
  });
});

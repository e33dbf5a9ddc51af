import { describe, expect, it } from "vitest";

import { describeError, KNOWN_CODES } from "./errors";

// The `ErrorCode` list of ui/API.md §2, the governance codes (DESIGN.md §15), LOST (a
// delegation log row's and a problem's) and the codes of agents on other hosts (§16).
const API_CODES = [
  "NOT_FOUND",
  "INVALID",
  "MISSING_FIELD",
  "AGENT_ALREADY_RUNNING",
  "TIMEOUT",
  "FORBIDDEN",
  "CONFLICT",
  "CORRUPT_FILE",
  "INTERNAL",
  "AGENT_FAILED",
  "UNAVAILABLE",
  "UNTRUSTED",
  "DEPTH_EXCEEDED",
  "BUDGET_EXCEEDED",
  "RATE_LIMITED",
  "LINE_TOO_LONG",
  "LOST",
  "HOST_KEY_UNKNOWN",
  "HOST_KEY_CHANGED",
  "AUTH_REFUSED",
  "HOST_UNREACHABLE",
  "HOST_FORWARDING_REFUSED",
  "HOST_IDEA_MISSING",
  "HOST_IDEA_VERSION",
  "HOST_LINK_LOST",
];

describe("known codes", () => {
  it("are exactly the API's, each with its own title that is words, not the code", () => {
    expect([...KNOWN_CODES].sort()).toEqual([...API_CODES].sort());
    const titles = API_CODES.map((code) => describeError({ code, message: "m" }).title);
    expect(new Set(titles).size).toBe(API_CODES.length);
    titles.forEach((title, i) => {
      expect(title).not.toBe(API_CODES[i]);
      expect(title).toMatch(/^[A-Z][a-z]/);
    });
  });

  it("show the server's message when there is nothing more to say", () => {
    expect(describeError({ code: "INVALID", message: "name: bad slug" })).toEqual({
      title: "Invalid request",
      text: "name: bad slug",
    });
    expect(describeError({ code: "NOT_FOUND", message: "no agent 'x'" }).text).toBe("no agent 'x'");
  });

  it("name the missing field", () => {
    const { title, text } = describeError({
      code: "MISSING_FIELD",
      message: "give one",
      field: "profile",
    });
    expect(title).toBe("Missing field");
    expect(text).toBe('The field "profile" is required. give one');
  });

  it("say where an already running agent is: another cell, or the background", () => {
    const inCell = describeError({
      code: "AGENT_ALREADY_RUNNING",
      message: "m",
      agent_id: "x",
      node_id: "n1",
    });
    expect(inCell.title).toBe("Agent already running");
    expect(inCell.text).toContain("another cell");
    const background = describeError({
      code: "AGENT_ALREADY_RUNNING",
      message: "m",
      agent_id: "x",
    });
    expect(background.text).toContain("background");
    expect(background.text).not.toContain("another cell");
  });

  it("say which file was corrupt and where it went, with words when the details are absent", () => {
    const e = {
      code: "CORRUPT_FILE",
      message: "m",
      path: "/p/.ideai/layouts.json",
      quarantined_to: "/p/q.json",
    };
    expect(describeError(e).text).toBe(
      "/p/.ideai/layouts.json could not be read and was moved to /p/q.json.",
    );
    expect(describeError({ code: "CORRUPT_FILE", message: "m" }).text).toBe(
      "A state file could not be read and was moved to a backup.",
    );
  });

  it("tell that a timed-out agent is still alive", () => {
    expect(describeError({ code: "TIMEOUT", message: "no reply in 600 s" }).text).toBe(
      "no reply in 600 s (the agent is still alive).",
    );
  });
});

describe("governance codes", () => {
  const now = 1_700_000_000_000;

  it("say the chain is as deep as the policy allows, or spent its budget, with the server's words", () => {
    const deep = describeError({ code: "DEPTH_EXCEEDED", message: "depth 4 > max_depth 3" });
    expect(deep.title).toBe("Chain too deep");
    expect(deep.text).toBe(
      "This chain of asks is already as deep as the delegation policy allows. depth 4 > max_depth 3",
    );
    const spent = describeError({ code: "BUDGET_EXCEEDED", message: "" });
    expect(spent.title).toBe("Token budget spent");
    expect(spent.text).toBe(
      "This chain of asks has spent the token budget the delegation policy gives it.",
    );
  });

  it("say when a rate limit resets, if the error tells", () => {
    const e = {
      code: "RATE_LIMITED",
      message: "usage limit",
      resets_at_ms: String(now + 12 * 60_000),
    };
    const { title, text } = describeError(e, now);
    expect(title).toBe("Rate-limited");
    expect(text).toMatch(
      /rate-limited or out of quota; it resets at .+ \(in 12 min\)\. usage limit$/,
    );
  });

  it("say nothing of a reset it was not told, or told in garbage", () => {
    for (const resets of [undefined, "", "soon", "-5"]) {
      const e = {
        code: "RATE_LIMITED",
        message: "m",
        ...(resets === undefined ? {} : { resets_at_ms: resets }),
      };
      const { text } = describeError(e, now);
      expect(text).toBe("The agent's CLI refused: it is rate-limited or out of quota. m");
    }
  });

  it("say a lost ask's answer is lost", () => {
    expect(describeError({ code: "LOST", message: "" }).text).toBe(
      "This ask was in flight when IdeA last closed; its answer is lost.",
    );
  });
});

describe("unknown codes", () => {
  it("get a generic title and a message naming the code and keeping the server's words", () => {
    const { title, text } = describeError({ code: "QUOTA_SOMETHING", message: "slow down" });
    expect(title).toBe("Error");
    expect(text).toContain("QUOTA_SOMETHING");
    expect(text).toContain("slow down");
  });

  it("still name the code when the message is empty", () => {
    const { text } = describeError({ code: "QUOTA", message: "" });
    expect(text).toBe("Unexpected error (code QUOTA).");
  });

  it("include names of built-in object properties, which are no titles", () => {
    for (const code of ["constructor", "toString", "__proto__"]) {
      const { title, text } = describeError({ code, message: "m" });
      expect(title).toBe("Error");
      expect(text).toContain(code);
    }
  });
});

// What the error banner says for an API error: a title per stable code (ui/API.md §2) and one
// clear sentence built from the message and the code's details. Pure, so it is tested alone.

import type { ApiError } from "./types";
import { resetText } from "./usage";

const TITLES: Record<string, string> = {
  NOT_FOUND: "Not found",
  INVALID: "Invalid request",
  MISSING_FIELD: "Missing field",
  AGENT_ALREADY_RUNNING: "Agent already running",
  TIMEOUT: "Timed out",
  FORBIDDEN: "Forbidden",
  CONFLICT: "Conflict",
  CORRUPT_FILE: "Corrupt file moved aside",
  INTERNAL: "Internal error",
  AGENT_FAILED: "Agent failed",
  UNAVAILABLE: "Unavailable",
  UNTRUSTED: "Project not trusted",
  // Delegation governance (DESIGN.md §15); LOST is a delegation log row's and a problem's code.
  DEPTH_EXCEEDED: "Chain too deep",
  BUDGET_EXCEEDED: "Token budget spent",
  RATE_LIMITED: "Rate-limited",
  // A stream line longer than IdeA reads (DESIGN.md §18): the turn failed, the agent goes on.
  LINE_TOO_LONG: "Agent output line too long",
  LOST: "Ask lost",
  // Agents on other hosts (DESIGN.md §16): the SSH link and the host's IdeA.
  HOST_KEY_UNKNOWN: "Unknown host key",
  HOST_KEY_CHANGED: "Host key changed",
  AUTH_REFUSED: "Login refused by the host",
  HOST_UNREACHABLE: "Host unreachable",
  HOST_FORWARDING_REFUSED: "Socket forwarding refused",
  HOST_IDEA_MISSING: "IdeA missing on the host",
  HOST_IDEA_VERSION: "Another IdeA on the host",
  HOST_LINK_LOST: "Link to the host lost",
};

/** The codes this UI has a title for (the `ErrorCode` list of ui/API.md). */
export const KNOWN_CODES: readonly string[] = Object.keys(TITLES);

export type ErrorText = { title: string; text: string };

/** Title and sentence for `e`; a code this UI does not know still gets a message naming it.
 * `nowMs` places a rate limit's reset time. */
export function describeError(e: ApiError, nowMs: number = Date.now()): ErrorText {
  if (!Object.hasOwn(TITLES, e.code)) {
    // A newer server may add codes: say which one, so the user can report it.
    const detail = e.message ? `: ${e.message}` : ".";
    return { title: "Error", text: `Unexpected error (code ${e.code || "none"})${detail}` };
  }
  return { title: TITLES[e.code], text: sentence(e, nowMs) };
}

function sentence(e: ApiError, nowMs: number): string {
  switch (e.code) {
    case "AGENT_ALREADY_RUNNING":
      return e.node_id
        ? "This agent is already running in another cell: go to that cell, or move it here."
        : "This agent is already running in the background.";
    case "MISSING_FIELD":
      return `The field "${e.field ?? "?"}" is required. ${e.message}`;
    case "CORRUPT_FILE":
      return `${e.path ?? "A state file"} could not be read and was moved to ${e.quarantined_to ?? "a backup"}.`;
    case "TIMEOUT":
      return `${e.message} (the agent is still alive).`;
    case "DEPTH_EXCEEDED":
      return withMessage(
        "This chain of asks is already as deep as the delegation policy allows.",
        e,
      );
    case "BUDGET_EXCEEDED":
      return withMessage(
        "This chain of asks has spent the token budget the delegation policy gives it.",
        e,
      );
    case "RATE_LIMITED": {
      // A detail is a string: the reset time comes as its decimal milliseconds.
      const at =
        typeof e.resets_at_ms === "string" && /^\d+$/.test(e.resets_at_ms)
          ? Number(e.resets_at_ms)
          : null;
      const reset = resetText(at, nowMs);
      const lead = "The agent's CLI refused: it is rate-limited or out of quota";
      return withMessage(reset ? `${lead}; it ${reset}.` : `${lead}.`, e);
    }
    case "LOST":
      return withMessage("This ask was in flight when IdeA last closed; its answer is lost.", e);
    default:
      return e.message;
  }
}

function withMessage(lead: string, e: ApiError): string {
  return e.message ? `${lead} ${e.message}` : lead;
}

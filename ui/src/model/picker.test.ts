import { describe, expect, it } from "vitest";

import { describeError } from "./errors";
import { CELL_GONE, defaultView, listMove, pickerOption, refusalActions } from "./picker";
import type { AgentRow } from "./types";

function agent(over: Partial<AgentRow> = {}): AgentRow {
  return {
    id: "id-dev",
    name: "dev",
    profile: "claude",
    mode: "terminal",
    configured_mode: null,
    model: null,
    permission_mode: null,
    description: null,
    workspace: "project",
    asks_from: ["*"],
    live: false,
    node_id: null,
    status: "idle",
    hibernated: false,
    host: null,
    link: null,
    last_exit: null,
    ...over,
  };
}

const BOTH: ("terminal" | "structured")[] = ["terminal", "structured"];

describe("picker options", () => {
  it("disable an agent live in another cell and offer to go there or move it here", () => {
    const option = pickerOption(agent({ live: true, node_id: "n-other" }), "n-here", BOTH);
    expect(option.disabled).toBe(true);
    expect(option.goToCell).toBe("n-other");
    expect(option.moveHere).toBe(true);
    expect(option.title).toBe("Live in another cell");
    expect(option.otherView).toBeNull(); // a live agent is not restarted in another view
  });

  it("let an agent live in this cell, in the background or stopped be picked", () => {
    for (const row of [
      agent({ live: true, node_id: "n-here" }),
      agent({ live: true, node_id: null }),
      agent(),
    ]) {
      const option = pickerOption(row, "n-here", BOTH);
      expect(option.disabled).toBe(false);
      expect(option.goToCell).toBeNull();
      expect(option.moveHere).toBe(false);
    }
  });

  it("open the agent's own view and offer the other only when its profile runs it", () => {
    expect(defaultView(agent({ mode: "structured" }))).toBe("chat");
    expect(pickerOption(agent(), "n", BOTH)).toMatchObject({ view: "terminal", otherView: "chat" });
    expect(pickerOption(agent(), "n", ["terminal"]).otherView).toBeNull();
  });
});

describe("a refused pick", () => {
  const refused = {
    code: "AGENT_ALREADY_RUNNING",
    message: "agent id-dev is already running in cell n-other",
    agent_id: "id-dev",
    node_id: "n-other",
  };

  it("offers go to cell and move it here", () => {
    expect(refusalActions(refused, "n-here")).toEqual([
      { kind: "go-to", nodeId: "n-other" },
      { kind: "move-here", leafId: "n-here" },
    ]);
  });

  it("offers nothing to move when there is no cell to move to or the agent is not in a cell", () => {
    expect(refusalActions(refused, null)).toEqual([{ kind: "go-to", nodeId: "n-other" }]);
    const background = { code: "AGENT_ALREADY_RUNNING", message: "m", agent_id: "id-dev" };
    expect(refusalActions(background, "n-here")).toEqual([]);
    expect(refusalActions({ code: "NOT_FOUND", message: "m" }, "n-here")).toEqual([]);
  });

  it("is told in a clear sentence, not the server's code or message", () => {
    const { title, text } = describeError(refused);
    expect(title).toBe("Agent already running");
    expect(text).toBe(
      "This agent is already running in another cell: go to that cell, or move it here.",
    );
    expect(text).not.toContain("AGENT_ALREADY_RUNNING");
  });

  it("says so when the cell to go to is gone", () => {
    expect(CELL_GONE).toMatch(/no longer exists/);
  });
});

describe("moving in the picker with the keyboard", () => {
  it("goes down and up one row, to the ends with Home and End, and stops at the ends", () => {
    expect(listMove("ArrowDown", 0, 3)).toBe(1);
    expect(listMove("ArrowDown", 2, 3)).toBe(2);
    expect(listMove("ArrowUp", 0, 3)).toBe(0);
    expect(listMove("End", 0, 3)).toBe(2);
    expect(listMove("Home", 2, 3)).toBe(0);
    expect(listMove("a", 1, 3)).toBeNull();
    expect(listMove("ArrowDown", 0, 0)).toBeNull();
  });

  it("says a background agent can be shown here", () => {
    const o = pickerOption(agent({ live: true, node_id: null }), "leaf-1", ["terminal"]);
    expect(o.disabled).toBe(false);
    expect(o.title).toContain("background");
  });
});

import { describe, expect, it } from "vitest";

import { atBottom, blockBoundary, renderDelay } from "./chatrender";
import { emptyData, toolData, toolLabel } from "./toolcall";

describe("blockBoundary", () => {
  it("is the start while no block is complete", () => {
    expect(blockBoundary("", 0)).toBe(0);
    expect(blockBoundary("# Title", 0)).toBe(0);
    expect(blockBoundary("one paragraph\nstill going\n", 0)).toBe(0);
  });

  it("is just past the last blank line", () => {
    const text = "# Title\n\nA paragraph.\n\nThe one being writ";
    const end = blockBoundary(text, 0);
    expect(text.slice(0, end)).toBe("# Title\n\nA paragraph.\n\n");
    expect(text.slice(end)).toBe("The one being writ");
  });

  it("never cuts inside a fenced code block", () => {
    const text = "Intro\n\n```python\ndef f():\n\n    return 1\n";
    expect(blockBoundary(text, 0)).toBe("Intro\n\n".length);
    const closed = `${text}\`\`\`\n\nAfter`;
    expect(closed.slice(blockBoundary(closed, 0))).toBe("After");
  });

  it("knows a fence closes only with the same marker, at least as long", () => {
    const text = "````\n```\n\nstill code\n~~~\n\n````\n\nafter";
    expect(text.slice(blockBoundary(text, 0))).toBe("after");
    const tilde = "~~~\n```\n\nin code\n";
    expect(blockBoundary(tilde, 0)).toBe(0);
  });

  it("takes an indented fence (in a list item) for a fence", () => {
    const text = "1. Step\n\n   ```sh\n   make\n\n   make test\n";
    expect(blockBoundary(text, 0)).toBe("1. Step\n\n".length);
  });

  it("does not take inline code for a fence", () => {
    const text = "```not a fence``` here\n\nnext";
    expect(text.slice(blockBoundary(text, 0))).toBe("next");
  });

  it("goes on from a previous boundary, scanning only what came after it", () => {
    const text = "A\n\nB\n\nC";
    const first = blockBoundary("A\n\nB", 0);
    expect(first).toBe(3);
    expect(blockBoundary(text, first)).toBe(6);
  });
});

describe("renderDelay", () => {
  it("renders every frame while the block being written is short", () => {
    expect(renderDelay(0)).toBe(0);
    expect(renderDelay(7_999)).toBe(0);
  });

  it("waits longer as it grows, at most half a second", () => {
    expect(renderDelay(16_000)).toBe(200);
    expect(renderDelay(1_000_000)).toBe(500);
  });
});

describe("atBottom", () => {
  it("is true near the bottom, false when scrolled up", () => {
    expect(atBottom(600, 1000, 400)).toBe(true);
    expect(atBottom(570, 1000, 400)).toBe(true);
    expect(atBottom(100, 1000, 400)).toBe(false);
    expect(atBottom(0, 300, 400)).toBe(true); // shorter than the view
  });
});

describe("toolLabel", () => {
  it("shows an MCP tool by its own name, its server apart", () => {
    expect(toolLabel("mcp__idea__idea_ask_agent")).toEqual({
      tool: "idea_ask_agent",
      server: "idea",
    });
    expect(toolLabel("mcp__github__create_pull_request")).toEqual({
      tool: "create_pull_request",
      server: "github",
    });
  });

  it("leaves a built-in tool as it is", () => {
    expect(toolLabel("Bash")).toEqual({ tool: "Bash", server: null });
    expect(toolLabel("mcp__")).toEqual({ tool: "mcp__", server: null });
    expect(toolLabel("read_file")).toEqual({ tool: "read_file", server: null });
  });
});

describe("toolData", () => {
  it("pretty-prints an input", () => {
    expect(toolData({ command: "ls -la", timeout: 5 })).toEqual({
      text: '{\n  "command": "ls -la",\n  "timeout": 5\n}',
      json: true,
    });
  });

  it("pretty-prints an output that is JSON text", () => {
    expect(toolData('{"reply":"done","ok":true}')).toEqual({
      text: '{\n  "reply": "done",\n  "ok": true\n}',
      json: true,
    });
  });

  it("keeps any other output as it came", () => {
    expect(toolData("total 12\ndrwxr-xr-x")).toEqual({ text: "total 12\ndrwxr-xr-x", json: false });
    expect(toolData("{not json")).toEqual({ text: "{not json", json: false });
  });

  it("knows an empty input", () => {
    expect(emptyData(toolData({}))).toBe(true);
    expect(emptyData(toolData(""))).toBe(true);
    expect(emptyData(toolData({ a: 1 }))).toBe(false);
  });
});

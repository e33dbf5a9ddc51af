// How a tool call is labelled and its data shown: the tool's own name with its MCP server apart,
// JSON pretty-printed (a string holding JSON too), anything else as it came.

export type ToolLabel = { tool: string; server: string | null };

/** `mcp__idea__idea_ask_agent` → `idea_ask_agent` on server `idea`; `Bash` stays `Bash`. */
export function toolLabel(name: string): ToolLabel {
  const m = /^mcp__(.+?)__(.+)$/.exec(name);
  return m ? { tool: m[2], server: m[1] } : { tool: name, server: null };
}

export type ToolData = { text: string; json: boolean };

/** A tool's input (any JSON value) or output (text, often JSON) ready to show. */
export function toolData(value: unknown): ToolData {
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (/^[[{]/.test(trimmed)) {
      try {
        return { text: JSON.stringify(JSON.parse(trimmed), null, 2), json: true };
      } catch {
        // not JSON after all: as it came
      }
    }
    return { text: value, json: false };
  }
  if (value === undefined) return { text: "", json: false };
  return { text: JSON.stringify(value, null, 2) ?? String(value), json: true };
}

/** Nothing worth a section ({} or empty text). */
export function emptyData(data: ToolData): boolean {
  return data.text.trim() === "" || data.text === "{}";
}

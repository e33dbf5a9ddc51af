// Which cell each tab had maximised, kept in localStorage so that a reload shows it so again.
// Pure: the layout view reads and writes the text; a bad or foreign value reads as nothing.

export const MAXIMIZED_KEY = "idea.maximized";
const KEPT = 64; // tabs remembered; beyond, the oldest are forgotten

export type Maximized = Record<string, string>; // tab id -> leaf id

export function readMaximized(text: string | null): Maximized {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    if (!value || typeof value !== "object" || Array.isArray(value)) return {};
    const out: Maximized = {};
    for (const [tab, leaf] of Object.entries(value)) {
      if (typeof leaf === "string" && leaf && tab.length <= 100 && leaf.length <= 100)
        out[tab] = leaf;
    }
    return out;
  } catch {
    return {};
  }
}

/** `kept` with `tab`'s maximised cell set ("" : none), the newest last, at most KEPT tabs. */
export function withMaximized(kept: Maximized, tab: string, leaf: string): Maximized {
  const out: Maximized = {};
  for (const [t, l] of Object.entries(kept)) if (t !== tab) out[t] = l;
  if (leaf) out[tab] = leaf;
  const tabs = Object.keys(out);
  for (const t of tabs.slice(0, Math.max(0, tabs.length - KEPT))) delete out[t];
  return out;
}

// The workspace's commands and their keys: one table, read by the key router, the "?" help and the
// command palette, so a key and its description never drift apart. Pure: a key press is described
// by its fields and the place it happened (a terminal, a text box, the rest of the page), and the
// router decides whether the workspace takes it or leaves it to the element (word jumps in a text
// box or a shell, Escape in vim).

export type Action =
  | "next"
  | "prev"
  | "splitRight"
  | "splitDown"
  | "close"
  | "picker"
  | "maximize"
  | "equalize"
  | "nextTab"
  | "prevTab"
  | "newTab"
  | "find"
  | "copy"
  | "paste"
  | "fontBigger"
  | "fontSmaller"
  | "fontReset"
  | "palette"
  | "openProject"
  | "panel"
  | "help";

/** Where a key press happens: in a terminal, in an editable element, or elsewhere in the page. */
export type KeyPlace = "terminal" | "editable" | "page";

/** What the router reads of a KeyboardEvent (a plain object in tests). */
export type KeyLike = {
  key: string;
  code: string;
  altKey: boolean;
  ctrlKey: boolean;
  shiftKey: boolean;
  metaKey: boolean;
  type?: string;
};

/** What the workspace is in, for keys that only mean something then. */
export type KeyState = { maximized: boolean };

type Binding = {
  /** "Alt+Shift+ArrowRight": modifiers, then an `e.code` (KeyW, Digit0, F6) or one character
   * compared with `e.key` ("=", "+": the character the layout gives, Shift then does not count). */
  spec: string;
  places: readonly KeyPlace[];
  /** The browser's own handling does the work (Ctrl+Shift+V pastes as plain text into xterm's
   * text area, which pastes into the terminal): the key is only kept away from the terminal. */
  native?: boolean;
  /** Taken only while a cell is maximised (Escape restores it). */
  whenMaximized?: boolean;
};

export type Command = {
  action: Action;
  label: string;
  group: "Cells" | "Tabs" | "Terminal" | "App";
  bindings: readonly Binding[];
};

const EVERYWHERE: readonly KeyPlace[] = ["terminal", "editable", "page"];
// Alt+←/→ jump by word in text boxes (macOS) and shells (readline): not taken there.
const OUTSIDE_EDITORS: readonly KeyPlace[] = ["page"];
const NOT_IN_TERMINAL: readonly KeyPlace[] = ["editable", "page"];
const IN_TERMINAL: readonly KeyPlace[] = ["terminal"];

export const COMMANDS: readonly Command[] = [
  {
    action: "next",
    label: "Focus the next cell",
    group: "Cells",
    bindings: [
      { spec: "Alt+ArrowRight", places: OUTSIDE_EDITORS },
      { spec: "F6", places: EVERYWHERE },
    ],
  },
  {
    action: "prev",
    label: "Focus the previous cell",
    group: "Cells",
    bindings: [
      { spec: "Alt+ArrowLeft", places: OUTSIDE_EDITORS },
      { spec: "Shift+F6", places: EVERYWHERE },
    ],
  },
  {
    action: "splitRight",
    label: "Split right",
    group: "Cells",
    bindings: [{ spec: "Alt+Shift+ArrowRight", places: EVERYWHERE }],
  },
  {
    action: "splitDown",
    label: "Split down",
    group: "Cells",
    bindings: [{ spec: "Alt+Shift+ArrowDown", places: EVERYWHERE }],
  },
  {
    action: "close",
    label: "Close the focused cell",
    group: "Cells",
    bindings: [{ spec: "Alt+Shift+KeyW", places: EVERYWHERE }],
  },
  {
    action: "picker",
    label: "Open the agent picker of the focused cell",
    group: "Cells",
    bindings: [{ spec: "Alt+Shift+KeyA", places: EVERYWHERE }],
  },
  {
    action: "maximize",
    label: "Maximise or restore the focused cell",
    group: "Cells",
    bindings: [
      { spec: "Alt+Shift+KeyM", places: EVERYWHERE },
      { spec: "Escape", places: NOT_IN_TERMINAL, whenMaximized: true },
    ],
  },
  {
    action: "equalize",
    label: "Equalize the sizes of the focused cell's split",
    group: "Cells",
    bindings: [{ spec: "Alt+Shift+Equal", places: EVERYWHERE }],
  },
  {
    action: "nextTab",
    label: "Next tab",
    group: "Tabs",
    bindings: [{ spec: "Ctrl+PageDown", places: EVERYWHERE }],
  },
  {
    action: "prevTab",
    label: "Previous tab",
    group: "Tabs",
    bindings: [{ spec: "Ctrl+PageUp", places: EVERYWHERE }],
  },
  {
    action: "newTab",
    label: "New tab",
    group: "Tabs",
    bindings: [{ spec: "Alt+Shift+KeyT", places: EVERYWHERE }],
  },
  {
    action: "find",
    label: "Find in the terminal",
    group: "Terminal",
    bindings: [{ spec: "Ctrl+Shift+KeyF", places: IN_TERMINAL }],
  },
  {
    action: "copy",
    label: "Copy the terminal's selection",
    group: "Terminal",
    bindings: [{ spec: "Ctrl+Shift+KeyC", places: IN_TERMINAL }],
  },
  {
    action: "paste",
    label: "Paste into the terminal",
    group: "Terminal",
    bindings: [{ spec: "Ctrl+Shift+KeyV", places: IN_TERMINAL, native: true }],
  },
  {
    action: "fontBigger",
    label: "Bigger terminal font",
    group: "Terminal",
    bindings: [
      { spec: "Ctrl+=", places: IN_TERMINAL },
      { spec: "Ctrl++", places: IN_TERMINAL },
    ],
  },
  {
    action: "fontSmaller",
    label: "Smaller terminal font",
    group: "Terminal",
    bindings: [{ spec: "Ctrl+-", places: IN_TERMINAL }],
  },
  {
    action: "fontReset",
    label: "Default terminal font size",
    group: "Terminal",
    bindings: [{ spec: "Ctrl+0", places: IN_TERMINAL }],
  },
  {
    action: "palette",
    label: "Command palette",
    group: "App",
    bindings: [{ spec: "Ctrl+Shift+KeyP", places: EVERYWHERE }],
  },
  {
    action: "openProject",
    label: "Open another project",
    group: "App",
    bindings: [{ spec: "Alt+Shift+KeyO", places: EVERYWHERE }],
  },
  { action: "panel", label: "Show or hide the side panel", group: "App", bindings: [] },
  {
    action: "help",
    label: "Show or hide the keyboard shortcuts",
    group: "App",
    bindings: [{ spec: "Alt+Shift+Slash", places: EVERYWHERE }],
  },
];

type Parsed = {
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
  key: string | null;
  code: string | null;
};

const MODIFIERS = new Set(["Ctrl", "Alt", "Shift"]);

export function parseSpec(spec: string): Parsed {
  // The last "+" of "Ctrl++" is the key itself.
  const parts = spec.endsWith("++") ? [...spec.slice(0, -2).split("+"), "+"] : spec.split("+");
  const last = parts.pop() ?? "";
  for (const m of parts) if (!MODIFIERS.has(m)) throw new Error(`bad modifier ${m} in ${spec}`);
  if (!last) throw new Error(`no key in ${spec}`);
  return {
    ctrl: parts.includes("Ctrl"),
    alt: parts.includes("Alt"),
    shift: parts.includes("Shift"),
    key: last.length === 1 ? last : null,
    code: last.length === 1 ? null : last,
  };
}

const parsed = new Map<string, Parsed>();
function spec(s: string): Parsed {
  let p = parsed.get(s);
  if (!p) parsed.set(s, (p = parseSpec(s)));
  return p;
}

/** Whether a key press is the key of `specText` (exact modifiers; Meta never matches). */
export function matches(specText: string, e: KeyLike): boolean {
  const p = spec(specText);
  if (e.metaKey || e.ctrlKey !== p.ctrl || e.altKey !== p.alt) return false;
  if (p.key !== null) return e.key === p.key; // the character already says whether Shift was down
  if (e.shiftKey !== p.shift) return false;
  return e.code === p.code;
}

const CODE_LABELS: Record<string, string> = {
  ArrowRight: "→",
  ArrowLeft: "←",
  ArrowUp: "↑",
  ArrowDown: "↓",
  Escape: "Esc",
  Slash: "/",
  Equal: "=",
  Minus: "-",
};

/** The keys as people read them: "Alt+Shift+→", "Ctrl+Shift+P", "Esc". */
export function keyLabel(specText: string): string {
  const p = spec(specText);
  const code = p.code ?? "";
  const name =
    p.key ??
    CODE_LABELS[code] ??
    (code.startsWith("Key") ? code.slice(3) : code.startsWith("Digit") ? code.slice(5) : code);
  return [p.ctrl && "Ctrl", p.alt && "Alt", p.shift && "Shift", name].filter(Boolean).join("+");
}

/** Where each binding applies, in words (the help and the palette show it). */
export function placeNote(b: Binding): string {
  if (b.whenMaximized) return "while a cell is maximised, outside terminals";
  if (b.places === OUTSIDE_EDITORS) return "outside text boxes and terminals";
  if (b.places === IN_TERMINAL) return "in a terminal";
  return "";
}

/** The labels of a command's keys: ["Alt+→", "F6"]. */
export function commandKeys(c: Command): string[] {
  return c.bindings.map((b) => keyLabel(b.spec));
}

export type Routed = { action: Action; native: boolean };

/**
 * The command a key press runs, or null when the workspace leaves the key to the element.
 * `native`: leave the default action alone (the browser does the work) but keep the key from
 * the terminal.
 */
export function routeKey(e: KeyLike, place: KeyPlace, state: KeyState): Routed | null {
  if (e.type !== undefined && e.type !== "keydown" && e.type !== "keypress" && e.type !== "keyup") {
    return null;
  }
  for (const c of COMMANDS) {
    for (const b of c.bindings) {
      if (!b.places.includes(place)) continue;
      if (b.whenMaximized && !state.maximized) continue;
      if (matches(b.spec, e)) return { action: c.action, native: !!b.native };
    }
  }
  return null;
}

export function commandOf(action: Action): Command {
  const c = COMMANDS.find((x) => x.action === action);
  if (!c) throw new Error(`no command ${action}`);
  return c;
}

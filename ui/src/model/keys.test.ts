import { describe, expect, it } from "vitest";

import {
  COMMANDS,
  commandKeys,
  keyLabel,
  type KeyLike,
  type KeyPlace,
  matches,
  parseSpec,
  routeKey,
} from "./keys";

/** A key press from a spec-like string: "Ctrl+Shift+KeyP", "Alt+ArrowLeft", "Ctrl+=". */
function press(text: string, over: Partial<KeyLike> = {}): KeyLike {
  const parts = text.endsWith("++") ? [...text.slice(0, -2).split("+"), "+"] : text.split("+");
  const last = parts.pop()!;
  const key =
    last.length === 1
      ? last
      : last.startsWith("Key")
        ? last.slice(3).toLowerCase()
        : last.startsWith("Digit")
          ? last.slice(5)
          : last;
  const code =
    last.length === 1
      ? ({ "=": "Equal", "+": "Equal", "-": "Minus", "0": "Digit0" }[last] ?? "")
      : last;
  return {
    key,
    code,
    altKey: parts.includes("Alt"),
    ctrlKey: parts.includes("Ctrl"),
    shiftKey: parts.includes("Shift") || last === "+",
    metaKey: false,
    type: "keydown",
    ...over,
  };
}

const PLACES: KeyPlace[] = ["terminal", "editable", "page"];
const idle = { maximized: false };
const route = (k: string, place: KeyPlace, maximized = false) =>
  routeKey(press(k), place, { maximized })?.action ?? null;

// Keys a text box or a shell uses for editing: the workspace never takes them there.
const EDITING_KEYS = [
  "ArrowLeft",
  "ArrowRight",
  "ArrowUp",
  "ArrowDown",
  "Home",
  "End",
  "PageUp",
  "PageDown",
  "Shift+ArrowLeft",
  "Shift+ArrowRight",
  "Ctrl+ArrowLeft",
  "Ctrl+ArrowRight",
  "Ctrl+Shift+ArrowLeft",
  "Ctrl+Shift+ArrowRight",
  "Alt+ArrowLeft",
  "Alt+ArrowRight",
  "Alt+ArrowUp",
  "Alt+ArrowDown",
  "Ctrl+Home",
  "Ctrl+End",
  "Shift+Home",
  "Shift+End",
  "Backspace",
  "Delete",
  "Ctrl+Backspace",
  "Ctrl+Delete",
  "Alt+Backspace",
  "Enter",
  "Shift+Enter",
  "Tab",
  "Shift+Tab",
  "Escape",
  "Ctrl+KeyA",
  "Ctrl+KeyC",
  "Ctrl+KeyV",
  "Ctrl+KeyX",
  "Ctrl+KeyZ",
  "Ctrl+KeyY",
  "Ctrl+Shift+KeyZ",
];
// What shells and TUIs read besides: readline's Alt+letter and Ctrl+letter, function keys.
const TERMINAL_KEYS = [
  ...EDITING_KEYS,
  "Alt+KeyB",
  "Alt+KeyF",
  "Alt+KeyD",
  "Alt+Period",
  "Ctrl+KeyR",
  "Ctrl+KeyW",
  "Ctrl+KeyU",
  "Ctrl+KeyK",
  "Ctrl+KeyL",
  "Ctrl+KeyD",
  "Ctrl+KeyP",
  "Ctrl+KeyN",
  "Ctrl+KeyF",
  "Ctrl+KeyB",
  "F1",
  "F2",
  "F5",
  "F10",
  "Shift+PageUp",
  "Shift+PageDown",
];

describe("key routing", () => {
  it("leaves every editing key to text boxes, even while a cell is maximised but Escape", () => {
    for (const k of EDITING_KEYS) expect(route(k, "editable"), k).toBeNull();
    for (const k of EDITING_KEYS.filter((k) => k !== "Escape")) {
      expect(route(k, "editable", true), k).toBeNull();
    }
  });

  it("leaves the keys of shells and TUIs to the terminal, Escape included", () => {
    for (const k of TERMINAL_KEYS) {
      expect(route(k, "terminal"), k).toBeNull();
      expect(route(k, "terminal", true), k).toBeNull();
    }
  });

  it("moves the focus with Alt+←/→ only outside text boxes and terminals; F6 works everywhere", () => {
    expect(route("Alt+ArrowRight", "page")).toBe("next");
    expect(route("Alt+ArrowLeft", "page")).toBe("prev");
    for (const place of ["terminal", "editable"] as const) {
      expect(route("Alt+ArrowRight", place)).toBeNull();
      expect(route("Alt+ArrowLeft", place)).toBeNull();
    }
    for (const place of PLACES) {
      expect(route("F6", place)).toBe("next");
      expect(route("Shift+F6", place)).toBe("prev");
    }
  });

  it("takes the workspace's Alt+Shift keys, the palette and the tab keys everywhere", () => {
    const everywhere: Record<string, string> = {
      "Alt+Shift+ArrowRight": "splitRight",
      "Alt+Shift+ArrowDown": "splitDown",
      "Alt+Shift+KeyW": "close",
      "Alt+Shift+KeyA": "picker",
      "Alt+Shift+KeyM": "maximize",
      "Alt+Shift+Equal": "equalize",
      "Alt+Shift+KeyT": "newTab",
      "Alt+Shift+KeyO": "openProject",
      "Alt+Shift+Slash": "help",
      "Ctrl+Shift+KeyP": "palette",
      "Ctrl+PageDown": "nextTab",
      "Ctrl+PageUp": "prevTab",
    };
    for (const [k, action] of Object.entries(everywhere)) {
      for (const place of PLACES) expect(route(k, place), `${k} in ${place}`).toBe(action);
    }
  });

  it("takes the terminal's own keys only in a terminal (the browser keeps Ctrl+= elsewhere)", () => {
    const inTerminal: Record<string, string> = {
      "Ctrl+Shift+KeyF": "find",
      "Ctrl+Shift+KeyC": "copy",
      "Ctrl+Shift+KeyV": "paste",
      "Ctrl+=": "fontBigger",
      "Ctrl++": "fontBigger",
      "Ctrl+-": "fontSmaller",
      "Ctrl+0": "fontReset",
    };
    for (const [k, action] of Object.entries(inTerminal)) {
      expect(route(k, "terminal"), k).toBe(action);
      expect(route(k, "editable"), k).toBeNull();
      expect(route(k, "page"), k).toBeNull();
    }
  });

  it("pastes natively: the key is kept from xterm but its default action is left alone", () => {
    expect(routeKey(press("Ctrl+Shift+KeyV"), "terminal", idle)).toEqual({
      action: "paste",
      native: true,
    });
    expect(routeKey(press("Ctrl+Shift+KeyC"), "terminal", idle)).toEqual({
      action: "copy",
      native: false,
    });
  });

  it("restores a maximised cell with Escape outside terminals, and only then", () => {
    expect(route("Escape", "page")).toBeNull();
    expect(route("Escape", "page", true)).toBe("maximize");
    expect(route("Escape", "editable", true)).toBe("maximize");
    expect(route("Escape", "terminal", true)).toBeNull();
  });

  it("never matches with Meta held, nor events that are not key presses", () => {
    expect(routeKey(press("Ctrl+Shift+KeyP", { metaKey: true }), "page", idle)).toBeNull();
    expect(routeKey(press("Ctrl+Shift+KeyP", { type: "input" }), "page", idle)).toBeNull();
    expect(routeKey(press("Ctrl+Shift+KeyP", { type: undefined }), "page", idle)?.action).toBe(
      "palette",
    );
  });

  it("reads letters by their key position, so Alt on any layout still matches", () => {
    // macOS Option+Shift+W gives "„": the code is still KeyW.
    expect(routeKey(press("Alt+Shift+KeyW", { key: "„" }), "page", idle)?.action).toBe("close");
  });

  it("reads the font keys by character (Ctrl++ is Ctrl+Shift+= on a US keyboard; the keypad too)", () => {
    expect(
      routeKey(press("Ctrl++", { code: "NumpadAdd", shiftKey: false }), "terminal", idle)?.action,
    ).toBe("fontBigger");
    expect(routeKey(press("Ctrl+-", { code: "NumpadSubtract" }), "terminal", idle)?.action).toBe(
      "fontSmaller",
    );
    expect(routeKey(press("Ctrl+=", { altKey: true }), "terminal", idle)).toBeNull();
  });
});

describe("the key table", () => {
  it("has one command per action, each with a label", () => {
    const actions = COMMANDS.map((c) => c.action);
    expect(new Set(actions).size).toBe(actions.length);
    for (const c of COMMANDS) expect(c.label.length).toBeGreaterThan(3);
  });

  it("never gives one key two commands in the same place", () => {
    const seen = new Map<string, string>();
    for (const c of COMMANDS) {
      for (const b of c.bindings) {
        const p = parseSpec(b.spec);
        for (const place of b.places) {
          const id = `${place}|${p.ctrl}|${p.alt}|${p.key === null ? p.shift : "*"}|${p.key ?? p.code}|${!!b.whenMaximized}`;
          expect(seen.get(id), `${b.spec} in ${place}`).toBeUndefined();
          seen.set(id, c.action);
        }
      }
    }
  });

  it("matches each binding with the key press its spec describes, in each of its places", () => {
    for (const c of COMMANDS) {
      for (const b of c.bindings) {
        expect(matches(b.spec, press(b.spec)), b.spec).toBe(true);
        for (const place of b.places) {
          expect(
            routeKey(press(b.spec), place, { maximized: true })?.action,
            `${b.spec} in ${place}`,
          ).toBe(c.action);
        }
      }
    }
  });

  it("labels keys as people read them", () => {
    expect(keyLabel("Alt+Shift+ArrowRight")).toBe("Alt+Shift+→");
    expect(keyLabel("Ctrl+Shift+KeyP")).toBe("Ctrl+Shift+P");
    expect(keyLabel("Alt+Shift+Slash")).toBe("Alt+Shift+/");
    expect(keyLabel("Escape")).toBe("Esc");
    expect(keyLabel("Ctrl++")).toBe("Ctrl++");
    expect(keyLabel("Ctrl+0")).toBe("Ctrl+0");
    expect(commandKeys(COMMANDS.find((c) => c.action === "next")!)).toEqual(["Alt+→", "F6"]);
  });

  it("refuses a spec it cannot read", () => {
    expect(() => parseSpec("Hyper+KeyA")).toThrow();
    expect(() => parseSpec("Ctrl+")).toThrow();
  });
});

import { describe, expect, it } from "vitest";

import { contrast, TERMINAL_THEME } from "./theme";

describe("the terminal's colours", () => {
  it("are all readable on its background: 4.5:1 at least", () => {
    const { background, selectionBackground, ...text } = TERMINAL_THEME;
    expect(selectionBackground).toBeTruthy();
    for (const [name, colour] of Object.entries(text)) {
      expect([name, contrast(colour, background) >= 4.5]).toEqual([name, true]);
    }
  });

  it("measures contrast as WCAG does", () => {
    expect(contrast("#000000", "#ffffff")).toBeCloseTo(21, 5);
    expect(contrast("#777777", "#ffffff")).toBeCloseTo(4.48, 2);
    expect(contrast("#cd3131", "#0f1115")).toBeLessThan(4.5); // xterm's own red, which it replaces
  });
});

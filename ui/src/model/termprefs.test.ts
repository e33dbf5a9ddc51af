import { describe, expect, it } from "vitest";

import { chooseRenderer, FONT_SIZE, readFontSize, stepFontSize } from "./termprefs";

describe("terminal font size", () => {
  it("reads what was stored, else the default", () => {
    expect(readFontSize("15")).toBe(15);
    expect(readFontSize(null)).toBe(FONT_SIZE.default);
    expect(readFontSize("big")).toBe(FONT_SIZE.default);
    expect(readFontSize("")).toBe(FONT_SIZE.min); // Number("") is 0: clamped, not NaN
    expect(readFontSize("99")).toBe(FONT_SIZE.max);
    expect(readFontSize("13.6")).toBe(14);
  });

  it("steps one pixel within the range, and Ctrl+0 goes back to the default", () => {
    expect(stepFontSize(13, "fontBigger")).toBe(14);
    expect(stepFontSize(13, "fontSmaller")).toBe(12);
    expect(stepFontSize(FONT_SIZE.max, "fontBigger")).toBe(FONT_SIZE.max);
    expect(stepFontSize(FONT_SIZE.min, "fontSmaller")).toBe(FONT_SIZE.min);
    expect(stepFontSize(20, "fontReset")).toBe(FONT_SIZE.default);
  });
});

describe("terminal renderer", () => {
  const gpu = { available: true, renderer: "ANGLE (NVIDIA GeForce RTX 3060)" };
  const swiftshader = {
    available: true,
    renderer: "ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero)), SwiftShader driver)",
  };
  const none = { available: false, renderer: null };

  it("is WebGL on a GPU, the DOM renderer without WebGL 2 or on a software one", () => {
    expect(chooseRenderer(null, gpu)).toBe("webgl");
    expect(chooseRenderer(null, { available: true, renderer: null })).toBe("webgl");
    expect(chooseRenderer(null, swiftshader)).toBe("dom");
    expect(
      chooseRenderer(null, { available: true, renderer: "llvmpipe (LLVM 15.0.6, 256 bits)" }),
    ).toBe("dom");
    expect(
      chooseRenderer(null, { available: true, renderer: "Microsoft Basic Render Driver" }),
    ).toBe("dom");
    expect(chooseRenderer(null, none)).toBe("dom");
  });

  it("follows a stored preference, but never WebGL where there is none", () => {
    expect(chooseRenderer("webgl", swiftshader)).toBe("webgl");
    expect(chooseRenderer("dom", gpu)).toBe("dom");
    expect(chooseRenderer("webgl", none)).toBe("dom");
    expect(chooseRenderer("nonsense", gpu)).toBe("webgl");
  });
});

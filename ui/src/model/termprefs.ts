// What the terminals remember and decide on their own: the font size (one for every terminal,
// kept in localStorage across reloads) and which renderer draws them. Pure: the view reads and
// writes the stored strings and probes WebGL; these functions decide.

export const FONT_SIZE = { min: 8, max: 32, default: 13 } as const;
export const FONT_SIZE_KEY = "idea.terminal.fontSize";
/** "webgl", "dom" or absent (auto): a way to force a renderer (e2e tests, the throughput bench). */
export const RENDERER_KEY = "idea.terminal.renderer";

export type FontStep = "fontBigger" | "fontSmaller" | "fontReset";

/** The stored font size, or the default when absent or unreadable; clamped to the range. */
export function readFontSize(stored: string | null): number {
  const n = stored === null ? NaN : Number(stored);
  if (!Number.isFinite(n)) return FONT_SIZE.default;
  return clampFont(Math.round(n));
}

function clampFont(n: number): number {
  return Math.min(Math.max(n, FONT_SIZE.min), FONT_SIZE.max);
}

/** The font size after Ctrl+= / Ctrl+- / Ctrl+0, one pixel a step, within the range. */
export function stepFontSize(current: number, step: FontStep): number {
  if (step === "fontReset") return FONT_SIZE.default;
  return clampFont(current + (step === "fontBigger" ? 1 : -1));
}

export type Renderer = "webgl" | "dom";
export type WebglProbe = { available: boolean; renderer: string | null };

// Software rasterisers: WebGL there is drawn by the CPU, slower than the DOM renderer.
const SOFTWARE_GL = /swiftshader|llvmpipe|softpipe|software|basic render/i;

/**
 * The renderer of a new terminal: the stored preference when it names one; else WebGL when the
 * browser has it on a GPU, the DOM renderer otherwise (no WebGL 2, or a software one).
 */
export function chooseRenderer(preference: string | null, gl: WebglProbe): Renderer {
  if (preference === "dom") return "dom";
  if (!gl.available) return "dom";
  if (preference === "webgl") return "webgl";
  return gl.renderer !== null && SOFTWARE_GL.test(gl.renderer) ? "dom" : "webgl";
}

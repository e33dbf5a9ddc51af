// The terminals' font: one family, one size shared by every terminal (Ctrl+= / Ctrl+- / Ctrl+0,
// remembered across reloads), and the size of one character cell, which a cell reads to give a
// PTY its first size before any terminal is drawn.

import { FONT_SIZE_KEY, type FontStep, readFontSize, stepFontSize } from "../model/termprefs";
import { stored } from "./termenv";

export const FONT_FAMILY = "'DejaVu Sans Mono', 'Cascadia Mono', Menlo, monospace";

const fontListeners = new Set<(size: number) => void>();

export function terminalFontSize(): number {
  return readFontSize(stored(FONT_SIZE_KEY));
}

/** Ctrl+= / Ctrl+- / Ctrl+0: every terminal takes the new size, remembered across reloads. */
export function stepTerminalFont(step: FontStep): void {
  const size = stepFontSize(terminalFontSize(), step);
  try {
    localStorage.setItem(FONT_SIZE_KEY, String(size));
  } catch {
    // not remembered, still applied
  }
  for (const l of fontListeners) l(size);
}

/** Call `listener` with each new font size until the returned function is called. */
export function onFontSize(listener: (size: number) => void): () => void {
  fontListeners.add(listener);
  return () => void fontListeners.delete(listener);
}

/** The width and height of one character cell of the terminal font (for a PTY's first size). */
export function charCell(fontSize = terminalFontSize()): { width: number; height: number } {
  const ctx = document.createElement("canvas").getContext("2d");
  if (!ctx) return { width: fontSize * 0.6, height: Math.ceil(fontSize * 1.2) };
  ctx.font = `${fontSize}px ${FONT_FAMILY}`;
  return { width: ctx.measureText("W").width || fontSize * 0.6, height: Math.ceil(fontSize * 1.2) };
}

// Colours the UI draws text in, checked for contrast (WCAG 2: 4.5:1 for small text).

/** The dark theme, its ANSI colours lifted to 4.5:1 at least on the background (xterm's own
 * red is 3.2:1, blue 2.8:1): output colours must stay readable. */
export const TERMINAL_THEME = {
  background: "#0f1115",
  foreground: "#d7dae0",
  cursor: "#7aa2f7",
  selectionBackground: "#3d4a6b",
  black: "#7d8590",
  red: "#f14c4c",
  green: "#4ec05a",
  yellow: "#e5c07b",
  blue: "#6f9cf0",
  magenta: "#c678dd",
  cyan: "#3fb7c9",
  white: "#d7dae0",
  brightBlack: "#8a93a3",
  brightRed: "#ff7b7b",
  brightGreen: "#7fdc8b",
  brightYellow: "#f0d58c",
  brightBlue: "#8fb4ff",
  brightMagenta: "#dda5f0",
  brightCyan: "#6fd6e4",
  brightWhite: "#ffffff",
};

/** WCAG 2 contrast ratio of two ``#rrggbb`` colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [la, lb] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (la + 0.05) / (lb + 0.05);
}

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

// What a terminal asks of the browser it runs in: stored preferences, WebGL 2, opening a link
// and the clipboard. Each answers even where the browser refuses (no storage, no WebGL, a
// clipboard the desktop window keeps to itself): the terminal works on without it.

import type { WebglProbe } from "../model/termprefs";
import { showError } from "./banner";

/** A stored preference, or null (none, or storage disabled: the defaults). */
export function stored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null; // storage disabled: defaults
  }
}

let probe: WebglProbe | null = null;

/** Whether this browser has WebGL 2, and on what (asked once, the context given back at once). */
export function webglProbe(): WebglProbe {
  if (probe) return probe;
  probe = { available: false, renderer: null };
  try {
    const gl = document.createElement("canvas").getContext("webgl2");
    if (gl) {
      const info = gl.getExtension("WEBGL_debug_renderer_info");
      probe = {
        available: true,
        renderer: info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : null,
      };
      gl.getExtension("WEBGL_lose_context")?.loseContext();
    }
  } catch {
    // no WebGL: the DOM renderer
  }
  return probe;
}

/** A link in a terminal: the system browser from the desktop window, a new tab in a browser. */
export function openLink(uri: string): void {
  const bridge = (window as { pywebview?: { api?: { open_url?: (url: string) => unknown } } })
    .pywebview?.api;
  if (typeof bridge?.open_url === "function") {
    Promise.resolve(bridge.open_url(uri)).catch((e) => showError(e, "Open link"));
    return;
  }
  window.open(uri, "_blank", "noopener,noreferrer");
}

export async function copyToClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // The desktop window may refuse the async clipboard: the copy command, which xterm answers
    // with its selection while its text area has the focus.
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    }
  }
}

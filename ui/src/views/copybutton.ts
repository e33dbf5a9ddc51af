// A "Copy" button: the clipboard API, else a hidden selection (an older webview), saying how it went.

import { h } from "./dom";

export function copyButton(text: () => string, title = "Copy the code"): HTMLButtonElement {
  const btn = h("button.btn.small.code-copy", { type: "button", title }, "Copy");
  btn.addEventListener("click", () => {
    void copy(text()).then((ok) => {
      btn.textContent = ok ? "Copied" : "Copy failed";
      setTimeout(() => (btn.textContent = "Copy"), 1500);
    });
  });
  return btn;
}

async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API here (an older webview): copy through a selection.
    const area = h("textarea", { value: text, readOnly: true });
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

// A "Copy" button: the clipboard API, else a hidden selection (an older webview), saying how it went.

import { useEffect, useRef, useState } from "preact/hooks";

const SAID_MS = 1500; // how long "Copied" (or "Copy failed") stays before "Copy" again

export function CopyButton({
  text,
  title = "Copy the code",
}: {
  text: () => string;
  title?: string;
}) {
  const [said, setSaid] = useState("Copy");
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const onClick = () =>
    void copy(text()).then((ok) => {
      setSaid(ok ? "Copied" : "Copy failed");
      clearTimeout(timer.current);
      timer.current = setTimeout(() => setSaid("Copy"), SAID_MS);
    });
  return (
    <button type="button" class="btn small code-copy" title={title} onClick={onClick}>
      {said}
    </button>
  );
}

async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API here (an older webview): copy through a selection.
    const area = document.createElement("textarea");
    area.value = text;
    area.readOnly = true;
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

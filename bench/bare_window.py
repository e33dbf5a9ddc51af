"""A bare pywebview window (the same GUI backend as IdeA's, Qt WebEngine on Linux) showing a static
page; prints ``bare window ready`` once the page is loaded and two frames are painted, as IdeA's
window does before ``IdeA window ready``. The baseline of ``bench/ui_start.py``'s window mode.

Usage: python bench/bare_window.py (then SIGTERM it)
"""

from __future__ import annotations

import sys

import webview

READY = "bare window ready"
PAINTED_JS = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))"
PAGE = "<!doctype html><html><body style='background:#0f1115;color:#ddd'>bare</body></html>"


def main() -> int:
    window = webview.create_window("bare", html=PAGE, width=1280, height=800)
    if window is None:
        return 1

    def painted(_result: object) -> None:
        print(READY, flush=True)

    window.events.loaded += lambda: window.evaluate_js(PAINTED_JS, painted)
    webview.start(gui="qt" if sys.platform.startswith("linux") else None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The project served to the window process (``desktop.py`` spawned it): the same
``serve_project`` as ``idea serve``, on this process's asyncio loop, telling the window the UI's
URL once the UI server listens and the project's title after each switch.

What the window says reaches the loop through ``call_soon_threadsafe`` and is handled here only.
Invariant: the project closes after the window has gone, so no page acts on a closing project.
The window gone by its user's hand ends the app; a window that never showed (it said why, or its
process ended) leaves the project served for a browser, as ``idea serve`` does.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path

from idea.app.headless import Printer, install_signal_handlers, serve_project
from idea.app.project_host import ProjectHost
from idea.app.runtime import ProjectRuntime
from idea.app.window.link import CLOSE_TIMEOUT_S, EXITED, UNAVAILABLE_LINE, WindowLink
from idea.app.window.wire import READY, SHOWN, UNAVAILABLE

READY_LINE = "IdeA window ready"
HEADLESS_LINE = "headless core running (file door and UI server open); stop with Ctrl+C or SIGTERM"
TITLE_PREFIX = "IdeA — "
SHOW_TIMEOUT_S = 30.0


def serve_with_window(root: Path, out: Printer, err: Printer, port: int, window: WindowLink) -> int:
    return asyncio.run(_serve(root, out, err, port, window))


async def _serve(root: Path, out: Printer, err: Printer, port: int, window: WindowLink) -> int:
    ending = asyncio.Event()  # a signal, or the window closed
    stop = asyncio.Event()  # what closes the project: set once the window has gone
    install_signal_handlers(ending)
    loop = asyncio.get_running_loop()
    linked = _Linked(out, window, ending.set)

    def heard(kind: str, detail: str) -> None:  # the link's threads
        with contextlib.suppress(RuntimeError):  # the loop has closed: nothing to tell
            loop.call_soon_threadsafe(linked.heard, kind, detail)

    window.listen(heard)
    timer = loop.call_later(SHOW_TIMEOUT_S, linked.show_timed_out)

    async def close_window_first() -> None:
        await ending.wait()
        await asyncio.to_thread(window.close, CLOSE_TIMEOUT_S)
        stop.set()

    closer = asyncio.create_task(close_window_first(), name="window closer")
    try:
        await serve_project(root, out, err, port, stop, linked.started)
    finally:
        timer.cancel()
        closer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await closer
    return 0


class _Linked:
    """What the window said and what the project did, on the loop's thread."""

    def __init__(self, out: Printer, window: WindowLink, end: Callable[[], None]) -> None:
        self._out, self._window, self._end = out, window, end
        self._shown = False
        self._headless = False  # no window: served for a browser
        self._served = False

    def started(self, host: ProjectHost, url: str) -> None:
        self._served = True
        self._window.show(url, *_title_and_root(host.current))
        host.on_switch(lambda runtime: self._window.retitle(*_title_and_root(runtime)))
        if self._headless:
            self._out(HEADLESS_LINE)

    def heard(self, kind: str, detail: str) -> None:
        if kind == SHOWN:
            self._shown = True
        elif kind == READY:
            self._out(READY_LINE)
        elif kind == UNAVAILABLE:
            self._unavailable(detail)
        elif kind == EXITED and self._shown:
            self._end()  # closed by its user (or its process died): the app ends with it
        elif kind == EXITED:
            self._unavailable(detail or "the window process ended before it showed a window")

    def show_timed_out(self) -> None:
        if not self._shown:
            self._unavailable(f"Qt did not start within {SHOW_TIMEOUT_S:.0f}s")
            self._window.terminate()

    def _unavailable(self, reason: str) -> None:
        if self._headless:
            return
        self._headless = True
        self._out(UNAVAILABLE_LINE.format(reason))
        if self._served:
            self._out(HEADLESS_LINE)


def _title_and_root(runtime: ProjectRuntime) -> tuple[str, str]:
    services = runtime.services
    return TITLE_PREFIX + services.info.name, str(services.paths.root)

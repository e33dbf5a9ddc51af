"""ui/API.md is the contract a TypeScript client is written from: it must match the server."""

import inspect
import re
from pathlib import Path

from idea.app.ui.api import HANDLERS, METHODS, method_name
from idea.domain.events import EVENT_TYPES

API_MD = (Path(__file__).resolve().parents[4] / "ui" / "API.md").read_text(encoding="utf-8")
HEADINGS = dict(re.findall(r"^#### `([a-z]+\.[a-z_]+)` — (immediate|async)$", API_MD, re.M))


def test_every_method_is_documented_and_every_documented_method_exists():
    assert set(HEADINGS) == set(METHODS)


def test_the_documented_ordering_of_each_method_is_the_real_one():
    # "immediate" methods answer before the next request is read, which keeps keystrokes in order.
    handlers = {method_name(h): h for h in HANDLERS}
    for name, kind in HEADINGS.items():
        handler = handlers[name]
        assert inspect.iscoroutinefunction(handler) == (kind == "async"), name


def test_every_pushed_domain_event_is_documented():
    for event_type in EVENT_TYPES:
        assert f"| `{event_type.__name__}` |" in API_MD
    assert "| `ChatEvent` |" in API_MD
    assert "| `TerminalExit` |" in API_MD

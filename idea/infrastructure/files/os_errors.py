"""The one translation of a foreign ``OSError`` into IdeA's ``Internal`` (httpx's
``map_httpcore_exceptions``): the action, the path and the OS's own reason, chained."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from idea.domain.errors import Internal


def os_error(action: str, path: Path | str, exc: OSError) -> Internal:
    """``Internal("could not <action> <path>: <reason>")``; raise it ``from exc``."""
    return Internal(f"could not {action} {path}: {exc.strerror or exc}")


@contextmanager
def os_errors(action: str, path: Path | str) -> Iterator[None]:
    """Any ``OSError`` raised inside becomes ``os_error(action, path, exc)``."""
    try:
        yield
    except OSError as exc:
        raise os_error(action, path, exc) from exc

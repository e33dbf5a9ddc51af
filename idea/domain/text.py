"""Text a door receives is stored as UTF-8 (agent files, skills, logs), so it must have a UTF-8
form: a lone surrogate, which JSON can carry as a ``"\\ud800"`` escape, is ``INVALID`` at the door
instead of failing later in whatever store writes it.
"""

from __future__ import annotations

from idea.domain.errors import Invalid


def check_text(value: str, field: str) -> str:
    """Return ``value`` if it is valid Unicode text; else raise ``Invalid`` naming ``field``."""
    if value.isascii():  # O(1) in CPython: the common case costs nothing
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise Invalid(
            f"{field}: not valid Unicode text (a lone surrogate at character {exc.start})"
        ) from None
    return value

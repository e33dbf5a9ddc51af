"""Names users type (agents, skills, memory notes) are slugs; anything else is INVALID.

A slug can never escape its folder: no separators, no dots first, no uppercase, at most 64 chars.
Nor is it a name Windows reserves for a device (``con``, ``nul``, ``aux``, ``com1``…): a file
``agents/con.md`` there is the console, not a file, so the same project would break on Windows.
"""

from __future__ import annotations

import re

from idea.domain.errors import Invalid

SLUG_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
# Windows device names, reserved in every folder and whatever the extension.
WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"} | {f"{port}{n}" for port in ("com", "lpt") for n in range(10)}
)


def is_slug(value: str) -> bool:
    return SLUG_RE.fullmatch(value) is not None and value not in WINDOWS_RESERVED


def validate_slug(value: object, what: str = "name") -> str:
    """Return ``value`` if it is a slug, else raise ``Invalid`` naming ``what``."""
    if isinstance(value, str) and value in WINDOWS_RESERVED:
        raise Invalid(f"{what} {value!r} is not valid: Windows reserves it for a device")
    if not isinstance(value, str) or not is_slug(value):
        raise Invalid(
            f"{what} {value!r} is not valid: use 1-64 characters a-z, 0-9, '-' or '_', "
            "starting with a letter or digit"
        )
    return value

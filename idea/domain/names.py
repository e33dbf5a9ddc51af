"""Names users type (agents, skills, memory notes) are slugs; anything else is INVALID.

A slug can never escape its folder: no separators, no dots first, no uppercase, at most 64 chars.
"""

from __future__ import annotations

import re

from idea.domain.errors import Invalid

SLUG_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def is_slug(value: str) -> bool:
    return SLUG_RE.fullmatch(value) is not None


def validate_slug(value: object, what: str = "name") -> str:
    """Return ``value`` if it is a slug, else raise ``Invalid`` naming ``what``."""
    if not isinstance(value, str) or not is_slug(value):
        raise Invalid(
            f"{what} {value!r} is not valid: use 1-64 characters a-z, 0-9, '-' or '_', "
            "starting with a letter or digit"
        )
    return value

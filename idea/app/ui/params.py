"""Reading a UI method's params (ui/API.md): each value typed, each refusal naming its field.

``text`` and ``choice`` are required (``MISSING_FIELD`` when absent, null or empty); the ``opt_``
readers give ``None`` (or the default) for an absent or null value. A wrong type or value is
``INVALID`` naming the field; text with no UTF-8 form (a lone surrogate) too.
"""

from __future__ import annotations

import re
from typing import TypeVar

from idea.domain.errors import Invalid, MissingField
from idea.domain.json_types import JsonObject
from idea.domain.text import check_text

T = TypeVar("T")

# A file's version as ``agents.get`` / ``policy.get`` give it: sha256 hex, or "" for no file.
_VERSION = re.compile(r"(?:[0-9a-f]{64})?")


def text(p: JsonObject, key: str) -> str:
    value = p.get(key)
    if value is None or value == "":
        raise MissingField(key)
    if not isinstance(value, str):
        raise Invalid(f"{key}: expected a string, got {type(value).__name__}")
    return check_text(value, key)


def opt_text(p: JsonObject, key: str) -> str | None:
    value = p.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise Invalid(f"{key}: expected a string or null, got {type(value).__name__}")
    return check_text(value, key)


def opt_bool(p: JsonObject, key: str, *, default: bool) -> bool:
    value = p.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise Invalid(f"{key}: expected true or false, got {value!r}")
    return value


def opt_int(p: JsonObject, key: str, default: int | None, low: int, high: int) -> int:
    value = p.get(key)
    if value is None:
        if default is None:
            raise MissingField(key)
        return default
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise Invalid(f"{key}: expected an integer from {low} to {high}, got {value!r}")
    return value


def choice(p: JsonObject, key: str, choices: tuple[T, ...]) -> T:
    found = opt_choice(p, key, choices)
    if found is None:
        raise MissingField(key)
    return found


def opt_choice(p: JsonObject, key: str, choices: tuple[T, ...]) -> T | None:
    value = p.get(key)
    if value is None:
        return None
    for option in choices:
        if value == option:
            return option
    known = ", ".join(str(c) for c in choices)
    raise Invalid(f"{key}: expected one of {known}, got {value!r}")


def opt_version(p: JsonObject) -> str | None:
    """The ``version`` an edit was made on (ui/API.md), ``None`` when absent or null: the edit
    then replaces whatever is on disk. Raises ``Invalid`` (field ``version``)."""
    value = p.get("version")
    if value is None:
        return None
    if not isinstance(value, str) or not _VERSION.fullmatch(value):
        shown = type(value).__name__ if not isinstance(value, str) else repr(value[:80])
        raise Invalid(
            f"version: expected the version agents.get or policy.get gave (a string), got {shown}",
            "version",
        )
    return value

"""Reading a UI method's params (ui/API.md): each value typed, each refusal naming its field.

``text`` and ``choice`` are required (``MISSING_FIELD`` when absent, null or empty); the ``opt_``
readers give ``None`` (or the default) for an absent or null value. A wrong type or value is
``INVALID`` naming the field; text with no UTF-8 form (a lone surrogate) too.
"""

from __future__ import annotations

from typing import TypeVar

from idea.domain.errors import Invalid, MissingField
from idea.domain.json_types import JsonObject
from idea.domain.text import check_text

T = TypeVar("T")


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

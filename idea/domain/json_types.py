"""Types of decoded JSON, so the domain can keep unknown fields without using ``Any``; and the
one way a shape (a ``TypedDict`` of JSON, what a ``to_json`` is declared to write) is passed where
a ``JsonObject`` is wanted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias, cast

JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
JsonObject: TypeAlias = dict[str, JsonValue]


def json_object(shape: Mapping[str, object]) -> JsonObject:
    """``shape`` as the ``JsonObject`` it is: mypy checks a shape's keys against its builder, but
    does not see a ``TypedDict`` (fixed keys) as a ``dict[str, JsonValue]`` (any key may be set)."""
    return cast(JsonObject, shape)

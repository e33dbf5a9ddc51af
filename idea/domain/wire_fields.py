"""Declared wire fields: each field of a command is declared once, on its dataclass, with its wire
name, its kind and its schema facts; the parser, the checks, the wire form and the JSON Schema are
derived from that one declaration.

Invariant: a record is read field by field in declaration order, each under exactly the keys its
declaration gives (the wire name and its aliases for the file door and the UI; the attribute name
for the MCP tools), so an error names the key the caller used: a key of the wrong type or a
text with no UTF-8 form → ``INVALID``; a required field absent, null or blank → ``MISSING_FIELD``
naming its first key; a field given under two keys that disagree → ``INVALID``. Blank optional
text counts as absent (forms send ""); unknown keys are the caller's business, not the parser's.

Kinds: ``slug`` (a name, ``idea.domain.names``), ``text`` (required or optional), ``flag`` (a
boolean), ``seconds`` (a positive number of seconds up to a declared maximum), ``choice`` (one value
of a ``StrEnum``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Literal, TypeAlias, TypeVar, cast, get_type_hints

from idea.domain.errors import Invalid, MissingField
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.names import validate_slug
from idea.domain.text import check_text

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Kind = Literal["slug", "text", "flag", "seconds", "choice"]
# "wire": the wire name and its aliases (file door, UI); "argument": the attribute name (MCP).
Names = Literal["wire", "argument"]
# What a declared field holds once read.
FieldValue: TypeAlias = str | float | bool | StrEnum | None

R = TypeVar("R", bound="DataclassInstance")
E = TypeVar("E", bound=StrEnum)

SLUG_RULE = "lowercase letters, digits, '-' or '_', starting with a letter or digit"


@dataclass(frozen=True, slots=True)
class Spec:
    """What one declaration says about a field (see the constructors below); it rides in the
    field's annotation, ``name: Annotated[str, slug(...)]``, and the field's default says whether
    it is required (no default) or optional."""

    kind: Kind
    description: str
    wire: str | None = None  # None: the attribute name
    aliases: tuple[str, ...] = ()  # other wire names accepted on input, never written
    choices: type[StrEnum] | None = None  # choice: the enum
    minimum: float | None = None  # seconds: the smallest a caller is told to ask for (schema)
    maximum: float | None = None  # seconds: the largest accepted
    implied_by: str | None = None  # flag: when absent, whether this other attribute is given


def slug(description: str, *, wire: str | None = None, aliases: tuple[str, ...] = ()) -> Spec:
    """A name (agent, skill): a slug, see ``idea.domain.names``."""
    return Spec("slug", description, wire, aliases)


def text(description: str, *, wire: str | None = None) -> Spec:
    """Text: not blank when required; ``None`` or not blank when optional (blank on the wire
    counts as absent)."""
    return Spec("text", description, wire)


def flag(description: str, *, wire: str | None = None, implied_by: str | None = None) -> Spec:
    """A boolean; when absent, its default, or with ``implied_by``: whether that other (earlier)
    attribute is given."""
    return Spec("flag", description, wire, implied_by=implied_by)


def seconds(
    description: str,
    *,
    maximum: float,
    minimum: float | None = None,
    wire: str | None = None,
    aliases: tuple[str, ...] = (),
) -> Spec:
    """A finite number of seconds above zero and at most ``maximum``."""
    return Spec("seconds", description, wire, aliases, minimum=minimum, maximum=maximum)


def choice(enum: type[StrEnum], description: str, *, wire: str | None = None) -> Spec:
    """One value of ``enum``."""
    return Spec("choice", description, wire, choices=enum)


@dataclass(frozen=True, slots=True)
class WireField:
    """A declared field: its attribute name, its wire name, whether it is required, and what its
    declaration says."""

    attr: str
    wire: str
    required: bool
    spec: Spec

    def keys(self, names: Names) -> tuple[str, ...]:
        """The keys this field is read under, the canonical one first."""
        if names == "argument":
            return (self.attr,)
        return (self.wire, *self.spec.aliases)

    def key(self, names: Names) -> str:
        return self.keys(names)[0]


_DECLARED: dict[type[DataclassInstance], tuple[WireField, ...]] = {}


def fields_of(cls: type[DataclassInstance]) -> tuple[WireField, ...]:
    """The declared fields of ``cls``, in declaration order (an undeclared field is a bug)."""
    declared = _DECLARED.get(cls)
    if declared is None:
        declared = _DECLARED[cls] = _declared_fields(cls)
    return declared


def _declared_fields(cls: type[DataclassInstance]) -> tuple[WireField, ...]:
    hints = get_type_hints(cls, include_extras=True)
    declared: list[WireField] = []
    for f in dataclasses.fields(cls):
        specs = [m for m in getattr(hints[f.name], "__metadata__", ()) if isinstance(m, Spec)]
        if len(specs) != 1:
            raise TypeError(f"{cls.__name__}.{f.name} is not declared once as a wire field")
        spec = specs[0]
        if spec.implied_by is not None and spec.implied_by not in {d.attr for d in declared}:
            # The parser reads in declaration order: what a default follows must come first.
            raise TypeError(f"{cls.__name__}.{f.name} is implied by a field not declared before it")
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        declared.append(WireField(f.name, spec.wire or f.name, required, spec))
    return tuple(declared)


# -- reading values -------------------------------------------------------------------------------


def type_name(value: JsonValue) -> str:
    """The JSON type of ``value``, as an error message names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def read_text(obj: JsonObject, key: str) -> str | None:
    """Absent, null or blank → None (forms send ""); a non-string → ``Invalid``."""
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise Invalid(f"{key} must be a string, got {type_name(value)}")
    return check_text(value, key) if value.strip() else None


def read_required_text(obj: JsonObject, key: str) -> str:
    value = read_text(obj, key)
    if value is None:
        raise MissingField(key)
    return value


def _read_flag(obj: JsonObject, key: str) -> bool | None:
    value = obj.get(key)
    if value is None or isinstance(value, bool):
        return value
    raise Invalid(f"{key} must be a boolean, got {type_name(value)}")


def check_seconds(value: float, key: str, maximum: float) -> float:
    """Return ``value`` if it is a finite number of seconds above zero and at most ``maximum``,
    else raise ``Invalid``."""
    # bool is an int subclass; ``true`` seconds is a client bug, not one second.
    if isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        raise Invalid(f"{key} must be a positive number of seconds, got {value!r}")
    if value > maximum:
        raise Invalid(f"{key} must be at most {maximum:,.0f} seconds, got {value!r}")
    return value


def _read_seconds(obj: JsonObject, key: str, maximum: float) -> float | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Invalid(f"{key} must be a positive number of seconds, got {type_name(value)}")
    try:
        number = float(value)
    except OverflowError:  # an integer too large for a float
        raise Invalid(f"{key} is too large") from None
    return check_seconds(number, key, maximum)


def parse_choice(enum: type[E], value: object, key: str) -> E:
    try:
        return enum(str(value))
    except ValueError:
        known = ", ".join(member.value for member in enum)
        raise Invalid(f"{key} must be one of {known}, not {value!r}") from None


def _read(spec: Spec, obj: JsonObject, key: str) -> FieldValue:
    """The value under ``key``, type-checked; ``None`` when absent (or blank text)."""
    if spec.kind == "flag":
        return _read_flag(obj, key)
    if spec.kind == "seconds":
        assert spec.maximum is not None
        return _read_seconds(obj, key, spec.maximum)
    return read_text(obj, key)


def _finish(spec: Spec, value: FieldValue, key: str) -> FieldValue:
    """The checks that apply to the one value kept (names and choices)."""
    if spec.kind == "slug":
        return validate_slug(value, key)
    if spec.kind == "choice":
        assert spec.choices is not None
        return parse_choice(spec.choices, value, key)
    return value


def _value(
    field: WireField, obj: JsonObject, names: Names, values: dict[str, FieldValue]
) -> FieldValue:
    keys = field.keys(names)
    given = [(key, value) for key in keys if (value := _read(field.spec, obj, key)) is not None]
    if not given:
        if field.required:
            raise MissingField(keys[0])
        if field.spec.implied_by is not None:
            return values.get(field.spec.implied_by) is not None
        return None
    key, value = given[0]
    for other_key, other in given[1:]:
        if other != value:
            raise Invalid(f"{key} and {other_key} are both given and disagree; send only {keys[0]}")
    return _finish(field.spec, value, key)


def parse(cls: type[R], obj: JsonObject, names: Names = "wire") -> R:
    """Build ``cls`` from a decoded JSON object read under ``names``; raise ``Invalid`` or
    ``MissingField`` naming the key."""
    values: dict[str, FieldValue] = {}
    for field in fields_of(cls):
        value = _value(field, obj, names, values)
        if value is not None:  # absent: the dataclass default
            values[field.attr] = value
    build = cast(Callable[..., R], cls)
    return build(**values)


# -- checking a record built in code --------------------------------------------------------------


def check_fields(record: DataclassInstance) -> None:
    """Refuse what the parser could never have produced (``__post_init__`` calls it), naming the
    wire name: a bad slug or choice, blank required text, blank optional text (it could not
    round-trip), bad seconds."""
    for field in fields_of(type(record)):
        spec, value = field.spec, getattr(record, field.attr)
        if value is None and not field.required:
            continue
        if spec.kind == "slug":
            validate_slug(value, field.wire)
        elif spec.kind == "choice":
            assert spec.choices is not None
            parse_choice(spec.choices, value, field.wire)
        elif spec.kind == "seconds":
            assert spec.maximum is not None
            check_seconds(value, field.wire, spec.maximum)
        elif spec.kind == "text" and not (isinstance(value, str) and value.strip()):
            if field.required:
                raise MissingField(field.wire)
            raise Invalid(f"{field.wire} must be omitted rather than blank")


# -- writing --------------------------------------------------------------------------------------


def wire_form(record: DataclassInstance) -> JsonObject:
    """The record's fields under their wire names; an absent optional field is left out."""
    wire: JsonObject = {}
    for field in fields_of(type(record)):
        value = getattr(record, field.attr)
        if value is not None:
            wire[field.wire] = value.value if isinstance(value, StrEnum) else value
    return wire


# -- JSON Schema ----------------------------------------------------------------------------------


def property_schema(field: WireField) -> JsonObject:
    """The JSON Schema of one field (draft 2020-12 and draft-04 alike)."""
    spec = field.spec
    schema: JsonObject
    if spec.kind == "slug":
        return {
            "type": "string",
            "description": f"{spec.description} ({SLUG_RULE})",
            "minLength": 1,
        }
    if spec.kind == "text":
        schema = {"type": "string", "description": spec.description}
        if field.required:
            schema["minLength"] = 1
        return schema
    if spec.kind == "flag":
        return {"type": "boolean", "description": spec.description}
    if spec.kind == "seconds":
        schema = {"type": "number", "description": spec.description}
        if spec.minimum is not None:
            schema["minimum"] = spec.minimum
        return schema
    assert spec.choices is not None
    choices: list[JsonValue] = [member.value for member in spec.choices]
    return {"type": "string", "enum": choices, "description": spec.description}


def object_schema(
    cls: type[DataclassInstance], names: Names = "wire", omit: tuple[str, ...] = ()
) -> JsonObject:
    """A closed JSON Schema object of ``cls``'s fields under ``names`` (canonical keys only),
    without the attributes in ``omit``."""
    unknown = set(omit) - {field.attr for field in fields_of(cls)}
    if unknown:
        raise ValueError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
    properties: JsonObject = {}
    required: list[JsonValue] = []
    for field in fields_of(cls):
        if field.attr in omit:
            continue
        properties[field.key(names)] = property_schema(field)
        if field.required:
            required.append(field.key(names))
    schema: JsonObject = {"type": "object", "properties": properties}
    if required:  # an empty "required" is refused by draft-04 validators
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema

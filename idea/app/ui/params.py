"""Reading a UI method's params (ui/API.md): each value typed, each refusal naming its field.

``text`` and ``choice`` are required (``MISSING_FIELD`` when absent, null or empty); the ``opt_``
readers give ``None`` (or the default) for an absent or null value. A wrong type or value is
``INVALID`` naming the field; text with no UTF-8 form (a lone surrogate) too.

A method's params are declared ONCE, as a frozen dataclass whose fields say each param's type,
default and facts (``bounded``, ``checked``, ``custom``): ``read_params`` reads a request by
them, and ``idea.app.ui.typegen`` writes the same fields as the method's TypeScript params.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import MISSING, Field, dataclass, field, fields
from enum import Enum
from types import UnionType
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from idea.domain.errors import Invalid, MissingField
from idea.domain.json_types import JsonObject, JsonValue
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


# --- declared params: one dataclass per method, read by its fields ------------------------------

# A field's facts beyond its type, in ``dataclasses.field(metadata=...)``.
_BOUNDS = "idea.bounds"  # (low, high) of an int
_CHECK = "idea.check"  # (value, key) -> value, run on the value read
_READ = "idea.read"  # ((params, key) -> value, the TypeScript type): a reader of its own
_PRESENT = "idea.present"  # the field is the set of keys the caller sent (absent vs null)


def bounded(low: int, high: int, default: int | None = None) -> Any:
    """An int param from ``low`` to ``high``: required without ``default``."""
    meta = {_BOUNDS: (low, high)}
    if default is None:
        return field(metadata=meta)
    return field(default=default, metadata=meta)


def checked(check: Callable[[Any, str], Any], default: Any = MISSING) -> Any:
    """A param whose value read by its type then goes through ``check(value, key)``."""
    return field(default=default, metadata={_CHECK: check})


def custom(read: Callable[[JsonObject, str], Any], ts: str, *, required: bool) -> Any:
    """A param with a reader of its own; ``ts`` is its TypeScript type, for ui/src."""
    meta = {_READ: (read, ts)}
    return field(metadata=meta) if required else field(default=None, metadata=meta)


def present() -> Any:
    """The keys the caller sent (not a param): which absent fields an update keeps."""
    return field(default=frozenset(), metadata={_PRESENT: True})


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """How one param is read and what it is in TypeScript, from its declaration."""

    name: str
    required: bool
    ts: str | None  # its own TypeScript type, for a custom reader; None: from ``hint``
    hint: Any
    read: Callable[[JsonObject], Any]
    sent_keys: bool = False  # ``present()``: not a param


def _choices(hint: Any) -> tuple[Any, ...] | None:
    """The values an Enum or Literal allows, else None."""
    if isinstance(hint, type) and issubclass(hint, Enum):
        return tuple(hint)
    if get_origin(hint) is Literal:
        return get_args(hint)
    return None


def _without_none(hint: Any) -> tuple[Any, bool]:
    args = get_args(hint)
    if get_origin(hint) in (Union, UnionType) and type(None) in args:
        rest = tuple(a for a in args if a is not type(None))
        return (rest[0] if len(rest) == 1 else Union[rest]), True  # noqa: UP007
    return hint, False


_SPECS: dict[type[Any], tuple[FieldSpec, ...]] = {}


def type_hints(obj: Any) -> dict[str, Any]:
    """``get_type_hints`` that also resolves ``JsonValue``'s own forward references (a module
    that names ``JsonObject`` need not import ``JsonValue``)."""
    return get_type_hints(obj, localns={"JsonValue": JsonValue}, include_extras=True)


def field_specs(cls: type[Any]) -> tuple[FieldSpec, ...]:
    """The params of ``cls`` (a params dataclass) in reading order: the order of its fields,
    which is the order refusals are found in (the first bad field is the one named)."""
    found = _SPECS.get(cls)
    if found is None:
        hints = type_hints(cls)
        found = _SPECS[cls] = tuple(_spec(f, hints[f.name]) for f in fields(cls))
    return found


def _spec(f: Field[Any], hint: Any) -> FieldSpec:
    key, meta = f.name, f.metadata
    has_default = f.default is not MISSING or f.default_factory is not MISSING
    if meta.get(_PRESENT):
        return FieldSpec(key, False, None, hint, frozenset, sent_keys=True)
    if _READ in meta:
        reader, ts = meta[_READ]
        return FieldSpec(key, not has_default, ts, hint, lambda p: reader(p, key))
    check = meta.get(_CHECK)
    inner, nullable = _without_none(hint)
    options = _choices(inner)
    read: Callable[[JsonObject], Any]
    if options is not None:
        if nullable or has_default:
            default = f.default if f.default is not MISSING else None
            read = lambda p: _or(opt_choice(p, key, options), default)  # noqa: E731
        else:
            read = lambda p: choice(p, key, options)  # noqa: E731
    elif inner is bool:
        flag = bool(f.default) if f.default is not MISSING else False
        read = lambda p: opt_bool(p, key, default=flag)  # noqa: E731
    elif inner is int:
        low, high = meta[_BOUNDS]
        number = f.default if f.default is not MISSING else None
        read = lambda p: opt_int(p, key, number, low, high)  # noqa: E731
    elif inner is str:
        read = (lambda p: opt_text(p, key)) if nullable else (lambda p: text(p, key))
    else:
        raise TypeError(f"{key}: no reader for {hint!r}")
    if check is not None:
        plain = read
        read = lambda p: check(plain(p), key)  # noqa: E731
    return FieldSpec(key, not has_default and not nullable, None, hint, read)


def _or(value: T | None, default: T | None) -> T | None:
    return default if value is None else value


P = TypeVar("P")


def union_members(union: Any) -> tuple[tuple[str, type[Any]], ...]:
    """A union of params dataclasses told apart by their first field (a one-value ``Literal``,
    e.g. ``op: Literal["split"]``): each member's value and class, in the union's order."""
    members = []
    for cls in get_args(union):
        first = fields(cls)[0]
        (value,) = get_args(type_hints(cls)[first.name])
        members.append((value, cls))
    return tuple(members)


def read_params(cls: Any, p: JsonObject) -> Any:
    """``p`` read into ``cls`` (a params dataclass, or a union of them as ``union_members``
    says); raises ``MissingField``/``Invalid`` naming the first bad field."""
    if get_origin(cls) in (Union, UnionType):
        members = union_members(cls)
        key = fields(members[0][1])[0].name
        found = choice(p, key, tuple(value for value, _ in members))
        cls = dict(members)[found]
    values: dict[str, Any] = {}
    for spec in field_specs(cls):
        values[spec.name] = frozenset(p) if spec.sent_keys else spec.read(p)
    return cls(**values)


@dataclass(frozen=True, slots=True)
class NoParams:
    """A method that takes none (unknown keys are ignored, as for every method)."""


@dataclass(frozen=True, slots=True)
class NameParams:
    """A method on one agent, named."""

    name: str

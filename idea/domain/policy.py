"""The project's delegation policy, ``.ideai/policy.json`` (DESIGN.md §15), and who may ask whom.

The file comes with a clone, so every field is checked and bounded: a bad one is ``Invalid``
naming it. An absent field takes its default; unknown keys are kept and written back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

from idea.domain.commands import DEFAULT_ASK_TIMEOUT_S, TIMEOUT_MAX_S
from idea.domain.errors import Invalid
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.names import validate_slug

VERSION = 1
DEPTH_MAX = 32
TOKEN_BUDGET_MAX = 10**12
ANYONE = "*"


@dataclass(frozen=True, slots=True)
class Policy:
    max_depth: int = 3  # root ask = depth 1
    ask_timeout_s: float = DEFAULT_ASK_TIMEOUT_S  # one turn
    queue_wait_s: float = 900.0  # in the target's line
    hibernate_after_s: float | None = 900.0  # None: never
    chain_token_budget: int | None = None  # None: no budget
    extra: JsonObject = field(default_factory=dict, compare=False)

    def to_json(self) -> JsonObject:
        out: JsonObject = dict(self.extra)
        out.update(
            {
                "version": VERSION,
                "max_depth": self.max_depth,
                "ask_timeout_s": self.ask_timeout_s,
                "queue_wait_s": self.queue_wait_s,
                "hibernate_after_s": self.hibernate_after_s,
                "chain_token_budget": self.chain_token_budget,
            }
        )
        return out

    def changed(self, changes: JsonObject) -> Policy:
        """This policy with ``changes`` (a subset of its fields) applied. Raises ``Invalid``."""
        unknown = sorted(set(changes) - _FIELDS - {"version"})
        if unknown:
            raise Invalid(f"policy: unknown field {unknown[0]!r}", field=unknown[0])
        return Policy.from_json({**self.to_json(), **changes})

    @staticmethod
    def from_json(obj: JsonValue) -> Policy:
        """Raises ``Invalid`` naming the field."""
        if not isinstance(obj, dict):
            raise Invalid("policy must be a JSON object")
        version = obj.get("version", VERSION)
        if version != VERSION or isinstance(version, bool):
            raise Invalid(f"policy field 'version' must be {VERSION}, not {version!r}")
        d = Policy()
        # Fields read with their defaults filled in, so "absent" is checked like "given".
        obj = {**d.to_json(), **obj}
        budget, hibernate = obj["chain_token_budget"], obj["hibernate_after_s"]
        return Policy(
            max_depth=_int(obj, "max_depth", d.max_depth, 1, DEPTH_MAX),
            ask_timeout_s=_seconds(obj, "ask_timeout_s", d.ask_timeout_s, 1.0),
            queue_wait_s=_seconds(obj, "queue_wait_s", d.queue_wait_s, 0.0),
            hibernate_after_s=(
                None if hibernate is None else _seconds(obj, "hibernate_after_s", 0.0, 1.0)
            ),
            chain_token_budget=(
                None if budget is None else _int(obj, "chain_token_budget", 0, 1, TOKEN_BUDGET_MAX)
            ),
            extra={k: v for k, v in obj.items() if k not in _FIELDS | {"version"}},
        )


_FIELDS = frozenset(f.name for f in fields(Policy)) - {"extra"}


def _int(obj: JsonObject, key: str, default: int, low: int, high: int) -> int:
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Invalid(
            f"policy field {key!r} must be a whole number from {low} to {high:,}", field=key
        )
    return value


def _seconds(obj: JsonObject, key: str, default: float, low: float) -> float:
    value = obj.get(key, default)
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not low <= value <= TIMEOUT_MAX_S
    ):
        raise Invalid(
            f"policy field {key!r} must be a number of seconds from {low:g} to "
            f"{TIMEOUT_MAX_S:,.0f}",
            field=key,
        )
    return float(value)


def parse_asks_from(value: JsonValue, where: str = "asks_from") -> tuple[str, ...]:
    """``["*"]`` (anyone) or agent names; a front matter value may be ``[a, b]`` or ``a, b``.
    Raises ``Invalid`` naming ``where``."""
    if value is None:
        return (ANYONE,)
    if isinstance(value, str):
        inner = value.strip()
        if inner.startswith("[") and inner.endswith("]"):
            inner = inner[1:-1]
        items: list[JsonValue] = [p.strip().strip("\"'") for p in inner.split(",") if p.strip()]
    elif isinstance(value, list):
        items = list(value)
    else:
        raise Invalid(f'{where} must be a list of agent names or ["*"]')
    if len(items) > 256:
        raise Invalid(f"{where} lists more than 256 agents")
    names: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise Invalid(f'{where} must be a list of agent names or ["*"]')
        if item != ANYONE:
            validate_slug(item, where)
        if item not in names:
            names.append(item)
    if not names:
        raise Invalid(f'{where} is empty: write ["*"] to let anyone ask, or name agents')
    return (ANYONE,) if ANYONE in names else tuple(names)


def render_asks_from(names: tuple[str, ...]) -> str:
    return "[" + ", ".join(names) + "]"


def may_ask(asks_from: tuple[str, ...], requester_name: str | None) -> bool:
    """The user (no requester) always may; an agent when listed, or when anyone may."""
    return requester_name is None or ANYONE in asks_from or requester_name in asks_from

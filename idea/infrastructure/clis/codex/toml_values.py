"""TOML values for Codex's ``-c key=value`` overrides.

Strings become literal strings ('…') whenever possible, so a Windows path such as
``C:\\tools\\new\\idea.exe`` reaches Codex unchanged (a basic string would read ``\\t`` and
``\\n`` as escapes); otherwise a basic string with every required escape.
"""

from __future__ import annotations

import json
import math

from idea.domain.errors import Invalid
from idea.domain.json_types import JsonValue

_BARE_KEY_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def toml_value(value: JsonValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise Invalid(f"{value!r} cannot be written as TOML")
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items())
        return "{" + items + "}" if items else "{}"
    raise Invalid("null has no TOML form")


def toml_key(key: str) -> str:
    return key if key and set(key) <= _BARE_KEY_CHARS else _string(key)


def _string(text: str) -> str:
    if "'" not in text and not any((ord(c) < 0x20 and c != "\t") or c == "\x7f" for c in text):
        return f"'{text}'"
    # JSON's escapes are valid TOML basic-string escapes; DEL must be escaped too in TOML.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")

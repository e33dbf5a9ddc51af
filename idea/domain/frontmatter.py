"""Markdown front matter: a small YAML subset that round-trips exactly.

Supported: ``key: value`` scalars (plain, "double" or 'single' quoted, ``|`` literal blocks) and
nested mappings by indentation. Values are strings or mappings; key order is kept. ``render``
quotes whatever ``parse`` would not read back identically, so ``parse(render(fm, body))`` gives
back ``(fm, body)`` for every input, unicode and multi-line values included.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TypeAlias

from idea.domain.errors import Invalid

FrontValue: TypeAlias = "str | dict[str, FrontValue]"
FrontMatter: TypeAlias = dict[str, FrontValue]

_DELIM = "---"
_KEY_RE = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*:(?:\s+(.*))?$")
# Plain scalars that YAML would read as something else, or that our parser would trim or split.
_PLAIN_SAFE_RE = re.compile(r"[^\s\"'#|>&*!%@`{\[\]},?:-][^\n#]*")
# A flow list of names, ``[a, b]``: read back as this very text, and as a list by YAML readers.
_NAME_LIST_RE = re.compile(r"\[[a-z0-9_][a-z0-9_, -]*\]")


@dataclass(frozen=True, slots=True)
class Document:
    front: FrontMatter
    body: str


def parse(text: str) -> Document:
    """Split ``text`` into front matter and body; a text without front matter is all body.

    Raises ``Invalid`` (with the line number) when the front matter block is malformed.
    """
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r") != _DELIM:
        return Document({}, text)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip("\r") == _DELIM), None)
    if end is None:
        raise Invalid("front matter: no closing '---' line")
    block = [line.rstrip("\r") for line in lines[1:end]]
    front, _ = _parse_mapping(block, 0, 0)
    return Document(front, "\n".join(lines[end + 1 :]))


def render(front: FrontMatter, body: str) -> str:
    out = [_DELIM]
    _render_mapping(front, 0, out)
    out.append(_DELIM)
    return "\n".join(out) + "\n" + body


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _parse_mapping(lines: list[str], start: int, indent: int) -> tuple[FrontMatter, int]:
    result: FrontMatter = {}
    i = start
    while i < len(lines):
        line = lines[i]
        if _is_blank(line):
            i += 1
            continue
        here = _indent_of(line)
        if here < indent:
            break
        if here > indent:
            raise Invalid(f"front matter line {i + 2}: unexpected indentation")
        if "\t" in line[:here]:
            raise Invalid(f"front matter line {i + 2}: tabs are not allowed for indentation")
        match = _KEY_RE.match(line[here:])
        if match is None:
            raise Invalid(f"front matter line {i + 2}: expected 'key: value'")
        key, raw = match.group(1), (match.group(2) or "").strip()
        if key in result:
            raise Invalid(f"front matter line {i + 2}: duplicate key '{key}'")
        i += 1
        if raw in ("|", "|-", "|+"):
            value, i = _parse_block(lines, i, indent, raw)
            result[key] = value
        elif raw == "":
            child_start = i
            while child_start < len(lines) and _is_blank(lines[child_start]):
                child_start += 1
            if child_start < len(lines) and _indent_of(lines[child_start]) > indent:
                nested, i = _parse_mapping(lines, child_start, _indent_of(lines[child_start]))
                result[key] = nested
            else:
                result[key] = ""
        else:
            result[key] = _parse_scalar(raw, i + 1)
    return result, i


def _parse_block(lines: list[str], i: int, indent: int, style: str) -> tuple[str, int]:
    collected: list[str] = []
    block_indent: int | None = None
    while i < len(lines):
        line = lines[i]
        if line.strip() and _indent_of(line) <= indent:
            break
        if line.strip() and block_indent is None:
            block_indent = _indent_of(line)
        collected.append(line[block_indent or 0 :] if line.strip() else "")
        i += 1
    text = "\n".join(collected)
    if style == "|+":
        return text + "\n", i
    text = text.rstrip("\n")
    return (text if style == "|-" else text + "\n"), i


def _parse_scalar(raw: str, line_no: int) -> str:
    if raw.startswith('"'):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise Invalid(f"front matter line {line_no}: bad double-quoted string") from exc
        if not isinstance(value, str):
            raise Invalid(f"front matter line {line_no}: bad double-quoted string")
        return value
    if raw.startswith("'"):
        if len(raw) < 2 or not raw.endswith("'"):
            raise Invalid(f"front matter line {line_no}: unterminated single-quoted string")
        return raw[1:-1].replace("''", "'")
    # A plain scalar ends at a comment.
    comment = raw.find(" #")
    return (raw[:comment] if comment >= 0 else raw).rstrip()


def _render_mapping(mapping: FrontMatter, indent: int, out: list[str]) -> None:
    pad = " " * indent
    for key, value in mapping.items():
        if _KEY_RE.fullmatch(f"{key}:") is None:
            raise Invalid(f"front matter key {key!r} is not a plain identifier")
        if isinstance(value, dict):
            if not value:
                raise Invalid(f"front matter key {key!r}: an empty mapping cannot be written")
            out.append(f"{pad}{key}:")
            _render_mapping(value, indent + 2, out)
        else:
            out.append(f"{pad}{key}: {_render_scalar(value)}")


def _render_scalar(value: str) -> str:
    # ": " would make a stricter YAML reader (other tools read these files too) see a mapping.
    if value and _PLAIN_SAFE_RE.fullmatch(value) and value == value.strip() and ": " not in value:
        return value
    if _NAME_LIST_RE.fullmatch(value) and not value.endswith(" ]"):
        return value
    return json.dumps(value, ensure_ascii=False)

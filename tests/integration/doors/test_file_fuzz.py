"""A property-based fuzz of the file door: hostile request files dropped into a real project's
``.ideai/orchestrator/`` (real watcher, real runtime, fake agents).

Property: every request file gets exactly one answer, a ``<id>.response.json`` holding valid JSON
with the file's id and either a success or a typed error code, or, when no response can be named
(an id too long for it), it moves to ``failed/`` with the reason logged; nothing is dispatched
twice; and afterwards the app still answers a valid request.

One app serves the whole run: hypothesis writes its examples from a thread while the core loop
answers them, then every answer is checked against the file that asked for it. A malformed file
is answered only once it has not changed for ``SETTLE_S``, so the waits overlap instead of adding
up (about one ``SETTLE_S`` for the whole run, not one per example).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idea.domain.errors import IdeaError
from idea.domain.orchestrator_request import KNOWN_ACTIONS, validate_request
from idea.infrastructure.doors.file import REQUEST_SUFFIX, RESPONSE_SUFFIX
from tests.integration.doors.test_file import response, write_request
from tests.integration.doors.test_file_hostile import dispatches, rescan
from tests.waiting import until

CODES = {
    *("NOT_FOUND", "INVALID", "MISSING_FIELD", "AGENT_ALREADY_RUNNING", "TIMEOUT", "FORBIDDEN"),
    *("CONFLICT", "CORRUPT_FILE", "AGENT_FAILED", "UNAVAILABLE", "UNTRUSTED", "DEPTH_EXCEEDED"),
    "BUDGET_EXCEEDED",
}
# A file name is at most 255 bytes; ids near that leave no room for the response's name.
MAX_ID_BYTES = 255 - len(REQUEST_SUFFIX.encode())
FIELDS = (
    *("action", "name", "targetAgent", "task", "context", "profile", "visible", "nodeId"),
    *("status", "intent", "ticket", "progress", "description", "body", "timeoutS", "timeout_s"),
    *("requester", "id"),
)
VALID = (
    {"action": "workstate.get"},
    {"action": "agent.message", "targetAgent": "helper", "task": "hi"},
    {"action": "agent.message", "name": "helper", "task": "hi", "timeoutS": 30},
    {"action": "agent.run", "name": "helper"},
)

# JSON as hostile writers produce it: lone surrogates ("\ud800" escapes), NaN and Infinity.
surrogates = st.characters(categories=["Cs"])
# (st.text would merge the two alphabets and drop the surrogates again.)
any_text = st.lists(st.characters() | surrogates, max_size=40).map("".join)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | any_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
    max_leaves=12,
)
field_values = json_values | st.sampled_from(["helper", "", "  ", "idle", "working", "../x"])
actions = st.sampled_from(KNOWN_ACTIONS) | any_text | json_values
request_objects = st.fixed_dictionaries(
    {}, optional={**dict.fromkeys(FIELDS, field_values), "action": actions}
)
slugs = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,20}", fullmatch=True)
# Each action with its required fields well filled, as a starting point to spoil.
TEMPLATES = {
    "agent.run": {"name": st.just("helper")},
    "agent.message": {"targetAgent": st.just("helper"), "task": any_text},
    "agent.spawn": {"name": slugs, "context": any_text, "visible": st.booleans()},
    "agent.stop": {"name": st.just("helper")},
    "agent.context.update": {"name": st.just("helper"), "context": any_text},
    "skill.create": {"name": slugs, "description": any_text, "body": any_text},
    "workstate.set": {"status": st.sampled_from(["idle", "working"]), "intent": any_text},
    "workstate.get": {},
    "agent.changes": {"name": st.just("helper")},
    "agent.merge": {"name": st.just("helper")},
    "agent.discard": {"name": st.just("helper")},
}
assert set(TEMPLATES) == set(KNOWN_ACTIONS)


@st.composite
def near_valid(draw: st.DrawFn) -> dict[str, object]:
    """A request of a known action whose fields are kept, spoilt (wrong type) or left out."""
    action = draw(st.sampled_from(sorted(TEMPLATES)))
    request: dict[str, object] = {"action": action}
    for name, good in TEMPLATES[action].items():
        choice = draw(st.sampled_from(["keep", "keep", "keep", "spoil", "drop"]))
        if choice != "drop":
            request[name] = draw(good if choice == "keep" else json_values)
    return request


encodings = st.sampled_from(
    ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le"]
)


def _encoded(value: object, encoding: str) -> bytes:
    return json.dumps(value).encode(encoding)


def _with_bad_utf8(value: object, cut: int) -> bytes:
    data = json.dumps(value).encode()
    cut %= len(data) + 1
    return data[:cut] + b"\xff\xc3" + data[cut:]


bodies = st.one_of(
    st.binary(max_size=300),
    st.builds(
        _encoded, st.sampled_from(VALID) | near_valid() | request_objects | json_values, encodings
    ),
    # Most weight on requests close to valid ones: they reach the handlers and the stores.
    *[st.builds(_encoded, near_valid(), st.just("utf-8"))] * 4,
    st.builds(_with_bad_utf8, request_objects, st.integers(0, 10_000)),
    st.builds(lambda v, cut: json.dumps(v).encode()[: cut % 60], request_objects, st.integers()),
    st.sampled_from(
        [
            b'{"action": "workstate.get", "action": "agent.explode"}',
            b'{"action": "agent.explode", "action": "workstate.get"}',
            b'{"action":"agent.message","targetAgent":"helper","task":"x","timeoutS":NaN}',
            b'{"action":"agent.message","targetAgent":"helper","task":"x","timeoutS":-Infinity}',
            b'{"action":"agent.message","targetAgent":"helper","task":"x","timeoutS":1e999}',
            b'{"action":"agent.message","targetAgent":"helper","task":"x","timeout_s":'
            + b"9" * 400,
            b"[" * 100_000 + b"]" * 100_000,
            b'{"a":' * 5_000 + b"1" + b"}" * 5_000,
            json.dumps(
                {"action": "agent.message", "targetAgent": "helper", "task": "x" * 2**20}
            ).encode(),
            json.dumps({"action": "x" * 2**20}).encode(),
            b"",
            b"\xef\xbb\xbf",
            b"\xff\xfe",
            b"null",
        ]
    ),
)
odd_ids = st.one_of(
    st.text(st.characters(exclude_characters="/\0", exclude_categories=("Cs",)), max_size=30),
    st.binary(max_size=30).map(lambda b: os.fsdecode(b.replace(b"/", b"").replace(b"\0", b""))),
    st.integers(150, MAX_ID_BYTES).map(lambda n: "L" * n),
)


@dataclass(frozen=True)
class Dropped:
    request_id: str
    data: bytes

    def dispatched(self) -> bool:
        """Whether the door must hand this request to the orchestrator (it parses and is valid)."""
        try:
            validate_request(json.loads(self.data))
        except (ValueError, RecursionError, IdeaError):
            return False
        return True

    def parses(self) -> bool:
        try:
            json.loads(self.data)
        except (ValueError, RecursionError):
            return False
        return True


def _id_for(number: int, odd: str) -> str:
    """Unique (a counter first), never hidden (no leading dot), short enough to be a file name."""
    request_id = f"{number:03d}{odd}"
    while len(os.fsencode(request_id)) > MAX_ID_BYTES:
        request_id = request_id[:-1]
    return request_id


def _drop(folder: Path, request_id: str, data: bytes) -> None:
    """Written atomically, as a well-behaved script does it."""
    tmp = folder / f".{len(os.listdir(folder))}.fuzz.tmp"
    tmp.write_bytes(data)
    os.replace(tmp, folder / f"{request_id}{REQUEST_SUFFIX}")


def _answered(folder: Path, dropped: Dropped) -> bool:
    name = f"{dropped.request_id}{REQUEST_SUFFIX}"
    if _has_response(folder, dropped):
        return (folder / "done" / name).exists()
    return (folder / "failed" / name).exists()


def _has_response(folder: Path, dropped: Dropped) -> bool:
    # os.path: False (not OSError) for a name too long to exist.
    return os.path.exists(folder / f"{dropped.request_id}{RESPONSE_SUFFIX}")


@pytest.fixture
def door_log(caplog):
    caplog.set_level(logging.INFO, logger="idea")
    return caplog


@pytest.mark.timeout(60)
async def test_every_hostile_request_file_gets_exactly_one_typed_answer(runtime, door_log):
    folder = runtime.services.paths.orchestrator
    numbers = itertools.count()
    dropped: list[Dropped] = []

    @settings(max_examples=100, deadline=None, database=None)
    @given(odd=odd_ids, data=bodies)
    def drop(odd: str, data: bytes) -> None:
        request_id = _id_for(next(numbers), odd)
        _drop(folder, request_id, data)
        dropped.append(Dropped(request_id, data))

    # Hypothesis writes from a thread while the core loop answers.
    await asyncio.to_thread(drop)
    await until(lambda: all(_answered(folder, d) for d in dropped), 30, "every request answered")

    logged = "\n".join(r.getMessage() for r in door_log.records)
    for item in dropped:
        path = folder / f"{item.request_id}{RESPONSE_SUFFIX}"
        if not _has_response(folder, item):
            # No response could be named: moved aside, and the log says why.
            assert f"no response for {item.request_id}{REQUEST_SUFFIX}" in logged, item
            continue
        answer = json.loads(path.read_bytes())
        assert answer["id"] == item.request_id, item
        assert isinstance(answer["ok"], bool), (item, answer)
        if answer["ok"]:
            assert item.dispatched(), (item, answer)
        else:
            assert answer["error"]["code"] in CODES, (item, answer)
            assert isinstance(answer["error"]["message"], str), (item, answer)
            if not item.parses():
                assert answer["error"]["code"] == "INVALID", (item, answer)
    assert not list(folder.glob(f"*{REQUEST_SUFFIX}")), "requests left in the door"
    assert "Traceback" not in door_log.text and not any(r.exc_info for r in door_log.records), (
        door_log.text
    )

    # Dispatched once each, and never again whatever the door scans later.
    expected = sum(d.dispatched() for d in dropped)
    assert len(dispatches(runtime)) == expected
    await rescan(runtime)
    assert len(dispatches(runtime)) == expected
    answered = sum(_has_response(folder, d) for d in dropped)
    assert runtime.file_door.answered == answered

    # The app still serves: a valid request gets its answer.
    write_request(folder, "after-fuzz", {"action": "workstate.get"})
    after = await response(folder, "after-fuzz")
    assert after["ok"] is True
    assert "helper" in [row["name"] for row in after["data"]["agents"]]

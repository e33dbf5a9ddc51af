"""Domain events are small immutable facts that serialise to JSON tagged with their type."""

from __future__ import annotations

import dataclasses
import json
import typing

import pytest

from idea.domain.commands import Source
from idea.domain.errors import Invalid
from idea.domain.events import (
    EVENT_TYPES,
    PREVIEW_MAX_CHARS,
    PROMPT_MAX_CHARS,
    AgentHibernated,
    AgentLaunched,
    AgentQueueChanged,
    AgentRateLimited,
    AgentReplied,
    AgentsChanged,
    AgentStopped,
    AgentTurnFinished,
    AgentTurnStarted,
    AsksLost,
    CliVersionChanged,
    DomainEvent,
    LayoutChanged,
    OrchestratorRequestProcessed,
    ProjectTrustChanged,
    StoreFileQuarantined,
    WorkStateChanged,
)
from idea.domain.profile import Mode
from idea.domain.usage import Usage
from idea.domain.work_state import Status

EVENTS: list[DomainEvent] = [
    AgentLaunched("a1", "dev", Mode.STRUCTURED, node_id="leaf-1", conversation_id="c-9"),
    AgentLaunched("a1", "dev", Mode.TERMINAL),
    AgentStopped("a1", "dev", "user"),
    AgentReplied("a2", "architect", "a1", 5, "hello"),
    OrchestratorRequestProcessed(Source.MCP, "a1", "agent.message", "architect", True, 120),
    OrchestratorRequestProcessed(Source.FILE, None, "agent.stop", "qa", False, 3, "NOT_FOUND"),
    WorkStateChanged("a1", Status.BLOCKED),
    AgentTurnStarted("a1", "dev", "a2", "do it", 5),
    AgentQueueChanged("a1", 2),
    AgentTurnFinished("a1", ok=True),
    AgentsChanged(),
    LayoutChanged(),
    StoreFileQuarantined("layouts.json", "layouts.json.corrupt-1", "bad JSON"),
    ProjectTrustChanged("trusted"),
    CliVersionChanged("codex", "0.171.0", "0.172.0"),
    AgentTurnStarted("a1", "dev", "a2", "do it", 5, chain_id="ch-1", depth=2),
    AgentTurnFinished("a1", ok=True, usage=Usage(10, 5, 2, 1, 0.25), chain_id="ch-1"),
    AgentRateLimited("a1", "dev", "usage limit reached", 1_900_000_000_000),
    AgentHibernated("a1", "dev", "conv-1"),
    AsksLost(2),
]


def test_every_event_type_is_exercised() -> None:
    assert {type(event) for event in EVENTS} == set(EVENT_TYPES)


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: type(e).__name__)
def test_to_json_is_tagged_and_carries_every_field(event: DomainEvent) -> None:
    payload = event.to_json()
    assert payload["type"] == type(event).__name__
    assert set(payload) == {"type"} | {f.name for f in dataclasses.fields(event)}
    # Serialisable as is: enums go out as their plain values.
    assert json.loads(json.dumps(payload)) == payload


def test_enum_fields_go_out_as_plain_strings() -> None:
    assert AgentLaunched("a1", "dev", Mode.STRUCTURED).to_json()["mode"] == "structured"
    assert WorkStateChanged("a1", Status.IDLE).to_json()["status"] == "idle"
    processed = OrchestratorRequestProcessed(Source.UI, None, "workstate.get", None, True, 0)
    assert processed.to_json()["source"] == "ui"
    assert {s.value for s in Source} == {"ui", "file", "mcp"}


@pytest.mark.parametrize(
    "event", [e for e in EVENTS if dataclasses.fields(e)], ids=lambda e: type(e).__name__
)
def test_events_are_frozen(event: DomainEvent) -> None:
    first = dataclasses.fields(event)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(event, first, "other")


def test_agent_replied_from_a_long_reply_keeps_a_bounded_preview() -> None:
    reply = "x" * 1000
    event = AgentReplied.of_reply("a2", "architect", "a1", reply)
    assert event.reply_chars == 1000
    assert len(event.preview) == PREVIEW_MAX_CHARS
    assert event.preview.startswith("x" * 100)


def test_agent_replied_from_a_short_reply_keeps_it_whole() -> None:
    event = AgentReplied.of_reply("a2", "architect", None, "done")
    assert event == AgentReplied("a2", "architect", None, 4, "done")
    exact = "y" * PREVIEW_MAX_CHARS
    assert AgentReplied.of_reply("a2", "architect", None, exact).preview == exact


def test_agent_replied_refuses_an_oversized_preview_or_negative_size() -> None:
    with pytest.raises(Invalid):
        AgentReplied("a2", "architect", None, 500, "z" * (PREVIEW_MAX_CHARS + 1))
    with pytest.raises(Invalid):
        AgentReplied("a2", "architect", None, -1, "")


def test_request_processed_code_is_set_exactly_when_not_ok() -> None:
    with pytest.raises(Invalid):
        OrchestratorRequestProcessed(Source.UI, None, "agent.stop", "qa", True, 1, "INTERNAL")
    with pytest.raises(Invalid):
        OrchestratorRequestProcessed(Source.UI, None, "agent.stop", "qa", False, 1)
    with pytest.raises(Invalid):
        OrchestratorRequestProcessed(Source.UI, None, "agent.stop", "qa", True, -1)


def test_work_state_changed_refuses_an_unknown_status() -> None:
    with pytest.raises(Invalid):
        WorkStateChanged("a1", "sleeping")  # type: ignore[arg-type]


def test_a_turn_start_clips_a_long_prompt_and_keeps_its_length() -> None:
    event = AgentTurnStarted.of_prompt("a1", "dev", None, "p" * (PROMPT_MAX_CHARS + 10))
    assert event.prompt_chars == PROMPT_MAX_CHARS + 10
    assert len(event.prompt) == PROMPT_MAX_CHARS
    assert event.prompt.endswith("…")
    assert AgentTurnStarted.of_prompt("a1", "dev", None, "short").prompt == "short"


def test_the_type_name_is_read_from_the_class_not_typed_by_hand() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class AsksFound(AsksLost):
        pass

    assert AsksFound(3).to_json() == {"type": "AsksFound", "count": 3}


def test_the_event_types_are_the_union_read_once() -> None:
    assert typing.get_args(DomainEvent) == EVENT_TYPES
    assert len(set(EVENT_TYPES)) == len(EVENT_TYPES)

"""The command table: one handler per command, each binding only collaborators the composition
root provides (a misspelt parameter would fail at wiring, not at the first request)."""

import inspect

from idea.application.handlers import HANDLERS
from idea.domain.commands import COMMAND_TYPES
from tests.worlds import bootstrap_test_app


def test_every_command_has_exactly_one_handler():
    assert set(HANDLERS) == set(COMMAND_TYPES)


def test_handlers_take_the_command_and_the_caller_then_keywords_only():
    for command, handler in HANDLERS.items():
        kinds = [p.kind for p in inspect.signature(handler).parameters.values()]
        assert kinds[:2] == [inspect.Parameter.POSITIONAL_OR_KEYWORD] * 2, command
        assert set(kinds[2:]) <= {inspect.Parameter.KEYWORD_ONLY}, command


async def test_the_test_world_wires_every_handler():
    world = bootstrap_test_app()
    try:
        assert set(world.service._handlers) == set(COMMAND_TYPES)
    finally:
        await world.close()

"""A terminal agent that ends by itself leaves its last output and exit code; a stop does not."""

from __future__ import annotations

from idea.app.terminals.epitaphs import KEEP_CHARS, TerminalEpitaphs
from idea.application.launch_agent import LaunchRequest
from idea.domain.agent import Agent
from idea.domain.profile import Mode
from tests.worlds import bootstrap_test_app


async def test_an_exit_by_itself_is_kept_until_the_next_start_and_a_stop_is_not():
    world = bootstrap_test_app(Agent(id="id-sh", name="sh", profile="shell"))
    epitaphs = TerminalEpitaphs(world.bus, world.sessions, world.clock)
    try:
        await world.launch(LaunchRequest("sh", node_id="leaf-1", mode=Mode.TERMINAL))
        session = world.sessions.terminal_session("id-sh")
        assert session is not None
        session.emit("x" * KEEP_CHARS + "why it ended\r\n")
        session.exit(3)
        await session.wait()
        last = epitaphs.of("id-sh")
        assert last is not None
        assert last.exit_code == 3
        assert last.output.endswith("why it ended\r\n")
        assert len(last.output) == KEEP_CHARS  # bounded: the end of what it printed
        assert last.to_json() == {"exit_code": 3, "at_ms": world.clock.now_ms()}
        # Started again: its old last words go; stopped by the user: none are kept.
        await world.launch(LaunchRequest("sh", node_id="leaf-1", mode=Mode.TERMINAL))
        assert epitaphs.of("id-sh") is None
        await world.stop("sh")
        assert epitaphs.of("id-sh") is None
    finally:
        epitaphs.close()
        await world.close()

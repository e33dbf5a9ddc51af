from hypothesis import given
from hypothesis import strategies as st

from idea.domain.work_state import STALE_PROGRESS, TTL_MS, Status, WorkRow, WorkState


def row(agent_id="a", status=Status.WORKING, at=1000, **kw):
    return WorkRow(agent_id=agent_id, status=status, updated_at_ms=at, **kw)


def test_lww_older_write_loses_newer_wins():
    state = WorkState().merge(row(at=2000, intent="new"))
    assert state.merge(row(at=1999, intent="old")).rows["a"].intent == "new"
    assert state.merge(row(at=2001, intent="newer")).rows["a"].intent == "newer"


@given(st.lists(st.tuples(st.integers(0, 50), st.text(max_size=3)), min_size=1, max_size=20))
def test_lww_result_is_the_latest_whatever_the_order(writes):
    state = WorkState()
    for at, intent in writes:
        state = state.merge(row(at=at, intent=intent))
    latest = max(at for at, _ in writes)
    assert state.rows["a"].updated_at_ms == latest
    assert state.rows["a"].intent in {i for at, i in writes if at == latest}


def test_prune_drops_rows_older_than_ttl_only():
    now = 10 * TTL_MS
    state = WorkState().merge(row("old", at=now - TTL_MS - 1)).merge(row("edge", at=now - TTL_MS))
    state = state.merge(row("fresh", at=now))
    assert set(state.prune(now).rows) == {"edge", "fresh"}


def test_reconcile_orphans_field_by_field():
    busy = row(
        "dead",
        Status.BLOCKED,
        at=500,
        intent="refactor the parser",
        ticket="T-42",
        last_delegation={"to": "reviewer", "at_ms": 400},
        progress="3/5",
        extra={"custom": 1},
    )
    live = row("alive", Status.WORKING, at=500, ticket="T-1")
    idle = row("rest", Status.IDLE, at=500, ticket="T-9")
    state = WorkState().merge(busy).merge(live).merge(idle)

    after = state.reconcile_orphans(lambda agent_id: agent_id == "alive", now_ms=9000)

    fixed = after.rows["dead"]
    assert fixed.status is Status.IDLE
    assert fixed.intent == "refactor the parser"
    assert fixed.ticket is None
    assert fixed.last_delegation is None
    assert fixed.progress == STALE_PROGRESS
    assert fixed.updated_at_ms == 9000
    assert fixed.extra == {"custom": 1}
    assert after.rows["alive"] == live
    assert after.rows["rest"] == idle


def test_reconcile_is_idempotent_and_wins_lww_even_with_a_clock_behind():
    state = WorkState().merge(row("a", Status.WAITING, at=5000))
    once = state.reconcile_orphans(lambda _: False, now_ms=100)
    assert once.rows["a"].updated_at_ms > 5000
    assert once.reconcile_orphans(lambda _: False, now_ms=200) == once


def test_json_round_trip_keeps_unknown_fields():
    obj = {
        "version": 1,
        "future": {"x": [1, 2]},
        "agents": {
            "a": {
                "agent_id": "a",
                "status": "working",
                "intent": "i",
                "ticket": None,
                "last_delegation": {"to": "b"},
                "progress": None,
                "updated_at_ms": 3,
                "color": "red",
            }
        },
    }
    assert WorkState.from_json(obj).to_json() == obj

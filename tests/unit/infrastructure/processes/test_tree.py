from __future__ import annotations

import os

import pytest

from idea.domain.errors import Invalid, NotFound
from idea.infrastructure.processes.tree import ProcessRecord, is_alive, kill_tree

# Above Linux's largest possible pid_max (2**22): never a live process.
NO_SUCH_PID = 2**22 + 1


def test_record_of_a_live_process_round_trips_through_json():
    record = ProcessRecord.of(os.getpid())
    assert record.pid == os.getpid()
    assert ProcessRecord.from_json(record.to_json()) == record
    assert is_alive(record)


def test_a_reused_pid_is_not_the_recorded_process():
    record = ProcessRecord.of(os.getpid())
    assert not is_alive(ProcessRecord(record.pid, record.create_time - 60))


def test_a_missing_process():
    with pytest.raises(NotFound) as err:
        ProcessRecord.of(NO_SUCH_PID)
    assert err.value.code == "NOT_FOUND"
    assert not is_alive(ProcessRecord(NO_SUCH_PID, 1.0))
    assert kill_tree(NO_SUCH_PID) is True


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"pid": "12", "create_time": 1.0},
        {"pid": True, "create_time": 1.0},
        {"pid": 0, "create_time": 1.0},
        {"pid": 12, "create_time": "x"},
        {"pid": 12},
    ],
)
def test_malformed_records_are_invalid(data):
    with pytest.raises(Invalid):
        ProcessRecord.from_json(data)


def test_an_integer_create_time_is_accepted():
    assert ProcessRecord.from_json({"pid": 12, "create_time": 5}) == ProcessRecord(12, 5.0)


def test_never_kills_the_current_process():
    with pytest.raises(Invalid):
        kill_tree(os.getpid())

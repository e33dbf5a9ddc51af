"""The file door's queue: each name once, oldest first (modification time, then name)."""

from idea.infrastructure.doors.request_queue import Pending, RequestQueue


def drain(queue: RequestQueue) -> list[str]:
    taken = []
    while (pending := queue.take()) is not None:
        taken.append(pending.name)
    return taken


def test_a_batch_comes_out_in_arrival_order_whatever_order_it_was_offered_in():
    queue = RequestQueue()
    # Offered as a listing returns them (any order); mtime first, then the name for a tie.
    for name, mtime in [("c", 30), ("a", 20), ("z", 10), ("b", 20), ("y", 40)]:
        assert queue.offer(name, mtime)
    assert drain(queue) == ["z", "a", "b", "c", "y"]


def test_arrival_order_holds_across_batches():
    queue = RequestQueue()
    for name, mtime in [("late", 50), ("early", 5)]:
        queue.offer(name, mtime)
    assert queue.take() == Pending(5, "early")
    for name, mtime in [("middle", 20), ("first", 1)]:  # a second batch, some older
        queue.offer(name, mtime)
    assert drain(queue) == ["first", "middle", "late"]


def test_a_known_name_is_not_queued_twice_until_it_is_released():
    queue = RequestQueue()
    assert queue.offer("r1", 10)
    assert not queue.offer("r1", 11)  # the event and the scan both saw it
    pending = queue.take()
    assert pending == Pending(10, "r1")
    assert not queue.offer("r1", 12)  # being answered: still known
    queue.release("r1")
    assert queue.offer("r1", 13)  # a new file under the same name is a new request
    assert drain(queue) == ["r1"]


def test_a_request_put_back_keeps_its_place_and_stays_known():
    queue = RequestQueue()
    for name, mtime in [("old", 1), ("new", 2)]:
        queue.offer(name, mtime)
    pending = queue.take()
    assert pending is not None
    queue.put_back(pending)  # not parsing yet: read again later, still the oldest
    assert queue.is_known("old")
    assert queue.waiting() == 2
    assert drain(queue) == ["old", "new"]


def test_known_is_a_snapshot_and_clear_forgets_everything():
    queue = RequestQueue()
    queue.offer("a", 1)
    snapshot = queue.known()
    queue.offer("b", 2)
    assert snapshot == frozenset({"a"})
    queue.clear()
    assert queue.waiting() == 0
    assert queue.known() == frozenset()
    assert queue.offer("a", 1)

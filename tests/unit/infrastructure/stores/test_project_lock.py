import pytest

from idea.domain.errors import Conflict
from idea.infrastructure.stores.project_lock import ProjectLock


def test_one_holder_at_a_time_then_free_again(tmp_path):
    path = tmp_path / "run" / "owner.lock"
    first = ProjectLock.acquire(path, "demo")
    with pytest.raises(Conflict) as refused:
        ProjectLock.acquire(path, "demo")
    assert "project demo is already open in another IdeA (process " in refused.value.message
    first.release()
    first.release()  # idempotent
    ProjectLock.acquire(path, "demo").release()

"""Suite-wide: nothing a test starts writes to the user's own config folder."""

import os
import tempfile
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_user_config() -> Iterator[None]:
    # An environment variable, so every `idea` process a test spawns inherits it too.
    with tempfile.TemporaryDirectory(prefix="idea-user-config-") as folder:
        previous = os.environ.get("IDEA_CONFIG_DIR")
        os.environ["IDEA_CONFIG_DIR"] = folder
        try:
            yield
        finally:
            if previous is None:
                os.environ.pop("IDEA_CONFIG_DIR", None)
            else:
                os.environ["IDEA_CONFIG_DIR"] = previous

"""Suite-wide: nothing a test starts writes to the user's own config folder.

Set when pytest starts, before any test module is imported: modules that copy ``os.environ`` at
import time (to give their child processes an environment) copy the private folder too.
"""

import os
import shutil
import tempfile

_PREVIOUS = "IDEA_CONFIG_DIR_BEFORE_TESTS"


def pytest_configure(config) -> None:
    if _PREVIOUS in os.environ:
        return
    os.environ[_PREVIOUS] = os.environ.get("IDEA_CONFIG_DIR", "")
    # An environment variable, so every `idea` process a test spawns inherits it too.
    os.environ["IDEA_CONFIG_DIR"] = tempfile.mkdtemp(prefix="idea-user-config-")


def pytest_unconfigure(config) -> None:
    previous = os.environ.pop(_PREVIOUS, None)
    if previous is None:
        return
    shutil.rmtree(os.environ["IDEA_CONFIG_DIR"], ignore_errors=True)
    if previous:
        os.environ["IDEA_CONFIG_DIR"] = previous
    else:
        os.environ.pop("IDEA_CONFIG_DIR", None)

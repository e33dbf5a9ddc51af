"""Names that Windows reserves for devices are refused everywhere, so a project made on Linux
opens on Windows too."""

import pytest

from idea.domain.errors import Invalid
from idea.domain.names import is_slug, validate_slug


@pytest.mark.parametrize("name", ["con", "nul", "aux", "prn", "com1", "com9", "lpt1", "lpt0"])
def test_windows_device_names_are_invalid(name):
    assert not is_slug(name)
    with pytest.raises(Invalid, match="Windows reserves it") as err:
        validate_slug(name, "agent name")
    assert err.value.code == "INVALID"


@pytest.mark.parametrize("name", ["console", "nul1x", "aux-2", "com10", "lpt", "conf", "con_"])
def test_names_that_only_look_alike_stay_valid(name):
    assert validate_slug(name) == name

"""The Windows lane (``make test-windows``): ``lane.py`` runs the Windows tests under wine."""

import sys

import pytest

# Every Windows test module carries this mark; the lane runs every ``tests/**/test_*windows*.py``.
windows_only = pytest.mark.skipif(
    sys.platform != "win32", reason="Windows (make test-windows runs it under wine)"
)


def under_wine() -> bool:
    """wine's ntdll exports its version; Windows' does not."""
    if sys.platform != "win32":
        return False
    import ctypes  # noqa: PLC0415

    return hasattr(ctypes.WinDLL("ntdll"), "wine_get_version")

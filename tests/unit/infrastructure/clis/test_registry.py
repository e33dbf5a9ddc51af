"""The CLI registry is the one table of agent CLIs: every structured kind has its row, and every
built-in profile that names a kind can be started through it."""

import inspect

from idea.domain.builtin_profiles import builtin_profile_names, builtin_profiles
from idea.domain.profile import AdapterKind
from idea.infrastructure.clis import CLIS


def test_every_adapter_kind_has_one_row():
    assert set(CLIS) == set(AdapterKind)


def test_each_row_starts_a_session_and_injects_a_terminal():
    for kind, cli in CLIS.items():
        assert inspect.iscoroutinefunction(cli.start_session), kind
        assert callable(cli.terminal_injection), kind


def test_every_built_in_structured_profile_is_in_the_registry():
    for profile in builtin_profiles(user_shell="sh").values():
        if profile.structured is not None:
            assert profile.structured in CLIS, profile.name


def test_the_names_users_are_shown_are_the_built_ins():
    assert builtin_profile_names() == ("claude", "codex", "gemini", "qwen", "opencode", "shell")

"""The agent CLIs: ONE registry (``CLIS``) and one sub-package per CLI.

Adding a CLI: its ``AdapterKind`` value, its built-in profile (``domain/builtin_profiles.py``), a
``clis/<name>/`` folder (stream codec, structured session, terminal injection) and one line here.
The sub-packages never import each other; what they share sits at this level.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from idea.domain.profile import AdapterKind
from idea.infrastructure.clis.adapter import CliAdapter
from idea.infrastructure.clis.claude.session import probe_claude_mcp, start_claude_session
from idea.infrastructure.clis.claude.terminal import claude_terminal
from idea.infrastructure.clis.codex.session import probe_codex_mcp, start_codex_session
from idea.infrastructure.clis.codex.terminal import codex_terminal
from idea.infrastructure.clis.gemini.session import probe_gemini_mcp, start_gemini_session
from idea.infrastructure.clis.gemini.terminal import gemini_terminal
from idea.infrastructure.clis.opencode.session import (
    probe_opencode_mcp,
    start_opencode_session,
)
from idea.infrastructure.clis.opencode.terminal import opencode_terminal
from idea.infrastructure.clis.qwen.session import probe_qwen_mcp, start_qwen_session
from idea.infrastructure.clis.qwen.terminal import qwen_terminal

CLIS: Mapping[AdapterKind, CliAdapter] = MappingProxyType(
    {
        AdapterKind.CLAUDE: CliAdapter(start_claude_session, claude_terminal, probe_claude_mcp),
        AdapterKind.CODEX: CliAdapter(start_codex_session, codex_terminal, probe_codex_mcp),
        AdapterKind.GEMINI: CliAdapter(start_gemini_session, gemini_terminal, probe_gemini_mcp),
        AdapterKind.QWEN: CliAdapter(start_qwen_session, qwen_terminal, probe_qwen_mcp),
        AdapterKind.OPENCODE: CliAdapter(
            start_opencode_session, opencode_terminal, probe_opencode_mcp
        ),
    }
)

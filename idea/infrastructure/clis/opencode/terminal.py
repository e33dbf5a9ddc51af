"""OpenCode's TUI reads the same run-dir config as its structured runs (``OPENCODE_CONFIG``)."""

from __future__ import annotations

from idea.application.session_ports import StructuredSpec
from idea.infrastructure.clis.adapter import TerminalInjection
from idea.infrastructure.clis.opencode.session import prepare_run_dir


def opencode_terminal(spec: StructuredSpec) -> TerminalInjection:
    args = (f"--model={spec.model}",) if spec.model else ()
    return TerminalInjection(args, prepare_run_dir(spec))

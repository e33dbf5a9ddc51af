"""Gemini's TUI reads the run dir's workspace settings, so it runs from the run dir (with the
project as an included directory)."""

from __future__ import annotations

from idea.application.session_ports import StructuredSpec
from idea.infrastructure.clis.adapter import TerminalInjection
from idea.infrastructure.clis.gemini.session import TRUST_ENV, prepare_run_dir


def gemini_terminal(spec: StructuredSpec) -> TerminalInjection:
    prepare_run_dir(spec)
    args = (f"--model={spec.model}",) if spec.model else ()
    return TerminalInjection(args, {TRUST_ENV: "true"}, cwd=spec.run_dir)

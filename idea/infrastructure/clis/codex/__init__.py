"""Codex CLI: app-server codec, structured session, terminal injection."""

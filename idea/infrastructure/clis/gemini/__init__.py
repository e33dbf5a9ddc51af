"""Gemini CLI: stream-json parser, per-turn structured session, terminal injection."""

"""Qwen Code: structured session (Claude Code's stream-json protocol), terminal injection."""

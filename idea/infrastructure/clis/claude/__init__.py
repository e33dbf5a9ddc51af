"""Claude Code: stream-json codec, structured session, terminal injection."""

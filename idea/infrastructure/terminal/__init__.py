"""Terminal sessions: the PTY adapters (POSIX, Windows), scrollback, UTF-8 decoding."""

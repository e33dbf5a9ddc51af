"""OpenCode: JSON event codec, structured session (a process per turn), terminal injection."""

"""Where agents work: the project folder, or a git worktree of their own (DESIGN.md §14)."""

"""Adapters for the SSH link to other hosts (DESIGN.md §16), on asyncssh."""

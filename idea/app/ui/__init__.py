"""The UI server and its API facade: JSON in, JSON out, over the application (DESIGN.md §2)."""

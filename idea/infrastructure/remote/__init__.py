"""Agents on other hosts (DESIGN.md §16): the link to ``idea host`` and what it carries."""

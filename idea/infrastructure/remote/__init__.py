"""Agents on other hosts (DESIGN.md §16): the link to ``idea host`` and what it carries, over any
byte stream; ``ssh/`` is the transport that carries it to a real host."""

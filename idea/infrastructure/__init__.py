"""Adapters, one folder per reason to change (DESIGN.md §2): files, stores, processes, terminal,
clis, doors."""

"""Adapters: stores, processes, PTYs, CLI sessions, listeners, the file door."""

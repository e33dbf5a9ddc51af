"""One module per store of project (or per-user) state, on top of ``files/``."""

"""Files under ``.ideai/``: atomic writes, JSON documents, quarantine of unreadable files."""

"""``python -m idea`` is the same entry point as the ``idea`` executable."""

from idea.cli import main

raise SystemExit(main())

"""IdeA: several AI coding agents side by side on one project.

Kept empty but for the version: it runs before every ``idea.*`` import, the bridge's included.
"""

__version__ = "0.1.0"

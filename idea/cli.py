"""Command-line router (placeholder, replaced below)."""


def main() -> int:
    return 0

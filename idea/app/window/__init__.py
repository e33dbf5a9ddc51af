"""The desktop window: pywebview on the main thread, its Qt permissions and notifications."""

"""What the UI's terminal views are sent: frames, a client's outbox, the screens kept here."""

"""A one-message mailbox whose reader waits for a notify, not for the message."""

import threading


class Mailbox:
    """Hands one message from a writer to a reader, under *condition*."""

    def __init__(self, condition: threading.Condition) -> None:
        self.condition = condition
        self.message: str | None = None

    def put(self, message: str) -> None:
        """Leave *message* and wake the reader."""
        with self.condition:
            self.message = message
            self.condition.notify()

    def get(self) -> str | None:
        """Wait for the message and return it."""
        with self.condition:
            # If put() already ran, its notify is gone: this waits forever.
            self.condition.wait()
            return self.message

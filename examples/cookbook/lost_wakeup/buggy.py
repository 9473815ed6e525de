"""A one-message mailbox whose reader waits for a notify, not for the message."""


class Mailbox:
    """Hands one message from a writer to a reader, under *condition*."""

    def __init__(self, condition):
        self.condition = condition
        self.message = None

    def put(self, message):
        """Leave *message* and wake the reader."""
        with self.condition:
            self.message = message
            self.condition.notify()

    def get(self):
        """Wait for the message and return it."""
        with self.condition:
            # If put() already ran, its notify is gone: this waits forever.
            self.condition.wait()
            return self.message

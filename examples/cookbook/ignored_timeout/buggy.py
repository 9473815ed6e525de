"""A printer shared by threads, whose lock is taken with a timeout that is
never checked."""


class Printer:
    """Prints whole documents, one at a time, under *lock*."""

    def __init__(self, lock):
        self.lock = lock
        self.pages = []

    def print_document(self, name, pages):
        """Print *pages* pages of *name* without interleaving; say whether
        it printed."""
        self.lock.acquire(timeout=1.0)  # the result, False on a timeout, is dropped
        try:
            for page in range(1, pages + 1):
                self.pages.append(f"{name} {page}")
            return True
        finally:
            self.lock.release()  # releases a lock someone else holds

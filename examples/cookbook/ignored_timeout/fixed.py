"""A printer shared by threads, whose lock is taken with a timeout that is
checked."""


class Printer:
    """Prints whole documents, one at a time, under *lock*."""

    def __init__(self, lock):
        self.lock = lock
        self.pages = []

    def print_document(self, name, pages):
        """Print *pages* pages of *name* without interleaving; say whether
        it printed."""
        if not self.lock.acquire(timeout=1.0):
            return False  # the printer stayed busy: try again later
        try:
            for page in range(1, pages + 1):
                self.pages.append(f"{name} {page}")
            return True
        finally:
            self.lock.release()

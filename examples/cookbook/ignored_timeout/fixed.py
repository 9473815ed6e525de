"""A printer shared by threads, whose lock is taken with a timeout that is
checked."""

import threading


class Printer:
    """Prints whole documents, one at a time, under *lock*."""

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock
        self.pages: list[str] = []

    def print_document(self, name: str, pages: int) -> bool:
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

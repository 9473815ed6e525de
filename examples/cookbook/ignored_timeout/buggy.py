"""A printer shared by threads, whose lock is taken with a timeout that is
never checked."""

import threading


class Printer:
    """Prints whole documents, one at a time, under *lock*."""

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock
        self.pages: list[str] = []

    def print_document(self, name: str, pages: int) -> bool:
        """Print *pages* pages of *name* without interleaving; say whether
        it printed."""
        self.lock.acquire(timeout=1.0)  # the result, False on a timeout, is dropped
        try:
            for page in range(1, pages + 1):
                self.pages.append(f"{name} {page}")
            return True
        finally:
            self.lock.release()  # releases a lock someone else holds

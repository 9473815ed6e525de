"""A hit counter shared by the threads of a server, updated under a lock."""

import threading


class HitCounter:
    """Counts the hits every thread reports; *lock* guards the count."""

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock
        self.count = 0

    def hit(self) -> None:
        """Count one hit."""
        with self.lock:
            self.count += 1

"""A stack of pending jobs that idle workers take from, under a lock."""

import threading


class JobStack:
    """Jobs pushed by producers, taken by workers, last in first out;
    *lock* guards the look and the pop together."""

    def __init__(self, lock: threading.Lock, jobs: list[str]) -> None:
        self.lock = lock
        self.jobs = list(jobs)

    def take(self) -> str | None:
        """The newest job, or ``None`` when there is none."""
        with self.lock:
            if len(self.jobs):
                return self.jobs.pop()
            return None

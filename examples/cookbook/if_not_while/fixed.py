"""A job queue whose consumers check for work again each time they wake."""

import threading


class JobQueue:
    """Jobs handed from producers to consumers, under *condition*."""

    def __init__(self, condition: threading.Condition) -> None:
        self.condition = condition
        self.jobs: list[str] = []

    def put(self, job: str) -> None:
        """Add *job* and wake one consumer."""
        with self.condition:
            self.jobs.append(job)
            self.condition.notify()

    def get(self) -> str:
        """Wait for a job and take it."""
        with self.condition:
            while not self.jobs:  # woken or not, look again
                self.condition.wait()
            return self.jobs.pop(0)

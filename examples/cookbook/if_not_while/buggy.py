"""A job queue whose consumers check for work once before they wait."""

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
            if not self.jobs:
                self.condition.wait()
            # Being woken does not mean the job is still there: another
            # consumer may have taken it before this one got the lock back.
            return self.jobs.pop(0)

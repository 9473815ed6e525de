"""A job queue whose consumers check for work once before they wait."""


class JobQueue:
    """Jobs handed from producers to consumers, under *condition*."""

    def __init__(self, condition):
        self.condition = condition
        self.jobs = []

    def put(self, job):
        """Add *job* and wake one consumer."""
        with self.condition:
            self.jobs.append(job)
            self.condition.notify()

    def get(self):
        """Wait for a job and take it."""
        with self.condition:
            if not self.jobs:
                self.condition.wait()
            # Being woken does not mean the job is still there: another
            # consumer may have taken it before this one got the lock back.
            return self.jobs.pop(0)

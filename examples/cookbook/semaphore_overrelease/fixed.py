"""A pool of worker slots that gives each slot back once."""


class Pool:
    """Runs jobs, at most as many at once as *slots* (a semaphore) allows."""

    def __init__(self, slots):
        self.slots = slots

    def run(self, job):
        """Run *job* in a slot; say whether it succeeded."""
        with self.slots:  # one acquire, one release, whatever the job does
            return bool(job())

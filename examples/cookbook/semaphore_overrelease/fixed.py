"""A pool of worker slots that gives each slot back once."""

import threading
from collections.abc import Callable


class Pool:
    """Runs jobs, at most as many at once as *slots* (a semaphore) allows."""

    def __init__(self, slots: threading.Semaphore) -> None:
        self.slots = slots

    def run(self, job: Callable[[], bool]) -> bool:
        """Run *job* in a slot; say whether it succeeded."""
        with self.slots:  # one acquire, one release, whatever the job does
            return bool(job())

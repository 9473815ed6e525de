"""A pool of worker slots whose failure path gives its slot back twice."""

import threading
from collections.abc import Callable


class Pool:
    """Runs jobs, at most as many at once as *slots* (a semaphore) allows."""

    def __init__(self, slots: threading.Semaphore) -> None:
        self.slots = slots

    def run(self, job: Callable[[], bool]) -> bool:
        """Run *job* in a slot; say whether it succeeded."""
        self.slots.acquire()
        try:
            if not job():
                self.slots.release()  # give the slot back early...
                return False
            return True
        finally:
            self.slots.release()  # ...and once more here

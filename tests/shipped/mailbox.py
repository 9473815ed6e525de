"""A "wake the consumer once" flag kept as a queue (the shape of executors that
``put`` a wake-up item only when ``qsize()``/``empty()`` says the queue is
empty): two producers both see it empty and both put."""
import queue
import threading


class Waker:
    def __init__(self):
        self.wakeups = queue.SimpleQueue()

    def wake(self):
        if self.wakeups.empty():
            self.wakeups.put(None)


class LockedWaker(Waker):
    """The fix: the check and the put under one lock."""

    def __init__(self):
        super().__init__()
        self._lock = threading.Lock()

    def wake(self):
        with self._lock:
            super().wake()

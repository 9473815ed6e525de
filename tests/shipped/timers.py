"""Due timers popped from a heap (the shape of schedulers built on ``heapq``):
``pop_due`` checks the earliest entry, then ``heappop``s it; two threads both
see one due timer and both pop."""
import heapq
import threading


class Timers:
    def __init__(self, *when):
        self._heap = list(when)
        heapq.heapify(self._heap)

    def pop_due(self, now):
        if self._heap and self._heap[0] <= now:
            return heapq.heappop(self._heap)
        return None


class LockedTimers(Timers):
    """The fix: the check and the pop under one lock."""

    def __init__(self, *when):
        super().__init__(*when)
        self._lock = threading.Lock()

    def pop_due(self, now):
        with self._lock:
            return super().pop_due(now)

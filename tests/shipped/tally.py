"""Word counts in a ``collections.Counter`` shared by threads, each calling
``update`` with counts (a mapping: Python code in the standard library,
``self[elem] = count + self_get(elem, 0)``): two updates of one word can
lose one."""
import collections
import threading


class Tally:
    def __init__(self):
        self.counts = collections.Counter()

    def add(self, counts):
        self.counts.update(counts)


class LockedTally(Tally):
    """The fix: one update at a time."""

    def __init__(self):
        super().__init__()
        self._lock = threading.Lock()

    def add(self, counts):
        with self._lock:
            super().add(counts)

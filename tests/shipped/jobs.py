"""A generator shared by worker threads (``for job in jobs: ...`` in each
worker): a worker resuming it while another is inside it gets
``ValueError: generator already executing``. Here the generator takes a lock
the library made at import time for each item, a place where the thread
inside it can be switched out."""
import threading

_lock = threading.Lock()


def take(table):
    for key in sorted(table):
        with _lock:
            value = table.pop(key)
        yield value


class Jobs:
    """The fix: one worker at a time in the generator."""

    def __init__(self, table):
        self._items = take(table)
        self._lock = threading.Lock()

    def __iter__(self):
        return self

    def __next__(self):
        with self._lock:
            return next(self._items)

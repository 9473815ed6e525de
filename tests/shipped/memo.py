"""A memoizing decorator over an LRU table (the shape of cachetools.func before
6.0.0: the lock guards the table, not the call, so two callers of one key both
compute; 6.0.0 uses a Condition and a set of pending keys).

``RLock``/``Condition`` are imported names, bound when this module is imported;
the table is an ``OrderedDict`` (a dict subclass: ``move_to_end``, ``popitem``)."""
from collections import OrderedDict
from threading import Condition, RLock


class LRU(OrderedDict):
    def __init__(self, maxsize):
        super().__init__()
        self.maxsize = maxsize

    def lookup(self, key):
        value = self[key]
        self.move_to_end(key)
        return value

    def store(self, key, value):
        self[key] = value
        if len(self) > self.maxsize:
            self.popitem(last=False)


def lru_cache(maxsize=128):
    def decorator(func):
        table = LRU(maxsize)
        lock = RLock()

        def wrapper(*args):
            with lock:
                try:
                    return table.lookup(args)
                except KeyError:
                    pass
            value = func(*args)  # both callers of a missing key get here
            with lock:
                table.store(args, value)
            return value
        return wrapper
    return decorator


def lru_cache_waiting(maxsize=128):
    """The fix: a caller of a key being computed waits for it."""
    def decorator(func):
        table = LRU(maxsize)
        cond = Condition(RLock())
        pending = set()

        def wrapper(*args):
            with cond:
                cond.wait_for(lambda: args not in pending)
                try:
                    return table.lookup(args)
                except KeyError:
                    pending.add(args)
            try:
                value = func(*args)
                with cond:
                    table.store(args, value)
                return value
            finally:
                with cond:
                    pending.discard(args)
                    cond.notify_all()
        return wrapper
    return decorator

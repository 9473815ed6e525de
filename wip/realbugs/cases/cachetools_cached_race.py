"""cachetools.cached with a lock: two threads miss the same key at once.

Before 4.2.0 ``@cached(cache, lock=lock)`` looks the key up under the lock,
calls the function outside it, then stores with ``cache[k] = v``: the second
thread to store overwrites the first one's value, and each caller returns its
own object, so two callers of one key hold two different objects (one not in
the cache). 4.2.0 (CHANGELOG: "Improve behavior of decorators in case of race
conditions") stores with ``cache.setdefault(k, v)`` and returns what the cache
holds: the value already there wins.
"""
import threading

import cachetools

from realbugs_variant import Variant, everywhere

BUG = "cachetools CHANGELOG v4.2.0: 'Improve behavior of decorators in case of race conditions' (cache.setdefault)"
VARIANTS = [Variant("cachetools 4.1.1", "cachetools-4.1.1", everywhere(True)),
            Variant("cachetools 4.2.0", "cachetools-4.2.0", everywhere(False))]


def LIB_FILE():
    return cachetools.__file__


def setup(scenario):
    cache = cachetools.LRUCache(maxsize=8)

    @cachetools.cached(cache, lock=threading.Lock())
    def load(key):
        return {"key": key}

    got = {}

    def use(tag):
        got[tag] = load("config")

    scenario.thread(use, "A")
    scenario.thread(use, "B")

    def one_object():
        assert got["A"] is got["B"], "the two callers got two different objects for one key"
        assert cache[("config",)] is got["A"], "a caller holds an object the cache does not"
    return one_object

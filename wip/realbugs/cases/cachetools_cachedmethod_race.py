"""cachetools.cachedmethod with a lock: two threads miss the same key at once.

The ``@cachedmethod`` side of the 4.2.0 fix (see cachetools_cached_race):
before it, the second thread's ``c[k] = v`` overwrites the first one's value
and the two callers hold different objects; 4.2.0 returns
``c.setdefault(k, v)``.
"""
import operator
import threading

import cachetools

from realbugs_variant import Variant, everywhere

BUG = ("cachetools CHANGELOG v4.2.0: 'Improve behavior of decorators in case of race conditions'"
       " (@cachedmethod, c.setdefault)")
VARIANTS = [Variant("cachetools 4.1.1", "cachetools-4.1.1", everywhere(True)),
            Variant("cachetools 4.2.0", "cachetools-4.2.0", everywhere(False))]


def LIB_FILE():
    return cachetools.__file__


class Repository:
    def __init__(self):
        self.cache = cachetools.LRUCache(maxsize=8)
        self.lock = threading.RLock()

    @cachetools.cachedmethod(operator.attrgetter("cache"), lock=operator.attrgetter("lock"))
    def find(self, key):
        return {"key": key}


def setup(scenario):
    repository = Repository()
    got = {}

    def use(tag):
        got[tag] = repository.find("user")

    scenario.thread(use, "A")
    scenario.thread(use, "B")

    def one_object():
        assert got["A"] is got["B"], "the two callers got two different objects for one key"
    return one_object

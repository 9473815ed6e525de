"""cachetools.func.lru_cache: two threads call the cached function with one key.

Before 6.0.0 the ``cachetools.func`` decorators hold an RLock (``from threading
import RLock`` at import, made in the decorator) around the cache lookups only,
not around the call: both threads miss, both compute (cache stampede). 6.0.0
(CHANGELOG: "Convert the cachetools.func decorators to use a threading.Condition
instance to deal with cache stampede issues") makes the second wait for the first.
https://github.com/tkem/cachetools/blob/master/CHANGELOG.rst (v6.0.0)
"""
import cachetools
import cachetools.func

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/tkem/cachetools/blob/master/CHANGELOG.rst#v600-2025-05-23"
VARIANTS = [Variant("cachetools 5.5.2", "cachetools-5.5.2", everywhere(True)),
            Variant("cachetools 6.0.0", "cachetools-6.0.0", everywhere(False))]


def LIB_FILE():
    return cachetools.__file__


def setup(scenario):
    calls = []

    @cachetools.func.lru_cache(maxsize=8)
    def square(x):
        calls.append(x)
        return x * x

    got = {}

    def use(tag):
        got[tag] = square(3)

    scenario.thread(use, "A")
    scenario.thread(use, "B")

    def computed_once():
        assert got == {"A": 9, "B": 9}, got
        assert calls == [3], f"computed {len(calls)} times"
    return computed_once

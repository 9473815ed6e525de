"""cachelib.SimpleCache.add: two threads add one key.

``add`` "works like set but does not overwrite the values of already existing
keys" and returns whether it added. Before 0.15.0 SimpleCache has no lock (its
docstring: "not 100% thread safe ... it could happen under heavy load that keys
are added multiple times"): both threads see the key absent (``has``), both
store, both return True, and one of the two callers believes the cache holds its
value when it holds the other's. 0.15.0 (CHANGES: "Make SimpleCache thread-safe
using a threading.RLock", issue #446) does each operation under one RLock.
"""
import cachelib
from cachelib import SimpleCache

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/pallets-eco/cachelib/issues/446 (CHANGES 0.15.0: 'Make SimpleCache thread-safe using a threading.RLock')"
VARIANTS = [Variant("cachelib 0.14.0", "cachelib-0.14.0", everywhere(True)),
            Variant("cachelib 0.15.0", "cachelib-0.15.0", everywhere(False))]


def LIB_FILE():
    return cachelib.__file__


def setup(scenario):
    cache = SimpleCache()
    added = {}

    def add(tag):
        added[tag] = cache.add("config", tag)

    scenario.thread(add, "A")
    scenario.thread(add, "B")

    def one_winner():
        winners = [tag for tag, won in added.items() if won]
        assert len(winners) == 1, f"add() returned True to {winners}"
        assert cache.get("config") == winners[0], (winners, cache.get("config"))
    return one_winner

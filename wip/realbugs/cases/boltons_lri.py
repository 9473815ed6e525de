"""boltons.cacheutils.LRI: two threads insert into a full cache.

Before 19.0.0 ``LRI.__setitem__`` has no lock: ``if len(self) >= max_size:
old = self._queue.popleft(); del self[old]``, then the insert. Two threads
inserting into a full LRI both see it full and both evict: the second
``popleft`` finds the queue empty (IndexError) or the cache ends below its
size. 19.0.0 (CHANGELOG: "cacheutils.LRI is now threadsafe and correctly
evicts when duplicate keys are added", #155, #157) rebuilt LRI on the LRU's
RLock-guarded linked list.
"""
import boltons
from boltons.cacheutils import LRI

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/mahmoud/boltons/issues/155 (boltons 19.0.0 CHANGELOG: LRI is now threadsafe)"
VARIANTS = [Variant("boltons 18.0.1", "boltons-18.0.1", everywhere(True)),
            Variant("boltons 19.0.0", "boltons-19.0.0", everywhere(False))]


def LIB_FILE():
    return boltons.__file__


def setup(scenario):
    cache = LRI(max_size=1)
    cache["a"] = 1

    def insert(key):
        cache[key] = 2

    scenario.thread(insert, "b")
    scenario.thread(insert, "c")

    def one_entry():
        assert len(cache) == 1, f"max_size=1 and {len(cache)} entries: {dict(cache)}"
    return one_entry

"""repoze.lru: ``LRUCache.get`` while another thread clears the cache.

Bug: https://github.com/repoze/repoze.lru/issues/6 ("LRUCache is not thread
safe": "When the clear() method is called on a LRUCache, concurrently running
get() and put() calls may throw exceptions. The get() method may throw an
exception because it tries to ``self.clock[pos]['ref'] = True`` but the clear()
method is only slowly rebuilding the self.clock list. This results in index out
of bounds."); fixed by PR #9, CHANGES 0.5: "Bug: LRUCache was not thread safe
(Issue #6)". In 0.4 ``clear()`` (under the cache's lock, which ``get`` does not
take) sets ``self.clock = []``, appends one slot a time, and empties
``self.data`` last; a ``get`` that read its entry's position from the old
``data`` indexes the half-built clock: IndexError. 0.5 empties ``data`` first
and replaces the clock lists whole.

One thread reads the entry in the cache's last slot, the other clears the cache.
The cache is made in the setup: no module state.
"""
import repoze.lru
from repoze.lru import LRUCache

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/repoze/repoze.lru/issues/6 (fix PR #9; CHANGES 0.5 'LRUCache was not thread safe')"
VARIANTS = [Variant("repoze.lru 0.4", "repoze.lru-0.4", everywhere(True)),
            Variant("repoze.lru 0.5", "repoze.lru-0.5", everywhere(False))]


def LIB_FILE():
    return repoze.lru.__file__


def setup(scenario):
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)  # the last slot
    got = {}

    def reader():
        got["b"] = cache.get("b", "missing")

    scenario.thread(reader)
    scenario.thread(cache.clear)

    def read_cleanly():
        assert got.get("b") in (2, "missing"), got
        assert cache.get("b", "missing") == "missing", "clear() left an entry"
    return read_cleanly

"""boltons.cacheutils.LRU: two threads setdefault() the same key.

boltons CHANGELOG 15.1.1: "cacheutils.LRU: Massive refactor of the backing linked
list for better handling of duplicate data in the cache. More aggressive locking
and better ``__eq__``". In 15.1.0 ``LRU.setdefault`` (and ``pop``) take no lock:
``try: return self[key] except KeyError: self[key] = default; return default``.
Two threads that both miss each store and return their own default: the two
callers hold two different values for one key (``dict.setdefault`` returns the
value the mapping keeps). 15.1.1 runs ``setdefault`` and ``pop`` under the LRU's
RLock. Each run makes its own LRU: no module state to reset.
"""
import boltons
from boltons.cacheutils import LRU

from realbugs_variant import Variant, everywhere

BUG = "boltons CHANGELOG 15.1.1: cacheutils.LRU 'More aggressive locking' (setdefault/pop under the LRU's lock)"
VARIANTS = [Variant("boltons 15.1.0", "boltons-15.1.0", everywhere(True)),
            Variant("boltons 15.1.1", "boltons-15.1.1", everywhere(False))]


def LIB_FILE():
    return boltons.__file__


def setup(scenario):
    cache = LRU(max_size=4)
    got = {}

    def session(tag):
        got[tag] = cache.setdefault("user", [tag])

    scenario.thread(session, "A")
    scenario.thread(session, "B")

    def one_value():
        assert got["A"] is got["B"] is cache["user"], f"setdefault gave {got}, the cache keeps {cache['user']}"
    return one_value

"""Model of the cachetools.func stampede (before 6.0.0): two threads call the
cached function with one key; both compute. The decorator's lock is made by the
library in the setup, from a name imported at import time."""
import stampede_lib


def _setup(scenario, decorate):
    calls = []

    @decorate(maxsize=8)
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


def setup(scenario):
    return _setup(scenario, stampede_lib.lru_cache)


def setup_fixed(scenario):
    return _setup(scenario, stampede_lib.lru_cache_waiting)

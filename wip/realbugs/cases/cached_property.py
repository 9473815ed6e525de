"""functools.cached_property: two threads read the property of one instance first.

3.8-3.11 hold an RLock (one per property, made when the class body runs) around
the computation: computed once. 3.12 removed the lock
(https://github.com/python/cpython/issues/87634, "the getter may run more than
once for a given instance"): two threads may both compute. The invariant here
wants it computed once, so 3.12/3.13/3.13t are the "buggy" ones and 3.11 the
"fixed" one. The class is made at import time, as in real code.
"""
import functools

from realbugs_variant import Variant

BUG = "https://github.com/python/cpython/issues/87634"
VARIANTS = [Variant("stdlib", None, {"3.11": False, "3.12": True, "3.13": True, "3.13t": True})]
computed = []


def LIB_FILE():
    return functools.__file__


class Settings:
    @functools.cached_property
    def value(self):
        computed.append(1)
        return 42


def setup(scenario):
    computed.clear()
    settings = Settings()
    got = {}

    def read(tag):
        got[tag] = settings.value

    scenario.thread(read, "A")
    scenario.thread(read, "B")

    def computed_once():
        assert got == {"A": 42, "B": 42}, got
        assert len(computed) == 1, f"computed {len(computed)} times"
    return computed_once

"""Model of six #98 (six 1.7.3): two threads read the same lazy attribute first;
the second ``delattr`` of the descriptor raises AttributeError in its thread.
``setup_fixed`` uses the locked descriptor. The racing state is the class's
``__dict__`` and the instance's, written through ``setattr``/``delattr`` in
another module (lazy_attr_lib)."""
import lazy_attr_lib


def _setup(scenario, kind):
    moves = lazy_attr_lib.namespace(kind, join=lambda: "joined")
    got = {}

    def read(tag):
        got[tag] = moves.join

    scenario.thread(read, "A")
    scenario.thread(read, "B")

    def both_read():
        assert got == {"A": "joined", "B": "joined"}, got
    return both_read


def setup(scenario):
    return _setup(scenario, lazy_attr_lib.LazyAttr)


def setup_fixed(scenario):
    return _setup(scenario, lazy_attr_lib.LockedLazyAttr)

"""Model of cpython gh-114763 (LazyLoader, 3.11/3.12.1): two threads read an
attribute of a lazily loaded module; one gets AttributeError. The racing state:
the module's ``__class__`` (assigned) and ``__dict__`` (written by ``setattr``
after ``exec``), in lazy_module_lib."""
import lazy_module_lib


def _setup(scenario, locked):
    module = lazy_module_lib.lazy_module("payload", "VALUE = 42\n", locked=locked)
    got = {}

    def read(tag):
        got[tag] = module.VALUE

    scenario.thread(read, "A")
    scenario.thread(read, "B")

    def both_read():
        assert got == {"A": 42, "B": 42}, got
    return both_read


def setup(scenario):
    return _setup(scenario, False)


def setup_fixed(scenario):
    return _setup(scenario, True)

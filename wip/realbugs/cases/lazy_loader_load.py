"""lazy_loader.load: two threads lazily load one module for the first time.

Bug: lazy_loader 0.4 CHANGELOG "Make `lazy_load.load` partially thread-safe"
(https://github.com/scientific-python/lazy-loader/pull/90, for issue #88). In 0.3
``load`` looks ``sys.modules`` up, and on a miss makes a module from the spec,
stores it in ``sys.modules`` and returns it, with no lock: two threads that both
miss make two module objects, and one caller holds a module that is not the one
in ``sys.modules`` (its state is not the program's). 0.4 does it all under a
module-level ``threading.Lock``. Only ``load`` is raced here; the threads do not
touch the module's attributes (that is the LazyLoader bug, case lazyloader).
"""
import sys

import lazy_loader

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/scientific-python/lazy-loader/pull/90 (CHANGELOG 0.4: 'Make lazy_load.load partially thread-safe')"
VARIANTS = [Variant("lazy_loader 0.3", "lazy_loader-0.3", everywhere(True)),
            Variant("lazy_loader 0.4", "lazy_loader-0.4", everywhere(False))]


def LIB_FILE():
    return lazy_loader.__file__


def setup(scenario):
    sys.modules.pop("lazy_payload", None)
    got = {}

    def load(tag):
        got[tag] = lazy_loader.load("lazy_payload")

    scenario.thread(load, "A")
    scenario.thread(load, "B")

    def one_module():
        assert got["A"] is got["B"], "the two callers got two different module objects"
        assert sys.modules["lazy_payload"] is got["A"], "a caller holds a module sys.modules does not"
    return one_module

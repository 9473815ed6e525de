"""typeguard: a @typechecked function's first two calls, one checks nothing.

Bug: typeguard version history 2.3.1: "Fixed thread safety issue with the type
hints cache (PR by Kelsey Francis)". In 2.3.0 ``_CallMemo.__init__`` publishes
the function's hints dict in the module cache before filling it:
``self.type_hints = _type_hints_map[func] = OrderedDict()``, then adds one entry
a parameter. A second call that meets the function in ``_type_hints_map``
meanwhile takes the empty (or half-filled) dict as the function's hints: its
arguments are not checked, and a call with a wrong-typed argument returns
instead of raising TypeError. 2.3.1 fills a local OrderedDict and stores it
in ``_type_hints_map`` last.

Both threads call the decorated function with a wrong-typed argument and expect
TypeError. The function is defined in the setup, so each run's function is a new
key of the (weak-keyed) module cache: no module state to reset.
"""
import typeguard
from typeguard import typechecked

from realbugs_variant import Variant, everywhere

BUG = "typeguard 2.3.1 version history: 'Fixed thread safety issue with the type hints cache (PR by Kelsey Francis)'"
VARIANTS = [Variant("typeguard 2.3.0", "typeguard-2.3.0", everywhere(True)),
            Variant("typeguard 2.3.1", "typeguard-2.3.1", everywhere(False))]


def LIB_FILE():
    return typeguard.__file__


def setup(scenario):
    @typechecked
    def scale(count: int):
        return count * 2

    rejected = {}

    def caller(tag):
        try:
            scale("three")
        except TypeError:
            rejected[tag] = True
        else:
            rejected[tag] = False

    scenario.thread(caller, "A")
    scenario.thread(caller, "B")

    def both_rejected():
        assert rejected == {"A": True, "B": True}, f"a call with a str for an int was not rejected: {rejected}"
    return both_rejected

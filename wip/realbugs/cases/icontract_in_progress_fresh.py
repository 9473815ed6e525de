"""icontract_in_progress with the function decorated in the setup (a new function each run).

The same bug and threads as icontract_in_progress; the only difference is where
the contracted function is made. 2.3.2 names its per-thread flag after the
function's ``id()`` (``setattr(_IN_PROGRESS, str(id(func)), True)`` on a
``threading.local``), so each run's function gives the flag another attribute
name.
"""
import icontract

import icontract_in_progress
from realbugs_variant import Variant, everywhere

BUG = icontract_in_progress.BUG
VARIANTS = icontract_in_progress.VARIANTS
LIB_FILE = icontract_in_progress.LIB_FILE


def setup(scenario):
    @icontract.require(lambda count: count > 0, error=lambda count: ValueError(f"count must be positive, got {count}"))
    def scale(count):
        return count * 2

    rejected = {}

    def caller(tag):
        try:
            scale(-1)
        except ValueError:
            rejected[tag] = True
        else:
            rejected[tag] = False

    scenario.thread(caller, "A")
    scenario.thread(caller, "B")

    def both_rejected():
        assert rejected == {"A": True, "B": True}, f"a call with count=-1 was not rejected: {rejected}"
    return both_rejected

"""icontract: two threads call one function with a precondition; one call is not checked.

Bug: https://github.com/Parquery/icontract/pull/137 ("fixed race conditions in
endless recursion blockers": "race conditions since endless recursion blockers
depend on global state which was not properly locked. The current fix uses
thread-local storage with ``threading.local()``. This also fixes #136"; released
as 2.3.1). In 2.3.0 each decorated function's checker keeps one ``in_progress``
flag (a closure variable) to skip the contracts of a recursive call: set while
a call's contracts are checked, cleared when the call returns. A second thread
calling the function meanwhile sees the flag and calls the function with no
check at all: a call that violates the precondition runs. 2.3.1 moved the flag
to a ``threading.local`` but set its ``in_progress`` set only in the importing
thread (any call from another thread raised AttributeError); 2.3.2 keeps one
attribute a function on the thread-local (``hasattr``/``setattr``), the first
release that checks every call from every thread: the fixed variant.

Both threads call the function with an argument its precondition rejects and
expect the error the contract names (``error=`` given, so no message is made
from the condition's source). The function is decorated once, at import, as an
application's would be; the checker leaves no state behind a call (2.3.0 clears
its flag, 2.3.2 deletes its attribute when the call returns), so there is no
module state to reset. icontract_in_progress_fresh.py is the same case with the
function decorated in the setup, a new function each run.
"""
import icontract

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/Parquery/icontract/pull/137 (fixes #136; 2.3.1, with the thread-local completed in 2.3.2)"
VARIANTS = [Variant("icontract 2.3.0", "icontract-2.3.0", everywhere(True)),
            Variant("icontract 2.3.2", "icontract-2.3.2", everywhere(False))]


def LIB_FILE():
    return icontract.__file__


@icontract.require(lambda count: count > 0, error=lambda count: ValueError(f"count must be positive, got {count}"))
def scale(count):
    return count * 2


def setup(scenario):
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

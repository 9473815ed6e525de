"""traceback.format_exception: two threads format the same traceback after its file changed.

Met the way https://bugs.python.org/issue25872 ("KeyError in linecache when
multithreaded": two threads generating a traceback) met it. ``traceback``'s
``StackSummary.extract`` calls ``linecache.lazycache(filename, ...)`` and then
``linecache.checkcache(filename)`` for each frame's file; both test
``filename in cache`` and then read ``cache[filename]``, and the other thread's
``checkcache`` drops the stale entry in between: formatting the traceback
raises KeyError from linecache.

- In ``checkcache``: https://github.com/python/cpython/issues/126775 (fix: PR
  #126776): 3.11.7, 3.12.1 and 3.13.0 have it, the 3.13t here (3.13.5) has the fix.
- In ``lazycache`` (and ``getlines`` / ``updatecache``): the race
  https://github.com/python/cpython/issues/133253 ("Race in linecache under
  free-threading"; its second reproducer formats tracebacks) reports; its fix
  (PR #133305) is in 3.14 and was backported to 3.13 in 2026 (PR #143911),
  after the 3.13.5 here: all four interpreters have it.

So this case has no fixed interpreter here: every variant is buggy (3.11 fails in
``checkcache``, 3.13t in ``lazycache``), and it adds no bug to the count
(linecache_checkcache and linecache_checkcache_file are gh-126775's cases).
The setup makes the state of a process whose source file was cached and then
removed (linecache_checkcache's ``stale_entry``); the exception was raised and
caught at import in a function compiled from that file (its traceback has that
one frame); the threads call only ``traceback.format_exception(error)``.
"""
import traceback

import linecache_checkcache
from realbugs_variant import Variant, everywhere

BUG = linecache_checkcache.BUG + " (3.11-3.13.0) and python/cpython#133253 (all four)"
VARIANTS = [Variant("stdlib", None, everywhere(True))]
LIB_FILE = linecache_checkcache.LIB_FILE

SOURCE = """\
def fail():
    try:
        raise ValueError("boom")
    except ValueError as error:
        return error
"""


def caught_error():
    namespace = {"__name__": "realbugs_stale_source"}
    exec(compile(SOURCE, linecache_checkcache.PATH, "exec"), namespace)
    return namespace["fail"]()


ERROR = caught_error()
EXPECTED = "".join(traceback.format_exception(ERROR))  # no such file yet: no source line


def setup(scenario):
    linecache_checkcache.stale_entry()
    got = {}

    def format_it(tag):
        got[tag] = "".join(traceback.format_exception(ERROR))

    scenario.thread(format_it, "A")
    scenario.thread(format_it, "B")

    def both_formatted():
        assert got == {"A": EXPECTED, "B": EXPECTED}, got
    return both_formatted

"""linecache.checkcache(): two threads drop the same stale entry.

Bug: https://github.com/python/cpython/issues/126775 ("linecache.checkcache() is
not threadsafe or GC finalizer re-entrancy safe"; fix: PR #126776, backported to
3.12 and 3.13). ``checkcache()`` takes ``list(cache.keys())`` and then reads
``cache[filename]`` for each name: a second thread that dropped the stale entry
in between (``cache.pop``) makes the first one's read raise KeyError. The old
code is in 3.11.7, 3.12.1 and 3.13.0; the 3.13t here (3.13.5) has the fix
(``cache.copy().keys()``, and ``except KeyError: continue`` around the read).
Each run starts from a fresh-process state for this file: the setup writes the
file, empties the cache (``linecache.clearcache()``, public), reads a line of
it (``linecache.getline``, which caches it) and removes the file, so that the
entry is stale; the threads call only ``linecache.checkcache()``.
"""
import linecache
import os
import tempfile

from realbugs_variant import Variant

BUG = "https://github.com/python/cpython/issues/126775"
VARIANTS = [Variant("stdlib", None, {"3.11": True, "3.12": True, "3.13": True, "3.13t": False})]
# A fixed name: the KeyError names the file, and the written test (a fresh
# process) must meet the same message.
PATH = os.path.join(tempfile.gettempdir(), "realbugs_linecache_source.py")


def LIB_FILE():
    return linecache.__file__


def stale_entry():
    """One cached entry whose file is gone (as after an edit or a removal)."""
    with open(PATH, "w") as f:
        f.write("VALUE = 42\n")
    linecache.clearcache()
    assert linecache.getline(PATH, 1) == "VALUE = 42\n"
    os.remove(PATH)


def setup(scenario):
    stale_entry()
    done = []

    def check(tag):
        linecache.checkcache()
        done.append(tag)

    scenario.thread(check, "A")
    scenario.thread(check, "B")

    def both_checked():
        assert sorted(done) == ["A", "B"], done
        assert PATH not in linecache.cache, "the stale entry is still cached"
    return both_checked

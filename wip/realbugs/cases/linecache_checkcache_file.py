"""linecache.checkcache(filename): two threads check the same stale file.

Bug: https://github.com/python/cpython/issues/126775 (fix: PR #126776), the
``checkcache(filename)`` path, the one ``traceback`` takes for each frame's file
(``StackSummary.extract`` calls ``linecache.checkcache(filename)``). In 3.11.7,
3.12.1 and 3.13.0 it tests ``filename in cache`` and then reads
``cache[filename]``: a second thread that dropped the stale entry in between
makes the read raise KeyError. The 3.13t here (3.13.5) has the fix (the read
is in ``try: ... except KeyError: continue``). The setup is
linecache_checkcache's (a cached entry whose file was removed); the threads
call only ``linecache.checkcache(path)``.
"""
import linecache

import linecache_checkcache

BUG = linecache_checkcache.BUG
VARIANTS = linecache_checkcache.VARIANTS
LIB_FILE = linecache_checkcache.LIB_FILE


def setup(scenario):
    linecache_checkcache.stale_entry()
    done = []

    def check(tag):
        linecache.checkcache(linecache_checkcache.PATH)
        done.append(tag)

    scenario.thread(check, "A")
    scenario.thread(check, "B")

    def both_checked():
        assert sorted(done) == ["A", "B"], done
        assert linecache_checkcache.PATH not in linecache.cache, "the stale entry is still cached"
    return both_checked

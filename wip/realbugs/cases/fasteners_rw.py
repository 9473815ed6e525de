"""fasteners: a writer taking a (reentrant) read lock while another writer waits
deadlocks.

Bug: https://github.com/harlowja/fasteners/issues/86 (seen with 0.16.3; fixed in
0.17.3, "Allow writer to become a reader": ``read_lock`` lets the active writer
in even with pending writers). The lock's Condition is
``def __init__(self, condition_cls=threading.Condition)``: a default argument
bound when fasteners was imported.
A holds the write lock; B asks for it (a pending writer); A asks for a read
lock and waits for the pending writer, which waits for A: deadlock.
"""
import fasteners

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/harlowja/fasteners/issues/86"
VARIANTS = [Variant("fasteners 0.16.3", "fasteners-0.16.3", everywhere(True)),
            Variant("fasteners 0.17.3", "fasteners-0.17.3", everywhere(False))]


def LIB_FILE():
    return fasteners.__file__


def setup(scenario):
    rw = fasteners.ReaderWriterLock()
    done = []

    def write_then_read():
        with rw.write_lock():
            with rw.read_lock():
                done.append("A")

    def write():
        with rw.write_lock():
            done.append("B")

    scenario.thread(write_then_read)
    scenario.thread(write)

    def both_done():
        assert sorted(done) == ["A", "B"], done
    return both_done

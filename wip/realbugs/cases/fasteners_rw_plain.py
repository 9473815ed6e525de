"""fasteners #86 as fasteners_rw, with no shared bookkeeping in the threads (no
list both append to): the only failure left is the library's own deadlock.
(fasteners_rw's shared list is a data race blanket parks at while A holds the
real Condition B sleeps in: that stalls the fixed version too.)"""
import fasteners_rw
from realbugs_variant import Variant, everywhere  # noqa: F401

BUG = fasteners_rw.BUG
VARIANTS = fasteners_rw.VARIANTS
LIB_FILE = fasteners_rw.LIB_FILE


def setup(scenario):
    import fasteners
    rw = fasteners.ReaderWriterLock()

    def write_then_read():
        with rw.write_lock():
            with rw.read_lock():
                pass

    def write():
        with rw.write_lock():
            pass

    scenario.thread(write_then_read)
    scenario.thread(write)

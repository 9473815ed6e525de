"""Model of fasteners #86 (0.16.3): A holds the write lock and asks for a read
lock while B waits for the write lock: deadlock (B waits for A, A for the pending
B). The lock's Condition is made by the library from a default argument bound at
import (``condition_cls=threading.Condition``). ``setup_fixed``: the 0.17.3 rule
(the active writer may read)."""
import rw_lock_lib


def _setup(scenario, admit_writer):
    rw = rw_lock_lib.ReaderWriterLock(admit_writer=admit_writer)

    def write_then_read():
        rw.acquire_write()
        rw.acquire_read()
        rw.release_read()
        rw.release_write()

    def write():
        rw.acquire_write()
        rw.release_write()

    scenario.thread(write_then_read)
    scenario.thread(write)


def setup(scenario):
    return _setup(scenario, False)


def setup_fixed(scenario):
    return _setup(scenario, True)

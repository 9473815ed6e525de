"""tqdm: two threads call tqdm.write() before any tqdm lock exists.

Bug: https://github.com/tqdm/tqdm/issues/982 ("Not thread-safe without calling
tqdm.get_lock() first") and #759 ("Race condition with tqdm.write"), fixed by PR
#1044 in 4.50.1 ("fix multiprocessing lock creation leak (#982, #936, #759) ...
multiple threads could concurrently create ... process locks ..., then try to
release them without first acquiring"). In 4.50.0 ``tqdm.get_lock`` and
``TqdmDefaultWriteLock.create_mp_lock`` test ``hasattr`` and then assign, unlocked:
two first writers make two write locks (and two multiprocessing RLocks);
``external_write_mode`` acquires the lock ``get_lock()`` returned and releases
``cls._lock``, which the other thread replaced: the release of a multiprocessing
RLock this thread does not own raises. 4.50.1 creates the lock under the class's
thread RLock. Each run starts from a fresh process's state: the setup deletes
``tqdm._lock`` and ``TqdmDefaultWriteLock.mp_lock`` (made lazily by the first
write); the threads call only ``tqdm.write``.
"""
import io

import tqdm as _tqdm
from tqdm import tqdm
from tqdm.std import TqdmDefaultWriteLock

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/tqdm/tqdm/issues/982 (and #759; fix PR #1044, released in 4.50.1)"
VARIANTS = [Variant("tqdm 4.50.0", "tqdm-4.50.0", everywhere(True)),
            Variant("tqdm 4.50.1", "tqdm-4.50.1", everywhere(False))]


def LIB_FILE():
    return _tqdm.__file__


def setup(scenario):
    for owner, name in ((tqdm, "_lock"), (TqdmDefaultWriteLock, "mp_lock")):
        if name in vars(owner):
            delattr(owner, name)
    out = io.StringIO()

    scenario.thread(tqdm.write, "spam", file=out)
    scenario.thread(tqdm.write, "eggs", file=out)

    def both_written():
        assert sorted(out.getvalue().split()) == ["eggs", "spam"], out.getvalue()
    return both_written

"""Work handed to whichever thread holds the lock (a "trylock drain", as
logging queues and event loops' call-soon buffers do): a submitter that finds
the lock taken leaves its item for the holder, who drains the deque. The bug:
the holder stops draining and releases after a submitter's failed try, so an
item is left behind."""
import collections
import threading

pending = collections.deque()
done = []
_lock = threading.Lock()


def submit(item):
    pending.append(item)
    if _lock.acquire(blocking=False):
        try:
            while pending:
                done.append(pending.popleft())
        finally:
            _lock.release()


_pending_lock = threading.Lock()


def submit_fixed(item):
    """The fix: the deque under a lock of its own, and the holder looks again
    after releasing, so an item left by a failed try is taken."""
    with _pending_lock:
        pending.append(item)
    while _lock.acquire(blocking=False):
        try:
            while True:
                with _pending_lock:
                    if not pending:
                        break
                    item = pending.popleft()
                done.append(item)
        finally:
            _lock.release()
        with _pending_lock:
            if not pending:
                return

"""Where a thread sleeps: the permit every parked thread waits on.

Every thread that blanket parks (a worker at a scheduler park, or the
scheduler in ``scenario.wait``) sleeps on a :class:`Parker` of its own, so a
wake touches only the thread it is meant for. A parker is always used with
the scenario's one lock held: :meth:`Parker.sleep` gives that lock up while
asleep and takes it back before returning, like ``Condition.wait``.
"""

from __future__ import annotations

import queue
import threading


class Parker:
    """A one-thread permit: :meth:`sleep` until another thread calls :meth:`wake`.

    The permit is a token in a ``queue.SimpleQueue``, empty while nobody
    has been woken; :meth:`wake` puts one at most once per sleep, so a wake
    that comes before the sleeper gets to the queue is not lost. (A
    SimpleQueue hands control from one thread to another in about half the
    time a ``threading.Lock`` takes on the free-threaded build, and in the
    same time with the GIL.)
    """

    __slots__ = ("_permit", "_sleeping")

    def __init__(self) -> None:
        self._permit: queue.SimpleQueue[None] = queue.SimpleQueue()
        self._sleeping = False

    def sleep(self, lock: threading.Lock, timeout: float = -1,
              deliver: list[Parker] | None = None) -> bool:
        """Release *lock*, sleep until woken or *timeout* passes, re-take *lock*.

        Returns whether a wake arrived. The caller re-checks what it waits
        for: a wake says something changed, not what. *deliver*: parkers
        whose wakes were claimed (:meth:`claim`) under *lock*; they are
        delivered once *lock* is released, so the woken find it free, and
        the list is emptied.
        """
        self._sleeping = True
        lock.release()
        if deliver:
            deliver_all(deliver)
        try:
            self._permit.get(True, None if timeout < 0 else timeout)
            woken = True
        except queue.Empty:
            woken = False
        finally:
            lock.acquire()
        if not woken and not self._sleeping:
            # The wake came between the timeout and re-taking the lock: the
            # token was put (or is about to be), so take it to keep the
            # permit empty.
            self._permit.get()
            woken = True
        self._sleeping = False
        return woken

    def wake(self) -> None:
        """Wake the sleeper, if there is one; the caller holds the lock."""
        if self._sleeping:
            self._sleeping = False
            self._permit.put(None)

    def claim(self) -> bool:
        """Take the wake of a sleeper, if there is one, to :meth:`deliver`
        once the lock is released; the caller holds the lock. A sleeper
        whose wait times out meanwhile waits for the delivery when it takes
        the lock back (see :meth:`sleep`), so the permit stays armed."""
        if self._sleeping:
            self._sleeping = False
            return True
        return False

    def deliver(self) -> None:
        """Deliver a wake taken with :meth:`claim` (the lock may be free)."""
        self._permit.put(None)


def deliver_all(claimed: list[Parker]) -> None:
    """Deliver the wakes taken with :meth:`Parker.claim`, and empty the list."""
    for parker in claimed:
        parker.deliver()
    claimed.clear()

"""Where a thread sleeps: the permit every parked thread waits on.

Every thread that blanket parks (a worker at a scheduler park, or the
scheduler in ``scenario.wait``) sleeps on a :class:`Parker` of its own, so a
wake touches only the thread it is meant for. A parker is always used with
the scenario's one lock held: :meth:`Parker.sleep` gives that lock up while
asleep and takes it back before returning, like ``Condition.wait``.

The scheduler is the main thread, so a ``KeyboardInterrupt`` (or any signal
handler that raises) can land anywhere in its part of a park or a wake.
Nothing here relies on a wake it started being finished: a sleep that is
interrupted still returns holding the lock (the lock is an ``RLock`` so that
it can tell), and :meth:`Parker.free` wakes a sleeper whatever became of
the wakes meant for it, which is how the scenario's exit lets every parked
thread go. A wake given twice leaves a token behind that only makes a later
sleep return early; every caller re-checks what it waits for.
"""

from __future__ import annotations

import queue
from typing import Protocol


class Mutex(Protocol):
    """What a parker needs of the scenario's lock (an ``RLock``; a plain
    ``Lock`` does too, but for a sleep that is interrupted)."""

    def acquire(self) -> object:
        """Take the lock."""

    def release(self) -> object:
        """Give the lock up."""


class Parker:
    """A one-thread permit: :meth:`sleep` until another thread calls :meth:`wake`.

    The permit is a token in a ``queue.SimpleQueue``, empty while nobody
    has been woken; :meth:`wake` puts one at most once per sleep, so a wake
    that comes before the sleeper gets to the queue is not lost. (A
    SimpleQueue hands control from one thread to another in about half the
    time a ``threading.Lock`` takes on the free-threaded build, and in the
    same time with the GIL.)
    """

    __slots__ = ("_permit", "_sleeping", "_asleep")

    def __init__(self) -> None:
        self._permit: queue.SimpleQueue[None] = queue.SimpleQueue()
        # Whether a wake is wanted: set by the sleeper, cleared by the waker
        # that takes it on.
        self._sleeping = False
        # Whether the owner is between giving the lock up and taking it back:
        # set and cleared by the sleeper only (see free()).
        self._asleep = False

    def sleep(self, lock: Mutex, timeout: float = -1,
              deliver: list[Parker] | None = None) -> bool:
        """Release *lock*, sleep until woken or *timeout* passes, re-take *lock*.

        Returns whether a wake arrived. The caller re-checks what it waits
        for: a wake says something changed, not what. *deliver*: parkers
        whose wakes were claimed (:meth:`claim`) under *lock*; they are
        delivered once *lock* is released, so the woken find it free, and
        the list is emptied.
        """
        self._sleeping = True
        self._asleep = True
        try:
            lock.release()
            if deliver:
                deliver_all(deliver)
            # (No try statement here: on 3.11 an exception at a nested
            # try's own line skips this one's handler.)
            if timeout < 0:  # a park: no bound (and no frame of _take's)
                self._permit.get()
                woken = True
            else:
                woken = _take(self._permit, timeout)
            lock.acquire()
            if not woken and not self._sleeping:
                # The wake came between the timeout and re-taking the lock: the
                # token was put (or is about to be), so take it to keep the
                # permit empty.
                self._permit.get()
                woken = True
        except BaseException:
            # Interrupted (a KeyboardInterrupt in the scheduler, say): hold the
            # lock again, as the caller's ``with`` expects, before going on.
            # A wake taken on meanwhile leaves a token (see the module).
            if not lock._is_owned():  # type: ignore[attr-defined]
                lock.acquire()
            raise
        finally:
            self._sleeping = self._asleep = False
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

    def free(self) -> None:
        """Wake the sleeper, even if the wake it was given was lost on the
        way (lock held).

        A waker interrupted between taking a wake on (:meth:`wake`,
        :meth:`claim`) and putting its token leaves the sleeper asleep with
        nobody left to wake it; the scenario's exit calls this on every
        thread's parker so that no thread stays parked.
        """
        if self._asleep and self._permit.empty():
            self._sleeping = False
            self._permit.put(None)

    def deliver(self) -> None:
        """Deliver a wake taken with :meth:`claim` (the lock may be free)."""
        self._permit.put(None)


def _take(permit: queue.SimpleQueue[None], timeout: float) -> bool:
    """Take the token from *permit*, waiting at most *timeout* seconds (no
    bound if negative); return whether there was one."""
    try:
        permit.get(True, None if timeout < 0 else timeout)
    except queue.Empty:
        return False
    return True


def deliver_all(claimed: list[Parker]) -> None:
    """Deliver the wakes taken with :meth:`Parker.claim`, and empty the list."""
    for parker in claimed:
        parker.deliver()
    claimed.clear()

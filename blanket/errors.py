"""The exceptions blanket raises of its own."""

from __future__ import annotations

import threading
import traceback
from collections.abc import Mapping


class ThreadOrderingError(ValueError):
    """A thread did something other than what the script said it would.

    The message names the thread, what it was expected to call and what it
    called (or that it terminated).
    """


class CompetingDriversError(ValueError):
    """A second driver tried to drive a thread that already has one."""


class StallError(TimeoutError):
    """A bound was hit: the scenario stopped making progress.

    Raised when the scheduler waited longer than the scenario's ``timeout``
    for something to happen, or when exiting a scenario could not join a
    managed thread in time. :attr:`report` names every thread, its current
    call and its state.
    """

    def __init__(self, message: str, report: str) -> None:
        super().__init__(f"{message}\n{report}")
        #: The report of every thread's current call and state.
        self.report = report


class DeadlockError(StallError):
    """A script cannot go on because its threads wait for each other.

    Raised by any wait of a script within the scenario's bound -- a
    ``finish``, ``skip(..., wait=True)``, ``park(..., wait=True)``,
    ``scenario.wait(...)`` without a timeout, a driver, ``relay``,
    ``assign``, ``allocate``, ``cycle``, ``unblock`` -- as soon as nothing
    can end it because threads are stuck in a wait-for cycle (each holds
    what the next one waits for, and none has a timeout): the message names
    the step (or the wait) and the cycle, :attr:`StallError.report` adds
    every thread's call and state. The cycle's threads (and those
    ``finish`` drives) are abandoned (see :class:`Abandoned`) and joined
    before it is raised, so the scenario exits at once; only a cycle whose
    threads all sleep in real acquires cannot be freed (nothing wakes a real
    lock but its release), and its threads stay for the exit to name. A wait
    given an explicit timeout is left to it, and so is a wait for a thread
    blanket did not start (it may end by itself).

    Also raised by a scenario's exit when the threads still running once
    its bound has passed sleep in real primitives in such a cycle (the
    script let them into it): nothing can wake them, and they stay alive.
    """


class SchedulerError(RuntimeError):
    """The scheduler thread made a call only a worker thread may make.

    Inside ``with scenario:`` the scheduler must not call a regulated
    primitive: the call would park waiting for the scheduler itself. Use the
    raw handle (``scenario.raw(primitive)``) instead.
    """


class UnsupportedInterpreter(RuntimeError):
    """A search was asked for on an interpreter blanket's searches are not
    tested on.

    Raised by :func:`~blanket.explore`, :func:`~blanket.check_linearizable`
    (and ``assertLinearizable``), ``assertReached`` and ``python -m blanket
    reach`` before they run anything, on anything but CPython 3.11, 3.12,
    3.13 and the free-threaded 3.13t (:mod:`blanket.interpreters`): their
    answers rest on the interpreter's bytecode and threading internals. The
    message names the interpreter running and the tested ones. A
    scenario's script does not refuse.
    """


def death_notice(thread: threading.Thread, error: BaseException) -> str:
    """That *thread* died of *error*, with its traceback, as reports say it."""
    trace = "".join(traceback.format_exception(error)).rstrip()
    return f"thread {thread.name!r} died of an exception:\n{trace}"


class WorkerError(RuntimeError):
    """Managed threads died of exceptions: raised when the scenario exits.

    The message names each such thread and carries its traceback;
    :attr:`errors` maps each thread to its exception, and the first
    exception is the error's ``__cause__``. A thread that was abandoned
    (see :class:`Abandoned`) does not count.
    """

    def __init__(self, scenario: str, errors: Mapping[threading.Thread, BaseException]
                 ) -> None:
        names = ", ".join(repr(thread.name) for thread in errors)
        notices = "\n\n".join(death_notice(t, e) for t, e in errors.items())
        super().__init__(f"scenario {scenario!r}: managed threads {names} died of an "
                         f"exception\n\n{notices}")
        #: Each dead thread's exception, in the order the threads were made.
        self.errors = dict(errors)


class Abandoned(BaseException):
    """Raised inside a worker's call when the scheduler abandons its thread
    (a deadlocked schedule being torn down): the thread unwinds, its later
    calls go straight to the real primitives, and its end is not an error.

    A ``BaseException``, so that ``except Exception`` in the code under test
    does not swallow it.
    """


class LinearizabilityError(ValueError):
    """:func:`blanket.check_linearizable` could not judge: what it was given
    failed, not the object under test.

    Raised, instead of a verdict, when a factory (``make`` or ``model``)
    raises (the message gives the call's number), when the specification
    raises an exception that says it is broken (a ``TypeError``, an
    ``AttributeError``, ... : see
    :data:`blanket.linearizability.model.BROKEN`), when a result cannot be
    compared with the specification's (its ``==`` raises), when the
    specification is not deterministic, or when one of its calls does not
    return within the check's ``timeout``. The message names the operation,
    and the exception is the ``__cause__``.
    """

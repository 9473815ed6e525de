"""A KeyboardInterrupt (or any exception a signal handler raises) in the
scheduler: nothing stays parked, the lock is never lost, the interrupt
reaches the caller as itself and at once; and entering is all or nothing.

Each interrupt is injected at a chosen point by a stand-in that raises
there (``python -m stress.interrupts`` injects them at random points).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import unittest
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any
from unittest import mock

import blanket
from blanket import entry
from blanket.core import ScenarioCore
from blanket.parking import Parker
from blanket.threads import ManagedThread

from .support import arrive, spawn, unchecked

ROOT = Path(__file__).resolve().parent.parent


class _InterruptedPermit:
    """Stands in for a parker's permit: the first ``put`` or ``get`` named
    raises KeyboardInterrupt instead (after doing nothing), the rest go to
    the real permit."""

    def __init__(self, real: Any, method: str) -> None:
        self._real = real
        self._method = method

    def put(self, item: None) -> None:
        if self._method == "put":
            self._method = ""
            raise KeyboardInterrupt
        self._real.put(item)

    def get(self, *args: Any) -> None:
        if self._method == "get":
            self._method = ""
            raise KeyboardInterrupt
        self._real.get(*args)

    def empty(self) -> bool:
        return bool(self._real.empty())


class _ExplodingDelivery:
    """A claimed wake whose delivery is interrupted."""

    def deliver(self) -> None:
        raise KeyboardInterrupt


class _InterruptedLock:
    """An RLock whose first blocking ``acquire`` is interrupted before it
    takes the lock, as a signal handler raising there would."""

    def __init__(self) -> None:
        self._real = threading.RLock()
        self.interrupt = False
        self.interrupt_release = False

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if self.interrupt:
            self.interrupt = False
            raise KeyboardInterrupt
        return self._real.acquire(blocking, timeout)

    def release(self) -> None:
        if self.interrupt_release:
            self.interrupt_release = False
            raise KeyboardInterrupt
        self._real.release()

    def _is_owned(self) -> bool:
        return bool(self._real._is_owned())  # type: ignore[attr-defined]


class InterruptedSleepTests(unittest.TestCase):
    """A sleep that is interrupted still returns holding the lock."""

    def test_interrupted_delivery_keeps_the_lock(self) -> None:
        # Before: the lock was given up and not taken back, so the caller's
        # with-statement failed with "release unlocked lock".
        parker, lock = Parker(), threading.RLock()
        with self.assertRaises(KeyboardInterrupt):
            with lock, unchecked():
                parker.sleep(lock, 0.01, [_ExplodingDelivery()])  # type: ignore[list-item]
                self.fail("not reached")  # pragma: no cover

    def test_interrupted_wait_keeps_the_lock_and_stops_sleeping(self) -> None:
        parker, lock = Parker(), threading.RLock()
        parker._permit = _InterruptedPermit(parker._permit, "get")  # type: ignore[assignment]
        with lock:
            with self.assertRaises(KeyboardInterrupt), unchecked():
                parker.sleep(lock, 10)
            self.assertTrue(lock._is_owned())  # type: ignore[attr-defined]
        self.assertFalse(parker._sleeping or parker._asleep)

    def test_interrupted_retake_takes_the_lock_before_going_on(self) -> None:
        parker, lock = Parker(), _InterruptedLock()
        lock.acquire()
        lock.interrupt = True
        with self.assertRaises(KeyboardInterrupt):
            parker.sleep(lock, 0.001)
        self.assertTrue(lock._is_owned())
        lock.release()


    def test_interrupted_before_giving_the_lock_up_keeps_it(self) -> None:
        parker, lock = Parker(), _InterruptedLock()
        lock.acquire()
        lock.interrupt_release = True
        with self.assertRaises(KeyboardInterrupt):
            parker.sleep(lock, 0.001)
        self.assertTrue(lock._is_owned())
        lock.release()
        self.assertFalse(lock._is_owned())


class FreeTests(unittest.TestCase):
    """Parker.free wakes a sleeper whose wake was lost on the way."""

    def test_free_wakes_a_sleeper_whose_wake_was_claimed_and_lost(self) -> None:
        parker, lock = Parker(), threading.RLock()
        woken: list[bool] = []

        def sleeper() -> None:
            with lock:
                woken.append(parker.sleep(lock))

        thread = threading.Thread(target=sleeper)
        thread.start()
        while True:  # bounded: the sleeper is asleep once it gave the lock up
            with lock:
                if parker._asleep:
                    self.assertTrue(parker.claim())  # taken on, never delivered
                    parker.free()
                    break
        thread.join(10)
        self.assertEqual(woken, [True])

    def test_free_leaves_a_parker_that_is_not_asleep_alone(self) -> None:
        parker = Parker()
        parker.free()
        self.assertTrue(parker._permit.empty())


class InterruptedSchedulerTests(unittest.TestCase):
    """The scenario's exit frees every thread after an interrupt."""

    def setUp(self) -> None:
        self.scenario = blanket.Scenario(timeout=5)
        self.lock = self.scenario.Lock()

        def worker() -> None:
            with self.lock:
                pass

        self.A = spawn(self.scenario, "A", worker)

    def assertExitedPromptly(self, started: float) -> None:  # noqa: N802 - unittest style
        self.assertFalse(self.A.is_alive())
        self.assertLess(time.monotonic() - started, 1.0)

    def test_wake_lost_between_taking_it_on_and_giving_it(self) -> None:
        # Before: A slept on for ever; the exit waited out the scenario's
        # timeout and left it parked.
        started = time.monotonic()
        with self.assertRaises(KeyboardInterrupt):
            with self.scenario:
                tx = arrive(self.scenario, self.A)
                parker = tx._parker
                assert parker is not None
                parker._permit = _InterruptedPermit(parker._permit, "put")  # type: ignore[assignment]
                tx.unblock()
        self.assertExitedPromptly(started)

    def test_held_back_wake_lost(self) -> None:
        # The wake of a skipped call is held back until the scheduler
        # sleeps; an interrupt before it does loses it.
        core = self.scenario._core
        started = time.monotonic()
        with self.assertRaises(KeyboardInterrupt):
            with self.scenario:
                tx = arrive(self.scenario, self.A)
                with core.lock:
                    core.defer_release(tx)
                    core.deferred.clear()
                raise KeyboardInterrupt
        self.assertExitedPromptly(started)

    def test_interrupt_that_kept_the_lock(self) -> None:
        # An interrupt that skips a with-statement's exit leaves the
        # scheduler holding the lock; the exit gives it back.
        started = time.monotonic()
        with self.assertRaises(KeyboardInterrupt):
            with self.scenario:
                arrive(self.scenario, self.A)
                self.scenario._core.lock.acquire()
                raise KeyboardInterrupt
        self.assertExitedPromptly(started)

    def test_interrupted_exit_is_finished(self) -> None:
        # A second interrupt while exiting: the threads are let go and
        # joined all the same, and the interrupt goes on.
        frees = 0
        real_free = Parker.free

        def interrupted_free(parker: Parker) -> None:
            nonlocal frees
            frees += 1
            if frees == 1:
                raise KeyboardInterrupt
            real_free(parker)

        started = time.monotonic()
        try:
            with self.assertRaises(KeyboardInterrupt):
                with self.scenario:
                    arrive(self.scenario, self.A)
                    Parker.free = interrupted_free  # type: ignore[method-assign]
        finally:
            Parker.free = real_free  # type: ignore[method-assign]
        self.assertExitedPromptly(started)
        self.assertEqual(frees, 2)


def _stack(frame: FrameType | None) -> Iterator[FrameType]:
    """*frame* and the frames that called it."""
    while frame is not None:
        yield frame
        frame = frame.f_back


class CtrlCInTheExitTests(unittest.TestCase):
    """A real Ctrl-C (SIGINT through its handler) while the scenario exits."""

    def setUp(self) -> None:
        self.scenario = blanket.Scenario(timeout=5)
        self.lock = self.scenario.Lock()
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        self.addCleanup(signal.signal, signal.SIGINT, previous)

    def test_ctrl_c_while_the_exit_joins_a_thread_comes_after_the_join(self) -> None:
        # On 3.11 and 3.12 a KeyboardInterrupt inside Thread.join, while the
        # thread still runs, can mark it as ended (CPython gh-90882): the exit
        # then stopped waiting for it and left it running (2 in 828 signalled
        # runs of stress.interrupts). Before: the handler ran inside the join.
        joining, handled = threading.Event(), threading.Event()
        main = threading.main_thread()

        def worker() -> None:
            with self.lock:
                pass
            joining.wait(10)  # the exit is joining this thread: Ctrl-C
            assert main.ident is not None
            signal.pthread_kill(main.ident, signal.SIGINT)
            handled.wait(10)

        A = spawn(self.scenario, "A", worker)
        real_join = A.join

        def exit_joins(timeout: float | None = None) -> None:
            joining.set()
            real_join(timeout)

        A.join = exit_joins  # type: ignore[method-assign]
        inside_join: list[bool] = []

        def ctrl_c(signum: int, frame: FrameType | None) -> None:
            inside_join.append(any(f.f_code is exit_joins.__code__ for f in _stack(frame)))
            handled.set()
            raise KeyboardInterrupt

        signal.signal(signal.SIGINT, ctrl_c)
        started = time.monotonic()
        with self.assertRaises(KeyboardInterrupt):
            with self.scenario:
                arrive(self.scenario, A)
        self.assertLess(time.monotonic() - started, 1.0)
        self.assertEqual(inside_join, [False])
        self.assertNotIn(A, threading.enumerate())

    def test_ctrl_c_while_the_scheduler_asks_if_a_thread_is_alive_comes_after(self) -> None:
        # On 3.11 and 3.12 is_alive() goes through the same code as join():
        # interrupted there, it can mark a thread that still runs as ended
        # (a signalled run of stress.interrupts left 'B' alive that way).
        # Before: the scheduler asked a managed thread's is_alive() while it
        # waited for it to end, with Ctrl-C free to land inside.
        A = spawn(self.scenario, "A", self.lock.acquire)
        real_is_alive = A.is_alive

        def asked() -> bool:
            signal.raise_signal(signal.SIGINT)  # Ctrl-C right there
            return real_is_alive()

        A.is_alive = asked  # type: ignore[method-assign]
        inside: list[bool] = []

        def ctrl_c(signum: int, frame: FrameType | None) -> None:
            inside.append(any(f.f_code is asked.__code__ for f in _stack(frame)))
            raise KeyboardInterrupt

        signal.signal(signal.SIGINT, ctrl_c)
        with self.assertRaises(KeyboardInterrupt):
            with self.scenario:
                self.scenario.finish(A)
        self.assertTrue(inside)
        self.assertNotIn(True, inside)
        self.assertNotIn(A, threading.enumerate())

    def test_ctrl_c_at_the_exit_start_waits_for_the_exit(self) -> None:
        # A signal handler can run at a call's first instruction, before the
        # exit's try. Before: the exit was skipped, A stayed parked and the
        # scenario entered (1 in 3,000 signalled runs of stress.interrupts).
        A = spawn(self.scenario, "A", self.lock.acquire)
        exit_code = blanket.Scenario.__exit__.__code__

        def profile(frame: FrameType, event: str, arg: object) -> None:
            if event == "call" and frame.f_code is exit_code:
                sys.setprofile(None)
                # As a Ctrl-C landing there: SIGINT's handler, with its frame.
                handler = signal.getsignal(signal.SIGINT)
                assert callable(handler)
                handler(signal.SIGINT, frame)

        started = time.monotonic()
        try:
            with self.assertRaises(KeyboardInterrupt):
                with self.scenario:
                    arrive(self.scenario, A)
                    sys.setprofile(profile)
        finally:
            sys.setprofile(None)
        self.assertLess(time.monotonic() - started, 1.0)
        self.assertFalse(A.is_alive())
        self.assertIn("not entered", repr(self.scenario))
        self.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)


# Interrupts the exit of a scenario at its N-th point (its call's start, then
# each line a real interrupt can land on, as stress.interrupts counts them),
# for N = 1, 2, ... until a run goes past the last; prints what each run left
# behind. In a process of its own: its trace function would stop coverage's.
_EXIT_AT_EVERY_POINT = """
import json, signal, sys, threading
sys.path.insert(0, sys.argv[1])
import blanket
from stress.interrupts import _unreachable

EXIT = blanket.Scenario.__exit__.__code__


def run(target):
    scenario = blanket.Scenario(timeout=5)
    lock = scenario.Lock()
    A = scenario.thread(lock.acquire)  # parked at its acquire until the exit
    points, where = 0, None

    def local(frame, event, arg):
        nonlocal points, where
        if where is None and (event == "call" or event == "line"
                              and not _unreachable(frame)):
            points += 1
            if points == target:
                where = f"{event} at line {frame.f_lineno}"
                signal.getsignal(signal.SIGINT)(signal.SIGINT, frame)  # Ctrl-C
        return local

    def trace(frame, event, arg):
        return local(frame, event, arg) if frame.f_code is EXIT else None

    before = set(threading.enumerate())
    caught = None
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with scenario:
            scenario.wait(A)
            sys.settrace(trace)
    except BaseException as exc:
        caught = exc
    finally:
        sys.settrace(None)
    if where is None:
        return None
    left = [t.name for t in threading.enumerate() if t not in before]
    if type(caught) is not KeyboardInterrupt or left or "not entered" not in repr(scenario) \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return f"{where}: {caught!r}, left alive {left}, {scenario!r}"
    return ""


results = []
while (result := run(len(results) + 1)) is not None:
    results.append(result)
print(json.dumps(results))
"""


class ExitAtEveryPointTests(unittest.TestCase):
    """A Ctrl-C at any point of the exit's own code."""

    def test_an_interrupt_at_any_point_of_the_exit_leaves_nothing_behind(self) -> None:
        # Before: one at the line calling the guard's restore() left the
        # guard as SIGINT's handler (stress.interrupts, trace mode).
        done = subprocess.run([sys.executable, "-c", _EXIT_AT_EVERY_POINT, str(ROOT)],
                              capture_output=True, text=True, timeout=120, check=True)
        results = json.loads(done.stdout)
        self.assertGreater(len(results), 5)
        self.assertEqual([problem for problem in results if problem], [])


class EntryTests(unittest.TestCase):
    """Entering is all or nothing."""

    def setUp(self) -> None:
        self.scenario = blanket.Scenario(timeout=5)
        self.lock = self.scenario.Lock()
        self.ran: list[str] = []

        def worker(name: str) -> None:
            with self.lock:
                self.ran.append(name)

        self.A = spawn(self.scenario, "A", worker, "A")
        self.B = spawn(self.scenario, "B", worker, "B")

    def test_thread_that_cannot_start(self) -> None:
        # Before: the scenario stayed entered and A stayed parked.
        real_start = ManagedThread.start

        def start(thread: ManagedThread) -> None:
            if thread is self.B:
                raise RuntimeError("can't start new thread")
            real_start(thread)

        ManagedThread.start = start  # type: ignore[method-assign]
        try:
            with self.assertRaisesRegex(RuntimeError, "can't start"):
                with self.scenario:
                    self.fail("not reached")  # pragma: no cover
        finally:
            ManagedThread.start = real_start  # type: ignore[method-assign]
        self.assertIn("not entered", repr(self.scenario))
        self.assertFalse(self.A.is_alive())
        self.assertEqual(self.ran, [])  # A was stopped at its first call
        self.assertIsNone(self.B.ident)

    def test_interrupt_once_every_thread_started(self) -> None:
        real_enter = entry.enter

        def enter(core: ScenarioCore, before_start: Callable[[], None]) -> None:
            real_enter(core, before_start)
            raise KeyboardInterrupt

        with mock.patch.object(entry, "enter", enter), self.assertRaises(KeyboardInterrupt):
            with self.scenario:
                self.fail("not reached")  # pragma: no cover
        self.assertIn("not entered", repr(self.scenario))
        self.assertFalse(self.A.is_alive() or self.B.is_alive())
        self.assertEqual(self.ran, [])

    def test_thread_that_makes_no_call_is_joined_within_the_bound(self) -> None:
        scenario = blanket.Scenario(timeout=0.2)
        go = threading.Event()
        C = spawn(scenario, "C", go.wait, 10)
        real_start = ManagedThread.start

        def start(thread: ManagedThread) -> None:
            real_start(thread)
            raise KeyboardInterrupt

        ManagedThread.start = start  # type: ignore[method-assign]
        try:
            with self.assertRaises(KeyboardInterrupt):
                with scenario:
                    self.fail("not reached")  # pragma: no cover
        finally:
            ManagedThread.start = real_start  # type: ignore[method-assign]
            go.set()
        C.join(10)
        self.assertIn("not entered", repr(scenario))

    def test_start_interrupted_once_the_thread_is_launched(self) -> None:
        # Thread.start waits for the new thread to run; an interrupt there
        # (where most land) leaves a running thread that start() never
        # reported. Before: it could be taken as never started and stay parked.
        class InterruptedStart(threading.Event):
            def wait(self, timeout: float | None = None) -> bool:
                if timeout is None:  # start()'s own wait
                    raise KeyboardInterrupt
                return super().wait(timeout)

        self.A._started = InterruptedStart()  # type: ignore[attr-defined]
        with self.assertRaises(KeyboardInterrupt):
            with self.scenario:
                self.fail("not reached")  # pragma: no cover
        self.A.join(10)
        self.assertFalse(self.A.is_alive())
        self.assertEqual(self.ran, [])
        self.assertIsNone(self.B.ident)

    def test_ctrl_c_while_threads_start_waits_for_the_starts(self) -> None:
        # A SIGINT in Thread.start's wait for the new thread is held back
        # until that start is done, then undoes the entry (B never starts). Before: it was
        # raised inside start(), the case where an entry waited out the
        # timeout or Condition.wait failed with 'release unlocked lock'.
        class CtrlCInStart(threading.Event):
            def wait(self, timeout: float | None = None) -> bool:
                if timeout is None:  # start()'s own wait
                    signal.raise_signal(signal.SIGINT)
                return super().wait(timeout)

        self.A._started = CtrlCInStart()  # type: ignore[attr-defined]
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            with self.assertRaises(KeyboardInterrupt):
                with self.scenario:
                    self.fail("not reached")  # pragma: no cover
        finally:
            signal.signal(signal.SIGINT, previous)
        self.assertIsNotNone(self.A.ident)  # A's start went through
        self.assertIsNone(self.B.ident)
        self.A.join(10)
        self.assertFalse(self.A.is_alive() or self.B.is_alive())
        self.assertEqual(self.ran, [])
        self.assertIn("not entered", repr(self.scenario))

    def test_ctrl_c_while_a_thread_starts_inside_the_scenario(self) -> None:
        # scenario.thread starts the thread at once while entered: a SIGINT
        # then comes once the start is over. Before: inside start().
        real_start = ManagedThread.start

        def start(thread: ManagedThread) -> None:
            signal.raise_signal(signal.SIGINT)
            real_start(thread)

        with self.scenario:
            previous = signal.signal(signal.SIGINT, signal.default_int_handler)
            ManagedThread.start = start  # type: ignore[method-assign]
            try:
                with self.assertRaises(KeyboardInterrupt):
                    self.scenario.thread(self.ran.append, "D")
            finally:
                ManagedThread.start = real_start  # type: ignore[method-assign]
                signal.signal(signal.SIGINT, previous)
            D, = set(self.scenario.managed) - {self.A, self.B}
            self.assertIsNotNone(D.ident)
        self.assertFalse(D.is_alive())
        self.assertIn("D", self.ran)

    def test_interrupt_that_kept_the_lock_while_entering(self) -> None:
        # Before the scheduler is set nothing is undone, but a lock an
        # interrupt kept is given back.
        core = self.scenario._core
        real_reset = core.reset

        def reset() -> None:
            real_reset()
            core.lock.acquire()
            raise KeyboardInterrupt

        core.reset = reset  # type: ignore[method-assign]
        with self.assertRaises(KeyboardInterrupt):
            with self.scenario:
                self.fail("not reached")  # pragma: no cover
        core.reset = real_reset  # type: ignore[method-assign]
        self.assertFalse(core.lock._is_owned())  # type: ignore[attr-defined]
        with self.scenario:
            list(self.scenario.api(self.lock).relay(self.B, self.A))
        self.assertEqual(self.ran, ["B", "A"])

    def test_entering_twice_is_refused_and_keeps_the_first_entry(self) -> None:
        with self.scenario:
            with self.assertRaisesRegex(RuntimeError, "already entered"):
                self.scenario.__enter__()
            self.assertIn(" entered", repr(self.scenario))
            list(self.scenario.api(self.lock).relay(self.A, self.B))
        self.assertEqual(self.ran, ["A", "B"])

    def test_undo_of_an_entry_that_did_not_happen(self) -> None:
        # Another thread's entry (or none) is not undone.
        entry.undo_entry(self.scenario._core)
        self.assertIn("not entered", repr(self.scenario))


if __name__ == "__main__":  # pragma: no cover
    unittest.main()

"""Ctrl-C held back while managed threads start or are joined, and at the
start of a scenario's exit (blanket.holdback)."""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]
import signal
import threading
import unittest
from collections.abc import Iterator
from types import FrameType
from unittest import mock

from blanket.holdback import ExitGuard, interrupts_held_back


class HoldBackTests(unittest.TestCase):
    """A SIGINT inside the block is delivered once the block is over."""

    def setUp(self) -> None:
        self.calls: list[int] = []
        previous = signal.signal(signal.SIGINT, self.handler)
        self.addCleanup(signal.signal, signal.SIGINT, previous)

    def handler(self, signum: int, frame: FrameType | None) -> None:
        self.calls.append(signum)

    def test_a_signal_inside_is_delivered_after(self) -> None:
        with interrupts_held_back():
            signal.raise_signal(signal.SIGINT)
            self.assertEqual(self.calls, [])
            self.assertIsNot(signal.getsignal(signal.SIGINT), self.handler)
        self.assertEqual(self.calls, [signal.SIGINT])
        self.assertEqual(signal.getsignal(signal.SIGINT), self.handler)

    def test_no_signal_no_delivery(self) -> None:
        with interrupts_held_back():
            pass
        self.assertEqual(self.calls, [])
        self.assertEqual(signal.getsignal(signal.SIGINT), self.handler)

    def test_the_interrupt_comes_after_an_error_of_the_block(self) -> None:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        with self.assertRaises(KeyboardInterrupt) as caught:
            with interrupts_held_back():
                signal.raise_signal(signal.SIGINT)
                raise RuntimeError("can't start new thread")
        self.assertIsInstance(caught.exception.__context__, RuntimeError)
        self.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)

    def test_other_threads_change_nothing(self) -> None:
        seen: list[object] = []

        def look() -> None:
            with interrupts_held_back():
                seen.append(signal.getsignal(signal.SIGINT))
        thread = threading.Thread(target=look)
        thread.start()
        thread.join(10)
        self.assertEqual(seen, [self.handler])

    def test_a_handler_that_is_not_python_is_left_alone(self) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with interrupts_held_back():
            self.assertIs(signal.getsignal(signal.SIGINT), signal.SIG_IGN)
        self.assertIs(signal.getsignal(signal.SIGINT), signal.SIG_IGN)


def _exit(guard: ExitGuard) -> Iterator[None]:
    """Stands in for a scenario's exit, which enters its guard first (a
    generator: its frame can be had before it starts running)."""
    with guard:
        yield


class ExitGuardTests(unittest.TestCase):
    """The guard holds back only a SIGINT at the start of the exit."""

    def setUp(self) -> None:
        self.calls: list[int] = []
        previous = signal.signal(signal.SIGINT, self.handler)
        self.addCleanup(signal.signal, signal.SIGINT, previous)
        self.guard = ExitGuard(_exit)

    def handler(self, signum: int, frame: FrameType | None) -> None:
        self.calls.append(signum)

    def test_a_signal_elsewhere_goes_to_the_handler_it_replaced(self) -> None:
        self.guard.install()
        self.assertIsNot(signal.getsignal(signal.SIGINT), self.handler)
        signal.raise_signal(signal.SIGINT)
        self.assertEqual(self.calls, [signal.SIGINT])
        self.guard.restore()
        self.assertEqual(self.calls, [signal.SIGINT])
        self.assertEqual(signal.getsignal(signal.SIGINT), self.handler)

    def test_a_signal_at_the_start_of_the_exit_comes_once_it_is_restored(self) -> None:
        self.guard.install()
        # A frame not yet past its RESUME: a generator's, not started (and
        # kept: a generator freed closes its frame, which moves it on).
        generator = _exit(self.guard)
        handler = signal.getsignal(signal.SIGINT)
        assert callable(handler)
        handler(signal.SIGINT, generator.gi_frame)  # as a Ctrl-C landing there
        self.assertEqual(self.calls, [])
        next(generator)  # into the guard's with, and out
        self.assertEqual(self.calls, [])
        generator.close()
        self.assertEqual(self.calls, [signal.SIGINT])
        self.guard.restore()  # once only
        self.assertEqual(self.calls, [signal.SIGINT])

    def test_a_signal_while_the_guard_is_restored_comes_once_it_is(self) -> None:
        # Before: raised inside restore() before it put the handler back,
        # the KeyboardInterrupt left the guard in place for good.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        self.guard.install()
        real_getsignal = _signal.getsignal

        def ctrl_c_meanwhile(signum: int) -> object:
            signal.raise_signal(signal.SIGINT)
            return real_getsignal(signum)

        # (the guard asks signal's C half, whose handlers are not made enums)
        with mock.patch.object(_signal, "getsignal", ctrl_c_meanwhile), \
                self.assertRaises(KeyboardInterrupt):
            self.guard.restore()
        self.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)

    def test_a_handler_put_in_its_place_is_kept(self) -> None:
        self.guard.install()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        self.guard.restore()
        self.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)

    def test_no_guard_off_the_main_thread_or_without_a_python_handler(self) -> None:
        thread = threading.Thread(target=self.guard.install)
        thread.start()
        thread.join(10)
        self.assertEqual(signal.getsignal(signal.SIGINT), self.handler)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        self.guard.install()
        self.assertIs(signal.getsignal(signal.SIGINT), signal.SIG_IGN)
        self.guard.restore()
        self.assertIs(signal.getsignal(signal.SIGINT), signal.SIG_IGN)

"""Ctrl-C held back while managed threads start (blanket.holdback)."""

from __future__ import annotations

import signal
import threading
import unittest
from types import FrameType

from blanket.holdback import interrupts_held_back


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

"""park, skip and finish: a thread named again in skip, refusals outside the
scenario, no claim left after a stall; names and columns of threads."""

from __future__ import annotations

import threading
import unittest

import blanket
from blanket import CompetingDriversError, StallError

from .support import unchecked
from .test_driving_support import acquire_release, spawn
from .test_primitives_support import scenario


class SkipNamingAThreadAgain(unittest.TestCase):
    def test_a_thread_named_again_goes_on_from_its_last_call(self) -> None:
        sc = scenario()
        first, second = sc.Lock(), sc.Lock()
        A = spawn(sc, "A", acquire_release(first))
        B = spawn(sc, "B", acquire_release(second))
        with sc:
            last = sc.skip(A, first.acquire, B, second.acquire, A, first.release)
            self.assertEqual(list(last), [A, B])
            self.assertEqual(last[A].method, first.release)
            self.assertEqual(last[B].method, second.acquire)
            # A's acquire ran to its end before its release was let go.
            self.assertIn((A, first.acquire), [(tx.thread, tx.method) for tx in sc.log])
            sc.finish(A, B)
        self.assertEqual([(tx.thread, tx.method) for tx in sc.log if tx.thread is A],
                         [(A, first.acquire), (A, first.release)])


class OutsideTheScenario(unittest.TestCase):
    def test_park_skip_and_finish_refuse_at_once(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        for step in (lambda: sc.park(A, lock.acquire), lambda: sc.skip(A, lock.acquire),
                     lambda: sc.finish(A)):
            with self.subTest(step=step), self.assertRaisesRegex(
                    RuntimeError, "needs the scenario .* entered"):
                step()


class NoClaimAfterAStall(unittest.TestCase):
    def test_a_stalled_finish_leaves_its_threads_free_to_drive(self) -> None:
        sc = blanket.Scenario(timeout=0.2)
        gate = threading.Event()
        event = sc.Event()

        def target() -> None:
            gate.wait(10)  # outside blanket: finish cannot drive it
            event.set()

        A = sc.thread(target)
        with sc:
            with self.assertRaises(StallError):
                sc.finish(A)
            gate.set()
            try:
                sc.finish(A)  # not CompetingDriversError
            except CompetingDriversError as error:  # pragma: no cover - the bug
                self.fail(f"a stalled finish kept its claim: {error}")
        self.assertTrue(sc.raw(event).is_set())


class Names(unittest.TestCase):
    def test_a_primitive_can_be_named_directly(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        lock.name = "account"
        self.assertEqual(sc.api(lock).name, "account")
        self.assertEqual(repr(lock), "<blanket.Lock 'account' unlocked>")
        lock.name = None
        self.assertIsNone(lock.name)
        with unchecked(), self.assertRaisesRegex(TypeError, "a str or None, not 42"):
            lock.name = 42  # type: ignore[assignment]

    def test_the_timeline_shows_a_thread_named_twice_once(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            sc.finish(A)
        header = sc.format_log(A, A).splitlines()[0]
        self.assertEqual(header.split(), ["A"])


class TestCaseThreadNames(blanket.ScenarioTestCase):
    def test_a_thread_made_inside_the_scenario_starts_with_its_name(self) -> None:
        seen: list[str] = []
        with self.scenario:
            thread = self.thread(lambda: seen.append(threading.current_thread().name))
            thread.join(10)
        self.assertEqual(seen, ["A"])


if __name__ == "__main__":  # pragma: no cover
    unittest.main()

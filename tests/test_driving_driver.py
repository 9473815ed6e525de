"""scenario.Driver: one thread, one staged imperative at a time, driven by calling it.

Each test stages an imperative, drives the driver (``d()``) and checks where
the thread's call stopped, the driver's state, and what the driver knows
(``tx``, ``txs``, ``done``, ``imperative``).
"""

from __future__ import annotations

import threading
import unittest

import blanket
from blanket import CompetingDriversError, Driver, State, ThreadOrderingError

from .support import unchecked
from .test_driving_support import PAUSED_ACQUIRE, acquire_release, current, spawn
from .test_primitives_support import BOUND, COND_WAIT, SLEPT, TIMED, held, quietly, scenario, states


class Basics(unittest.TestCase):
    """What a driver is before it is driven: lazy, one imperative at a time."""

    def test_a_driver_needs_a_thread(self) -> None:
        with unchecked(), self.assertRaisesRegex(TypeError, "drives a thread"):
            scenario().Driver(42)  # type: ignore[arg-type]

    def test_the_state_sets(self) -> None:
        self.assertEqual(Driver.driving_states,
                         {"skipping", "parking", "nesting", "finishing"})
        self.assertEqual(Driver.active_states, {"idle", "active"})
        self.assertEqual(Driver.terminal_states,
                         {"parked", "finished", "raised", "terminated"})

    def test_nothing_happens_until_the_driver_is_driven(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            sc.wait(A)
            driver = sc.Driver(A)
            self.assertIs(driver.thread, A)
            self.assertIsNone(driver.state)
            self.assertIsNone(driver.imperative)
            self.assertEqual(driver.txs, ())
            self.assertFalse(driver.done)
            self.assertIs(driver.tx, sc.transaction(A))
            self.assertIs(driver.skip(), driver)
            self.assertEqual(driver.imperative, "skip")
            self.assertEqual(repr(driver), "<blanket Driver of 'A' None staging 'skip'>")
            self.assertIs(current(driver).state, State.BLOCKED)  # nothing let go yet
            driver()
            self.assertEqual(driver.state, "idle")
            self.assertEqual(driver.txs[0].method, lock.acquire)

    def test_staging_a_second_imperative_is_an_error(self) -> None:
        sc = scenario()
        driver = sc.Driver(threading.Thread(target=print, name="A"))
        driver.skip()
        for stage in (driver.skip, driver.finish, driver.block, driver.commit,
                      driver.wait, driver.stall, driver.pause, driver.nested):
            with self.subTest(stage.__name__), \
                    self.assertRaisesRegex(ValueError, "'A' already has 'skip' staged"):
                stage()
        self.assertEqual(driver.imperative, "skip")

    def test_repr_shows_the_thread_state_and_staged_imperative(self) -> None:
        sc = scenario()
        A = spawn(sc, "A", sc.Event().set)
        with sc:
            driver = sc.Driver(A)
            self.assertEqual(repr(driver), "<blanket Driver of 'A' None>")
            driver()
            self.assertEqual(repr(driver), "<blanket Driver of 'A' active>")
            driver.finish()
            self.assertEqual(repr(driver), "<blanket Driver of 'A' active staging 'finish'>")


class RunningToTheEnd(unittest.TestCase):
    """skip() and finish(): the current call runs to its end."""

    def test_skip_then_finish_walk_a_thread_to_its_end(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            driver = sc.Driver(A)
            self.assertIs(driver(), driver)
            self.assertEqual(driver.state, Driver.ACTIVE)
            acquire = current(driver)
            self.assertEqual(acquire.method, lock.acquire)
            self.assertIs(acquire.state, State.BLOCKED)
            driver()  # nothing staged: still active, the call seen once
            self.assertEqual((driver.state, driver.txs), ("active", (acquire,)))

            driver.skip()
            driver()
            self.assertEqual(driver.state, "idle")
            self.assertIsNone(driver.imperative)
            self.assertFalse(driver.done)
            self.assertEqual(states(acquire), TIMED)

            driver.finish()
            driver()
            self.assertEqual(driver.state, "finished")
            self.assertTrue(driver.done)
            self.assertEqual(len(driver.txs), 2)
            release = driver.txs[1]
            self.assertEqual(release.method, lock.release)
            self.assertIs(release.state, State.RETURNED)

            driver()
            self.assertEqual(driver.state, "terminated")
            self.assertIsNone(driver.tx)
            self.assertEqual(driver.txs, (acquire, release))

    def test_a_call_that_raises_ends_the_driver_raised(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        threads = {"finish": spawn(sc, "A", quietly(lock.release)),
                   "skip": spawn(sc, "B", quietly(lock.release))}
        with sc:
            for imperative, thread in threads.items():
                with self.subTest(imperative):
                    driver = sc.Driver(thread)
                    getattr(driver, imperative)()
                    driver()
                    self.assertEqual(driver.state, "raised")
                    self.assertTrue(driver.done)
                    (tx,) = driver.txs
                    self.assertIs(tx.state, State.RAISED)
                    self.assertIsInstance(tx.result, RuntimeError)

    def test_a_thread_that_ends_leaves_its_driver_terminated(self) -> None:
        sc = scenario()
        T = spawn(sc, "T", lambda: None)
        with sc:
            driver = sc.Driver(T)
            driver()
            self.assertEqual(driver.state, "terminated")
            self.assertTrue(driver.done)
            self.assertIsNone(driver.tx)
            driver.finish()
            driver()  # nothing left to finish: terminated at once
            self.assertEqual(driver.state, "terminated")
            self.assertIsNone(driver.imperative)
            self.assertEqual(driver.txs, ())

    def test_a_thread_blanket_did_not_start_is_driven_too(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        plain = threading.Thread(target=acquire_release(lock), name="plain", daemon=True)
        with sc:
            plain.start()
            driver = sc.Driver(plain)
            got = []
            for _ in range(2):
                driver.finish()
                driver()
                got.append(driver.state)
            driver()
            got.append(driver.state)
        plain.join(BOUND)
        self.assertEqual(got, ["finished", "finished", "terminated"])
        self.assertEqual([tx.method for tx in driver.txs], [lock.acquire, lock.release])

    def test_finish_releases_a_pause_the_scheduler_asked_for(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            tx = sc.park(A, lock.acquire)[A]
            tx.pause = True
            tx.unblock()
            sc.wait(blanket.Paused(tx))
            driver = sc.Driver(A).finish()
            driver()
            self.assertEqual(driver.state, "finished")
            self.assertFalse(tx.pause)
            self.assertEqual(states(tx), PAUSED_ACQUIRE)

    def test_skip_releases_nested_blocks_and_stalls(self) -> None:
        self.assert_wait_for_driven("skip", "idle")

    def test_finish_releases_nested_blocks_and_stalls(self) -> None:
        self.assert_wait_for_driven("finish", "finished")

    def assert_wait_for_driven(self, imperative: str, end: str) -> None:
        """Drive a ``wait_for(predicate, 0)`` with *imperative*: its one
        nested ``wait(0)`` parks BLOCKED, times out at once and parks STALLED
        before it re-acquires; the driver lets both parks go."""
        sc = scenario()
        cond = sc.Condition()
        results: list[object] = []

        def waiter() -> None:
            with cond:
                results.append(cond.wait_for(lambda: False, 0))

        W = spawn(sc, "W", waiter)
        with sc:
            sc.skip(W, cond.acquire, wait=True)
            driver = sc.Driver(W)
            getattr(driver, imperative)()
            driver()
            self.assertEqual(driver.state, end)
            wait_for, nested = driver.txs[:2]
            self.assertEqual(wait_for.method, cond.wait_for)
            self.assertIs(wait_for.state, State.RETURNED)
            self.assertIs(wait_for.result, False)
            self.assertEqual(nested.method, cond.wait)
            self.assertIs(nested.parent, wait_for)
            self.assertEqual(states(nested), COND_WAIT)
        self.assertEqual(results, [False])


class Parking(unittest.TestCase):
    """block(), commit(), wait(), stall(), pause(): stop the call at a state."""

    def test_block_stops_at_the_scheduler_block_of_the_next_call(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            driver = sc.Driver(A).block()
            driver()
            self.assertEqual(driver.state, "parked")
            self.assertTrue(driver.done)
            acquire = current(driver)
            self.assertEqual(acquire.method, lock.acquire)
            self.assertIs(acquire.state, State.BLOCKED)
            driver.block()
            driver()  # already there: nothing is let go
            self.assertEqual(driver.state, "parked")
            self.assertIs(acquire.state, State.BLOCKED)
            driver.skip()
            driver()
            driver.block()
            driver()
            self.assertEqual(driver.state, "parked")
            self.assertEqual(current(driver).method, lock.release)
            self.assertIs(current(driver).state, State.BLOCKED)

    def test_commit_holds_a_timeout_bearing_call_before_its_attempt(self) -> None:
        sc = scenario()
        lock = sc.Lock()

        def target() -> None:
            lock.acquire(timeout=BOUND)
            lock.release()

        A = spawn(sc, "A", target)
        with sc:
            driver = sc.Driver(A).commit()
            driver()
            self.assertEqual(driver.state, "parked")
            acquire = current(driver)
            self.assertIs(acquire.state, State.COMMIT)
            self.assertEqual(acquire.kwargs["timeout"], BOUND)
            self.assertFalse(sc.raw(lock).locked())
            driver.skip()
            driver()
            self.assertEqual(driver.state, "idle")
            self.assertEqual(states(acquire), TIMED)

    def test_commit_on_a_call_without_timeout_is_a_value_error(self) -> None:
        sc = scenario()
        A = spawn(sc, "A", sc.Event().set)
        with sc:
            driver = sc.Driver(A).commit()
            with self.assertRaisesRegex(ValueError, "Event.set takes no timeout"):
                driver()
            self.assertEqual(driver.state, "active")
            self.assertIsNone(driver.imperative)
            self.assertIs(current(driver).state, State.BLOCKED)

    def test_wait_stops_while_the_call_sleeps_in_the_real_primitive(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc, held(sc.raw(lock)) as free:
            driver = sc.Driver(A).wait()
            driver()
            self.assertEqual(driver.state, "parked")
            acquire = current(driver)
            self.assertIs(acquire.state, State.WAITING)
            for late, goal in (("block", "BLOCKED"), ("commit", "COMMIT")):
                with self.subTest(late):
                    getattr(driver, late)()
                    with self.assertRaisesRegex(
                            ThreadOrderingError,
                            f"'A': Lock.acquire went to WAITING without stopping at {goal}$"):
                        driver()
                    self.assertEqual(driver.state, "active")
                    self.assertIsNone(driver.imperative)
            free()
            driver.finish()
            driver()
            self.assertEqual(driver.state, "finished")
            self.assertEqual(states(acquire), SLEPT)

    def test_wait_on_a_call_that_never_sleeps_is_an_ordering_error(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            driver = sc.Driver(A).wait()
            with self.assertRaisesRegex(ThreadOrderingError,
                                        "'A': Lock.acquire went to .* without stopping "
                                        "at WAITING"):
                driver()
            self.assertEqual(driver.state, "active")
            acquire = driver.txs[0]
            sc.wait(acquire)
            self.assertEqual(states(acquire), TIMED)

    def test_stall_stops_a_notified_condition_wait(self) -> None:
        sc = scenario()
        cond = sc.Condition()

        def waiter() -> None:
            with cond:
                cond.wait()

        W = spawn(sc, "W", waiter)
        with sc:
            sc.skip(W, cond.acquire, wait=True)
            driver = sc.Driver(W).wait()
            driver()
            wait = current(driver)
            self.assertIs(wait.state, State.WAITING)
            raw = sc.raw(cond)
            with raw:
                raw.notify()
            driver.stall()
            driver()
            self.assertEqual(driver.state, "parked")
            self.assertIs(wait.state, State.STALLED)
            driver.stall()
            driver()  # already there
            self.assertEqual((driver.state, wait.state), ("parked", State.STALLED))
            driver.wait()
            driver()  # WAITING is behind it: met
            self.assertEqual((driver.state, wait.state), ("parked", State.STALLED))
            driver.block()
            with self.assertRaisesRegex(ThreadOrderingError, "without stopping at BLOCKED"):
                driver()
            driver.skip()
            driver()  # the stall is let go
            self.assertEqual(driver.state, "idle")
            self.assertEqual(states(wait), COND_WAIT)
            driver.finish()
            driver()
            self.assertEqual(driver.state, "finished")
            self.assertEqual(driver.txs[-1].method, cond.release)

    def test_stall_on_a_call_that_never_stalls_is_an_ordering_error(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            sc.skip(A, lock.acquire, wait=True)
            driver = sc.Driver(A).stall()
            with self.assertRaisesRegex(ThreadOrderingError,
                                        "'A': Lock.release went to .* without stopping "
                                        "at STALLED"):
                driver()
            self.assertEqual(driver.state, "active")

    def test_pause_stops_after_the_real_call_and_skip_lets_it_go(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            driver = sc.Driver(A).pause()
            driver()
            self.assertEqual(driver.state, "parked")
            acquire = current(driver)
            self.assertIs(acquire.state, State.PAUSED)
            self.assertTrue(acquire.pause)
            self.assertTrue(sc.raw(lock).locked())
            driver.pause()
            driver()  # already there
            self.assertEqual((driver.state, acquire.state), ("parked", State.PAUSED))
            driver.skip()
            driver()
            self.assertEqual(driver.state, "idle")
            self.assertFalse(acquire.pause)
            self.assertEqual(states(acquire), PAUSED_ACQUIRE)


class Nesting(unittest.TestCase):
    """nested(): go until a call nests in the current one, or an action runs."""

    def test_nested_stops_when_wait_for_makes_its_nested_wait(self) -> None:
        sc = scenario()
        cond = sc.Condition()
        results: list[object] = []

        def waiter() -> None:
            with cond:
                results.append(cond.wait_for(lambda: False, 0))

        W = spawn(sc, "W", waiter)
        with sc:
            sc.skip(W, cond.acquire, wait=True)
            driver = sc.Driver(W).nested()
            driver()
            self.assertEqual(driver.state, "idle")
            wait_for, nested = driver.txs
            self.assertEqual(wait_for.method, cond.wait_for)
            self.assertIs(current(driver), nested)
            self.assertEqual(nested.method, cond.wait)
            self.assertIs(nested.parent, wait_for)
            self.assertIs(nested.state, State.BLOCKED)
            self.assertEqual(sc.wait(blanket.Nested(wait_for)), {blanket.Nested(wait_for)})
            driver.close()  # an idle driver still owns W; hand it over
            sc.finish(W)
        self.assertEqual(results, [False])

    def test_nested_stops_when_a_barrier_runs_its_action(self) -> None:
        sc = scenario()
        event = sc.Event()
        barrier = sc.Barrier(1, action=event.set)
        results: list[int] = []
        A = spawn(sc, "A", lambda: results.append(barrier.wait()))
        with sc:
            driver = sc.Driver(A).nested()
            driver()
            self.assertEqual(driver.state, "idle")
            wait = driver.txs[0]
            self.assertEqual(wait.method, barrier.wait)
            self.assertEqual(sc.wait(blanket.Action(wait)), {blanket.Action(wait)})
            wait.pause = True  # else it ends on its own once the action is done
            driver.skip()
            driver()  # the action's own call
            self.assertEqual(driver.state, "idle")
            action_set = driver.txs[1]
            self.assertEqual(action_set.method, event.set)
            self.assertIsNone(action_set.parent)
            self.assertIs(action_set.state, State.RETURNED)
            driver.finish()
            driver()  # the barrier wait, back on A's chain, let go from its pause
            self.assertEqual(driver.state, "finished")
            self.assertIs(wait.state, State.RETURNED)
            self.assertIn(State.PAUSED, states(wait))
            self.assertEqual(driver.txs, (wait, action_set))
        self.assertEqual(results, [0])

    def test_nested_on_a_call_that_nests_nothing_is_an_ordering_error(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            driver = sc.Driver(A).nested()
            with self.assertRaisesRegex(ThreadOrderingError,
                                        "'A': Lock.acquire RETURNED without a nested call"):
                driver()
            self.assertEqual(driver.state, "active")
            self.assertIsNone(driver.imperative)


class Claims(unittest.TestCase):
    """One driver per thread while it drives; close() and scenario exit let go."""

    def test_a_second_driver_competes_until_the_first_is_closed_or_done(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            first, second = sc.Driver(A), sc.Driver(A)
            first()
            self.assertEqual(first.state, "active")
            with self.assertRaisesRegex(CompetingDriversError,
                                        "thread 'A' is already driven by <blanket Driver"):
                second()
            self.assertIsNone(second.state)
            first.close()
            second()
            self.assertEqual(second.state, "active")
            second.block()
            second()  # parked: a terminal driver owns nothing
            self.assertEqual(second.state, "parked")
            first.finish()
            first()
            self.assertEqual(first.state, "finished")
            self.assertEqual(first.txs[0].method, lock.acquire)

    def test_close_drops_the_staged_imperative_and_the_claim(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            bystander = sc.Driver(A).skip()
            bystander.close()  # never drove: nothing to give up
            self.assertIsNone(bystander.imperative)
            first = sc.Driver(A)
            first()
            first.skip()
            first.close()
            self.assertIsNone(first.imperative)
            self.assertIs(current(first).state, State.BLOCKED)  # nothing was let go
            other = sc.Driver(A).finish()
            other()
            self.assertEqual(other.state, "finished")

    def test_exit_closes_the_drivers(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            driver = sc.Driver(A)
            driver()
            driver.skip()
            self.assertEqual(dict(sc._core.drivers), {A: driver})
        self.assertEqual(sc._core.drivers, {})
        self.assertEqual((driver.state, driver.imperative), ("active", None))
        self.assertFalse(A.is_alive())
        # Let go at exit, the acquire finished natively; the release was not regulated.
        self.assertEqual([tx.method for tx in sc.log], [lock.acquire])


if __name__ == "__main__":  # pragma: no cover
    unittest.main()

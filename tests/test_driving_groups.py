"""scenario.Chain and scenario.Dispatch: drivers one after another, and side by side."""

from __future__ import annotations

import threading
import unittest
from collections import defaultdict

import blanket
from blanket import CompetingDriversError, Driver, State

from .support import unchecked
from .test_driving_support import acquire_release, spawn
from .test_primitives_support import BOUND, COND_WAIT, scenario, states


def unstarted(name: str) -> threading.Thread:
    """A thread that is never started: enough for a driver that is never driven."""
    return threading.Thread(target=print, name=name)


def by_thread(seen: list[tuple[str, str | None]]) -> dict[str, list[str | None]]:
    """``(thread name, driver state)`` pairs grouped by thread, in order."""
    grouped: dict[str, list[str | None]] = defaultdict(list)
    for name, state in seen:
        grouped[name].append(state)
    return dict(grouped)


class ChainContainer(unittest.TestCase):
    """A chain's pending drivers: append, remove, promote, close."""

    def test_pending_membership_length_and_truth(self) -> None:
        sc = scenario()
        first, second = sc.Driver(unstarted("A")), sc.Driver(unstarted("B"))
        chain = sc.Chain(first)
        chain.append(second)
        self.assertEqual(chain.pending, (first, second))
        self.assertIn(second, chain)
        self.assertNotIn(sc.Driver(unstarted("C")), chain)
        self.assertEqual(len(chain), 2)
        self.assertTrue(chain)
        self.assertEqual(repr(chain), "<blanket Chain of 2 drivers>")
        chain.remove(second)
        self.assertEqual(chain.pending, (first,))
        with self.assertRaises(ValueError):
            chain.remove(second)
        self.assertIs(chain.promote(), first)
        self.assertEqual((chain.pending, len(chain), bool(chain)), ((), 0, False))
        self.assertIsNone(chain.promote())

    def test_only_drivers_go_in_a_chain(self) -> None:
        sc = scenario()
        with unchecked(), self.assertRaisesRegex(TypeError, "a Chain holds drivers, not 42"):
            sc.Chain(42)  # type: ignore[arg-type]
        chain = sc.Chain()
        with unchecked(), self.assertRaisesRegex(TypeError, "not 'A'"):
            chain.append("A")  # type: ignore[arg-type]
        self.assertEqual(chain.pending, ())

    def test_close_closes_every_driver_and_empties_the_chain(self) -> None:
        sc = scenario()
        first, second = sc.Driver(unstarted("A")).skip(), sc.Driver(unstarted("B")).finish()
        chain = sc.Chain(first, second)
        chain.close()
        self.assertEqual(chain.pending, ())
        self.assertEqual((first.imperative, second.imperative), (None, None))


class ChainIteration(unittest.TestCase):
    """Iterating a chain drives its head until the head has nothing staged."""

    def test_the_head_runs_until_nothing_is_staged_then_the_next(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        B = spawn(sc, "B", acquire_release(lock))
        seen = []
        with sc:
            first, second = sc.Driver(A).skip(), sc.Driver(B).finish()
            chain = sc.Chain(first, second)
            for driver in chain:
                seen.append((driver.thread.name, driver.state))
                if driver is first and driver.state == "idle":
                    driver.finish()  # staged again: the head keeps its place
            self.assertFalse(chain)
            # The chain closed each driver as it gave way: A is free again.
            again = sc.Driver(A)
            again()
            self.assertEqual(again.state, "terminated")
        self.assertEqual(seen, [("A", "idle"), ("A", "finished"), ("B", "finished")])
        acquirers = [tx.thread for tx in sc.log if tx.method == lock.acquire]
        self.assertEqual(acquirers, [A, B])

    def test_a_head_taken_out_while_yielded_is_left_to_its_taker(self) -> None:
        sc = scenario()
        event = sc.Event()
        A, B = spawn(sc, "A", event.set), spawn(sc, "B", event.set)
        with sc:
            first, second = sc.Driver(A), sc.Driver(B)
            chain = sc.Chain(first, second)
            steps = iter(chain)
            self.assertIs(next(steps), first)
            self.assertEqual(first.state, "active")
            chain.remove(first)
            self.assertIs(next(steps), second)
            self.assertEqual(second.state, "active")
            with self.assertRaises(StopIteration):
                next(steps)
            # The chain closed second as it gave way, but not first: the
            # test took first out, so first still owns A.
            sc.Driver(B)()
            with self.assertRaises(CompetingDriversError):
                sc.Driver(A)()
            first.close()
            follower = sc.Driver(A)
            follower()
            self.assertEqual(follower.state, "active")


class DispatchContainer(unittest.TestCase):
    """A dispatch's items: add (once), update, remove, discard, close."""

    def test_add_update_remove_discard_membership_and_length(self) -> None:
        sc = scenario()
        first, second = sc.Driver(unstarted("A")), sc.Driver(unstarted("B"))
        chain = sc.Chain(sc.Driver(unstarted("C")))
        dispatch = sc.Dispatch()
        dispatch.add(first)
        dispatch.add(first)
        self.assertEqual(len(dispatch), 1)
        dispatch.update([second, chain, second])
        self.assertEqual(len(dispatch), 3)
        self.assertIn(second, dispatch)
        self.assertIn(chain, dispatch)
        self.assertEqual(repr(dispatch), "<blanket Dispatch of 3>")
        dispatch.remove(second)
        self.assertNotIn(second, dispatch)
        with self.assertRaises(KeyError):
            dispatch.remove(second)
        dispatch.discard(second)
        dispatch.discard(chain)
        self.assertNotIn(chain, dispatch)
        self.assertEqual(len(dispatch), 1)

    def test_only_drivers_and_chains_go_in_a_dispatch(self) -> None:
        dispatch = scenario().Dispatch()
        with unchecked(), self.assertRaisesRegex(TypeError, "drivers and chains, not 'A'"):
            dispatch.add("A")  # type: ignore[arg-type]
        self.assertEqual(len(dispatch), 0)

    def test_close_closes_drivers_and_chains_and_empties_it(self) -> None:
        sc = scenario()
        alone, chained = sc.Driver(unstarted("A")).skip(), sc.Driver(unstarted("B")).pause()
        chain = sc.Chain(chained)
        dispatch = sc.Dispatch()
        dispatch.update([alone, chain])
        dispatch.close()
        self.assertEqual(len(dispatch), 0)
        self.assertEqual((alone.imperative, chained.imperative), (None, None))
        self.assertEqual(chain.pending, ())


class DispatchIteration(unittest.TestCase):
    """Iterating a dispatch drives all of its drivers side by side."""

    def test_an_emptied_chain_is_dropped(self) -> None:
        sc = scenario()
        dispatch = sc.Dispatch()
        dispatch.add(sc.Chain())
        with sc:
            self.assertEqual(list(dispatch), [])
        self.assertEqual(len(dispatch), 0)

    def test_a_condition_waiter_and_its_notifier_finish_side_by_side(self) -> None:
        sc = scenario()
        cond = sc.Condition()
        ready: list[bool] = []

        def waiter() -> None:
            with cond:
                cond.wait_for(lambda: bool(ready))

        def notifier() -> None:
            with cond:
                ready.append(True)
                cond.notify()

        W, N = spawn(sc, "W", waiter), spawn(sc, "N", notifier)
        seen = []
        checked_mid_drive: list[bool] = []
        with sc:
            sc.skip(W, cond.acquire, wait=True)
            wait_for = sc.park(W, cond.wait_for)[W]
            sc.park(N, cond.acquire)
            waiting, notifying = sc.Driver(W).finish(), sc.Driver(N).finish()
            dispatch = sc.Dispatch()
            dispatch.update([waiting, notifying])
            for driver in dispatch:
                seen.append((driver.thread.name, driver.state))
                if driver is notifying and not checked_mid_drive:
                    # Mid-drive, the waiter's driver shows the call it drives,
                    # not the nested wait its thread is in.
                    self.assertIs(waiting.tx, wait_for)
                    self.assertIsNot(sc.transaction(W), wait_for)
                    checked_mid_drive.append(True)
                if driver.state == Driver.FINISHED:
                    driver.finish()
            self.assertEqual(len(dispatch), 0)
        self.assertEqual(checked_mid_drive, [True])
        self.assertEqual(by_thread(seen), {"W": ["finished", "finished", "terminated"],
                                           "N": ["finished"] * 3 + ["terminated"]})
        self.assertEqual([tx.method for tx in notifying.txs],
                         [cond.acquire, cond.notify, cond.release])
        self.assertIs(wait_for.result, True)
        (nested,) = [tx for tx in waiting.txs if tx.method == cond.wait]
        self.assertEqual(states(nested), COND_WAIT)

    def test_a_chain_runs_beside_a_driver_and_is_dropped_once_empty(self) -> None:
        sc = scenario()
        lock, event = sc.Lock(), sc.Event()
        A = spawn(sc, "A", acquire_release(lock))
        B = spawn(sc, "B", event.set)
        seen = []
        with sc:
            chain = sc.Chain(sc.Driver(A).skip(), sc.Driver(A).finish())
            alone = sc.Driver(B).finish()
            dispatch = sc.Dispatch()
            dispatch.update([chain, alone])
            for driver in dispatch:
                seen.append((driver.thread.name, driver.state))
            self.assertEqual((len(dispatch), len(chain)), (0, 0))
        self.assertEqual(by_thread(seen), {"A": ["idle", "finished"], "B": ["finished"]})
        self.assertEqual(sorted(tx.spec.name for tx in sc.log),
                         ["acquire", "release", "set"])

    def test_drivers_wait_for_calls_another_driver_lets_happen(self) -> None:
        # A's barrier action lets B and C make their calls; until then their
        # drivers wait idle. The action waits for the scheduler, which lets it
        # go once B or C has had the dispatch's attention.
        sc = scenario()
        event = sc.Event()
        in_action, go = threading.Event(), threading.Event()

        def action() -> None:
            in_action.set()
            go.wait(BOUND)

        def after_action() -> None:
            in_action.wait(BOUND)
            event.set()

        barrier = sc.Barrier(1, action=action)
        A = spawn(sc, "A", barrier.wait)
        B, C = spawn(sc, "B", after_action), spawn(sc, "C", after_action)
        seen = []
        with sc:
            skipping, staging, watching = (sc.Driver(A).skip(), sc.Driver(B).skip(),
                                           sc.Driver(C))
            dispatch = sc.Dispatch()
            dispatch.update([skipping, staging, watching])
            for driver in dispatch:
                seen.append((driver.thread.name, driver.state))
                if not go.is_set():
                    # A's wait is off its thread's chain while the action runs,
                    # yet its driver still shows it.
                    self.assertIsNone(sc.transaction(A))
                    wait = skipping.tx
                    assert wait is not None
                    self.assertEqual(wait.method, barrier.wait)
                    self.assertEqual(sc.wait(blanket.Action(wait), timeout=0),
                                     {blanket.Action(wait)})
                    go.set()
            self.assertEqual(len(dispatch), 0)
            self.assertEqual([d.state for d in (skipping, staging, watching)],
                             ["idle", "idle", "active"])
            self.assertIs(skipping.txs[0].state, State.RETURNED)
            self.assertEqual(len(skipping.txs), 1)  # the action made no call
            self.assertEqual([tx.method for tx in staging.txs], [event.set])
            self.assertIs(watching.txs[0].state, State.BLOCKED)  # nothing let it go
        self.assertEqual(by_thread(seen), {"A": ["idle"], "B": ["idle"], "C": ["active"]})


if __name__ == "__main__":  # pragma: no cover
    unittest.main()


class PauseHeldByACycle(unittest.TestCase):
    """A driver skipping a call that a cycle holds paused waits for the cycle."""

    def test_skip_waits_until_the_cycle_lets_go(self) -> None:
        sc = scenario()
        event, lock = sc.Event(), sc.Lock()
        A, S, B = sc.thread(event.wait), sc.thread(event.set), sc.thread(lock.acquire)
        with sc:
            sc.wait(B)
            cycle = sc.api(event).cycle(A, S)
            wait = sc.transaction(A)
            assert wait is not None and wait.state is State.PAUSED
            skipping, other = sc.Driver(A).skip(), sc.Driver(B)
            dispatch = sc.Dispatch()
            dispatch.update([skipping, other])
            turns = []
            for driver in dispatch:
                turns.append((driver.thread, driver.state))
                if driver is other:
                    # The skip could not let the wait go: the cycle holds it.
                    self.assertEqual(wait.state, State.PAUSED)
                    self.assertTrue(wait.pausing)
                    cycle.__exit__(RuntimeError, None, None)  # the cycle lets go
            self.assertEqual(turns, [(B, Driver.ACTIVE), (A, Driver.IDLE)])
            self.assertEqual(wait.state, State.RETURNED)
            sc.api(lock).unblock(lock.acquire, B)

"""scenario.park, scenario.skip and scenario.finish, and the article's examples
of the middle level."""

from __future__ import annotations

import functools
import threading
import unittest

import blanket
from blanket import CompetingDriversError, State, ThreadOrderingError, Transaction

from .support import unchecked
from .test_driving_support import Lockable, acquire_release, spawn
from .test_primitives_support import PLAIN, SLEPT, TIMED, quietly, scenario, states


def locked_append(sc: blanket.Scenario, lock: Lockable, names: str,
                  order: list[str]) -> dict[str, threading.Thread]:
    """One thread per name, each appending its name to *order* while it
    holds *lock* (two calls: acquire, release)."""
    def worker(name: str) -> None:
        lock.acquire()
        order.append(name)
        lock.release()
    return {name: spawn(sc, name, functools.partial(worker, name)) for name in names}


def calls(sc: blanket.Scenario, thread: threading.Thread) -> list[str]:
    """The names of *thread*'s logged calls, in the order they finished."""
    return [tx.spec.name for tx in sc.log if tx.thread is thread]


class ArticleExamples(unittest.TestCase):
    """The middle level's examples: three threads take a lock in the order B, A, C."""

    def test_a_driver_per_thread_in_order(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        order: list[str] = []
        threads = locked_append(sc, lock, "ABC", order)
        with sc:
            for name in "BAC":
                d = sc.Driver(threads[name])
                d()
                self.assertEqual(d.state, "active")
                d.skip()
                d()
                self.assertEqual(d.state, "idle")
                d.finish()
                d()
                self.assertEqual(d.state, "finished")
                d()
                self.assertEqual(d.state, "terminated")
                self.assertEqual([tx.spec.name for tx in d.txs], ["acquire", "release"])
        self.assertEqual(order, ["B", "A", "C"])

    def test_skip_per_thread_in_order(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        order: list[str] = []
        threads = locked_append(sc, lock, "ABC", order)
        with sc:
            for name in "BAC":
                last = sc.skip(threads[name], lock.acquire, lock.release)
                self.assertEqual(list(last), [threads[name]])
                self.assertEqual(last[threads[name]].method, lock.release)
        self.assertEqual(order, ["B", "A", "C"])


class Park(unittest.TestCase):
    """park(A, m1, B, m2): each thread parked at the scheduler block of its method."""

    def test_returns_the_blocked_calls(self) -> None:
        sc = scenario()
        lock, event = sc.Lock(), sc.Event()
        A, B = spawn(sc, "A", acquire_release(lock)), spawn(sc, "B", event.set)
        with sc:
            parked = sc.park(A, lock.acquire, B, event.set)
            self.assertEqual(list(parked), [A, B])
            self.assertEqual([tx.method for tx in parked.values()], [lock.acquire, event.set])
            for thread, tx in parked.items():
                self.assertIs(tx.state, State.BLOCKED)
                self.assertIs(sc.transaction(thread), tx)
            self.assertFalse(sc.raw(event).is_set())

    def test_wait_drives_the_calls_to_their_ends(self) -> None:
        sc = scenario()
        lock, event = sc.Lock(), sc.Event()
        A, B = spawn(sc, "A", acquire_release(lock)), spawn(sc, "B", event.set)
        with sc:
            done = sc.park(A, lock.acquire, B, event.set, wait=True)
            self.assertEqual(list(done), [A, B])
            self.assertEqual(states(done[A]), TIMED)
            self.assertEqual(states(done[B]), PLAIN)
            self.assertTrue(sc.raw(event).is_set())
            self.assertTrue(sc.raw(lock).locked())

    def test_bad_arguments(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))

        class NotAPrimitive:
            def acquire(self) -> None:
                """A method, but not of a blanket primitive."""

        cases: list[tuple[tuple[object, ...], type[Exception], str]] = [
            ((A, lock.acquire, A, lock.acquire), ValueError, "park: thread 'A' is named twice"),
            ((lock.acquire, A), TypeError, "park: the arguments start with a thread"),
            ((A,), TypeError, "park: thread 'A' has no method to call"),
            ((A, lock.acquire, lock.release), TypeError, "'A' needs exactly one method, not 2"),
            ((A, 42), TypeError, "park: 42 is not a method of a blanket primitive"),
            ((A, lock.__enter__), TypeError, "not a method of a blanket primitive"),
            ((A, NotAPrimitive().acquire), TypeError, "not a method of a blanket primitive"),
        ]
        with sc:
            for args, error, message in cases:
                with self.subTest(args=args), self.assertRaisesRegex(error, message):
                    sc.park(*args)
            # Nothing was let go: A's first call is still at its block.
            self.assertIs(sc.park(A, lock.acquire)[A].state, State.BLOCKED)

    def test_a_thread_parked_on_another_method_is_an_ordering_error(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            with self.assertRaisesRegex(
                    ThreadOrderingError,
                    r"thread 'A' was expected to be in Lock\.release on .* at BLOCKED, but it "
                    r"is in Lock\.acquire on .* at BLOCKED"):
                sc.park(A, lock.release)
            tx = sc.transaction(A)
            assert tx is not None
            self.assertIs(tx.state, State.BLOCKED)  # nothing was let go
            self.assertEqual(tx.method, lock.acquire)

    def test_a_terminated_thread_is_an_ordering_error(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        T = spawn(sc, "T", lambda: None)
        with sc:
            sc.wait(blanket.Terminated(T))
            with self.assertRaisesRegex(ThreadOrderingError,
                                        "thread 'T' terminated; it was expected to call "
                                        "Lock.acquire"):
                sc.park(T, lock.acquire)


class Skip(unittest.TestCase):
    """skip(A, m1, m2, B, m3): every call but each thread's last runs to its end."""

    def test_several_methods_and_threads(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A, B = spawn(sc, "A", acquire_release(lock)), spawn(sc, "B", acquire_release(lock))
        with sc:
            last = sc.skip(A, lock.acquire, lock.release, B, lock.acquire)
            self.assertEqual(list(last), [A, B])
            self.assertEqual([tx.method for tx in last.values()], [lock.release, lock.acquire])
            for tx in last.values():
                sc.wait(tx)  # let go (maybe not done yet): nobody else lets it go
            self.assertEqual(last[B].result, True)
            acquirers = [tx.thread for tx in sc.log if tx.method == lock.acquire]
            self.assertEqual(acquirers, [A, B])

    def test_wait_drives_every_last_call_to_its_end(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A, B = spawn(sc, "A", acquire_release(lock)), spawn(sc, "B", acquire_release(lock))
        with sc:
            last = sc.skip(A, lock.acquire, lock.release, B, lock.acquire, wait=True)
            self.assertEqual(states(last[A]), PLAIN)
            self.assertIn(states(last[B]), (TIMED, SLEPT))
            self.assertEqual(calls(sc, A), ["acquire", "release"])
            self.assertEqual(calls(sc, B), ["acquire"])

    def test_a_skipped_call_that_parks_again_is_driven_to_its_end(self) -> None:
        sc = scenario()
        cond, event = sc.Condition(), sc.Event()
        sc.raw(event).set()

        def worker() -> None:
            with cond:
                cond.wait_for(event.is_set)  # the predicate's call nests and parks

        A = spawn(sc, "A", worker)
        with sc:
            sc.skip(A, cond.acquire, cond.wait_for, cond.release, wait=True)
        self.assertEqual(calls(sc, A), ["acquire", "is_set", "wait_for", "release"])

    def test_a_call_of_the_barrier_action_is_not_the_next_skipped_call(self) -> None:
        sc = scenario()
        lock = sc.Lock()

        def action() -> None:
            lock.acquire()  # on A, outside A's wait (pushed off its chain)
            lock.release()

        barrier = sc.Barrier(1, action)

        def worker() -> None:
            barrier.wait()
            lock.acquire()
            lock.release()

        A = spawn(sc, "A", worker)
        with sc:
            last = sc.skip(A, barrier.wait, lock.acquire, wait=True)
            self.assertEqual(calls(sc, A), ["acquire", "release", "wait", "acquire"])
            self.assertIs(last[A], sc.log[-1])
            sc.finish(A)

    def test_a_thread_another_driver_drives_is_not_skipped(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            driver = sc.Driver(A)
            driver()  # active: it keeps the thread
            for args in [(A, lock.acquire, lock.release), (A, lock.acquire)]:
                with self.subTest(args=args), self.assertRaisesRegex(
                        CompetingDriversError, "thread 'A' is already driven by"):
                    sc.skip(*args)
            with self.assertRaises(CompetingDriversError):
                sc.park(A, lock.acquire, wait=True)
            # Refused before anything was let go.
            self.assertIs(sc.park(A, lock.acquire)[A].state, State.BLOCKED)
            driver.close()
            sc.finish(A)
        self.assertEqual(calls(sc, A), ["acquire", "release"])

    def test_a_thread_in_another_call_is_an_ordering_error(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            with self.assertRaisesRegex(ThreadOrderingError, "'A' was expected to be in "
                                        r"Lock\.release"):
                sc.skip(A, lock.release)
            with self.assertRaisesRegex(TypeError, "skip: thread 'A' has no method"):
                sc.skip(A)
            # The acquire runs; the next call is not the one named.
            with self.assertRaisesRegex(ThreadOrderingError, "'A' was expected to be in "
                                        r"Lock\.acquire .* but it is in Lock\.release"):
                sc.skip(A, lock.acquire, lock.acquire)
            sc.skip(A, lock.release, wait=True)
        self.assertEqual(calls(sc, A), ["acquire", "release"])

    def test_a_bad_method_anywhere_is_refused_before_any_call_goes(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            with self.assertRaisesRegex(TypeError, "skip: 42 is not a method of a blanket "
                                        "primitive"):
                sc.skip(A, lock.acquire, 42)
            tx = sc.park(A, lock.acquire)[A]  # (A may not have got there yet)
            self.assertIs(tx.state, State.BLOCKED)  # the acquire was not let go
            sc.skip(A, lock.acquire, lock.release, wait=True)
        self.assertEqual(calls(sc, A), ["acquire", "release"])


class Finish(unittest.TestCase):
    """finish(*threads): every call of each thread goes until the thread ends."""

    def assertTerminated(self, sc: blanket.Scenario, *threads: threading.Thread) -> None:
        """Each thread has terminated (checked without waiting)."""
        tokens = {blanket.Terminated(thread) for thread in threads}
        self.assertEqual(sc.wait(*tokens, timeout=0), tokens)

    def test_threads_with_several_calls_one_waiting_for_the_other(self) -> None:
        sc = scenario()
        lock, event = sc.Lock(), sc.Event()

        def setter() -> None:
            with lock:
                event.set()
            with lock:
                pass

        def waiter() -> None:
            event.wait()
            with lock:
                pass

        A, B = spawn(sc, "A", setter), spawn(sc, "B", waiter)
        with sc:
            sc.finish(B, A)
            self.assertTerminated(sc, A, B)
            self.assertEqual(calls(sc, A), ["acquire", "set", "release", "acquire", "release"])
            self.assertEqual(calls(sc, B), ["wait", "acquire", "release"])
            (wait,) = [tx for tx in sc.log if tx.method == event.wait]
            self.assertEqual(wait.result, True)

    def test_a_raising_call_and_a_thread_without_calls(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", quietly(lock.release))
        T = spawn(sc, "T", lambda: None)
        with sc:
            sc.finish(A, T)
            self.assertTerminated(sc, A, T)
            (release,) = sc.log
            self.assertIs(release.state, State.RAISED)

    def test_no_threads_is_nothing_to_do(self) -> None:
        sc = scenario()
        event = sc.Event()
        A = spawn(sc, "A", event.set)
        with sc:
            blocked = sc.park(A, event.set)[A]
            sc.finish()
            self.assertIs(blocked.state, State.BLOCKED)
            self.assertEqual(len(sc.log), 0)

    def test_only_threads_can_be_finished(self) -> None:
        sc = scenario()
        event = sc.Event()
        A = spawn(sc, "A", event.set)
        with sc:
            with unchecked(), self.assertRaisesRegex(TypeError, "finish takes threads, not 42"):
                sc.finish(A, 42)  # type: ignore[arg-type]
            sc.wait(A)
            tx: Transaction | None = sc.transaction(A)
            assert tx is not None
            self.assertIs(tx.state, State.BLOCKED)  # A was not driven


if __name__ == "__main__":  # pragma: no cover
    unittest.main()

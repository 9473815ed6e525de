"""blanket.explore: its arguments, the three strategies and their bounds,
each kind of failure, the primitives' calls as choices, and the results
(Exploration, Failure, Step) as they print."""

from __future__ import annotations

import doctest
import itertools
import operator
import threading
import unittest
import unittest.mock
from collections.abc import Callable
from pathlib import Path
from typing import Any

import blanket
from blanket import Scenario, waiting
from blanket.core import ScenarioCore
from blanket.errors import StallError
from blanket.exploration.reproduce import replay
from blanket.exploration.result import Exploration, Failure, Step

from .reach_cases import two_sections
from .support import quiet_thread_errors, unchecked

BOUND = 5.0  # every wait of these tests ends well within it
PAGE = Path(__file__).resolve().parent.parent / "docs" / "exploration.rst"

Invariant = Callable[[], None]


# -- setups ---------------------------------------------------------------------------

def racing_counter(scenario: Scenario) -> Invariant:
    """A read and a write in two critical sections: some orders lose an update."""
    lock = scenario.Lock()
    count = [0]

    def increment() -> None:
        with lock:
            seen = count[0]
        with lock:
            count[0] = seen + 1

    scenario.thread(increment)
    scenario.thread(increment)

    def both_counted() -> None:
        assert count[0] == 2, f"lost an update: count {count[0]}"
    return both_counted


def no_threads(scenario: Scenario) -> Invariant:
    scenario.Lock()
    return lambda: None


def one_thread_no_invariant(scenario: Scenario) -> None:
    lock = scenario.Lock()
    scenario.thread(lock.acquire)


def raising(scenario: Scenario) -> None:
    lock = scenario.Lock()

    def fail() -> None:
        with lock:
            raise KeyError("boom")

    scenario.thread(fail)


def timed_acquire(scenario: Scenario) -> Invariant:
    """B's acquire has a timeout: with A holding the lock it expires."""
    lock = scenario.Lock()
    got: list[bool] = []

    def hold() -> None:
        with lock:
            pass

    def try_to_take() -> None:
        if lock.acquire(timeout=BOUND):
            got.append(True)
            lock.release()
        else:
            got.append(False)

    scenario.thread(hold)
    scenario.thread(try_to_take)

    def took_it() -> None:
        assert got == [True], f"the timed acquire gave {got}"
    return took_it


def explore(setup: Callable[[Scenario], Any], **options: Any) -> Exploration:
    options.setdefault("timeout", BOUND)
    with quiet_thread_errors():
        return blanket.explore(setup, **options)


def failure_of(result: Exploration) -> Failure:
    assert result.failure is not None, result
    return result.failure


# -- arguments ------------------------------------------------------------------------

class Arguments(unittest.TestCase):
    def assert_refused(self, says: str, **options: Any) -> None:
        with self.assertRaises(ValueError) as caught, unchecked():
            blanket.explore(two_sections, **options)
        self.assertIn(says, str(caught.exception))

    def test_bad_values_are_refused_before_any_run(self) -> None:
        self.assert_refused("strategy 'bfs': expected one of dfs, random, pct", strategy="bfs")
        self.assert_refused("max_schedules=0: expected at least 1", max_schedules=0)
        self.assert_refused("max_preemptions=-1: expected 0 or more", max_preemptions=-1)
        self.assert_refused("depth=0: expected at least 1", depth=0)

    def test_bad_shards_are_refused(self) -> None:
        for shard in ("1", "a/2", "1/2/3", ""):
            with self.subTest(shard=shard):
                self.assert_refused(f"shard {shard!r}: expected 'i/n'", shard=shard)
        for shard in ("0/2", "3/2", (0, 1), (2, 1), "1/0"):
            with self.subTest(shard=shard):
                self.assert_refused("expected 1 <= i <= n", shard=shard)

    def test_shards_as_strings_and_tuples_agree(self) -> None:
        whole = explore(two_sections)
        as_text = explore(two_sections, shard="1/1")
        as_tuple = explore(two_sections, shard=(1, 1))
        self.assertEqual(as_text.schedules, whole.schedules)
        self.assertEqual(as_tuple.schedules, whole.schedules)
        halves = [explore(two_sections, shard=(i, 2), split_depth=2) for i in (1, 2)]
        self.assertEqual(sorted(halves[0].schedules + halves[1].schedules),
                         sorted(whole.schedules))
        self.assertTrue(all(half.exhausted for half in halves))


# -- strategies and bounds ----------------------------------------------------------------

class DepthFirst(unittest.TestCase):
    def test_every_order_of_dependent_calls_is_run_once(self) -> None:
        result = explore(two_sections)
        self.assertTrue(result.ok)
        self.assertTrue(result.exhausted)
        self.assertEqual(result.strategy, "dfs")
        self.assertEqual(result.count, len(result.schedules))
        self.assertEqual(result.count, 6)  # the ways to interleave AA with BB
        self.assertGreaterEqual(result.runs, result.count)
        self.assertEqual(sorted({"".join(s).replace("A", "").replace("B", "") for s in
                                 result.schedules}), [""])

    def test_max_schedules_stops_the_search(self) -> None:
        result = explore(two_sections, max_schedules=2)
        self.assertTrue(result.ok)
        self.assertFalse(result.exhausted)
        self.assertEqual(result.count, 2)
        self.assertNotIn("the whole space", str(result))

    def test_max_preemptions_bounds_the_search(self) -> None:
        unbounded = explore(two_sections)
        none = explore(two_sections, max_preemptions=0)
        one = explore(two_sections, max_preemptions=1)
        self.assertTrue(none.exhausted)
        # Before: "the whole space", though a bounded search leaves orders out.
        self.assertNotIn("the whole space", str(one))
        self.assertIn(", all it reached with at most 1 preemption(s) (bounded: not every order)",
                      str(one))
        self.assertIn("the whole space", str(unbounded))
        self.assertLess(none.count, one.count)
        self.assertLess(one.count, unbounded.count)
        self.assertTrue(set(none.schedules) <= set(one.schedules) <= set(unbounded.schedules))
        # Without preemptions a thread runs until it finishes.
        for schedule in none.schedules:
            self.assertEqual(len([n for n, (a, b) in enumerate(itertools.pairwise(schedule))
                                  if a != b]), 1, schedule)

    def test_a_bound_that_left_no_order_out_is_the_whole_space(self) -> None:
        # Two threads of one locked section each: no order needs a
        # preemption, so the bounded search is the unbounded one. Before, it
        # said "bounded: not every order", and a linearizability check ran
        # every such scenario a second time, unbounded.
        def one_section(scenario: Scenario) -> None:
            lock = scenario.Lock()
            for _ in range(2):
                scenario.thread(lambda: lock.acquire() and lock.release())

        bounded = explore(one_section, max_preemptions=0)
        unbounded = explore(one_section)
        self.assertTrue(bounded.exhausted)
        self.assertIsNone(bounded.max_preemptions)
        self.assertIn("the whole space", str(bounded))
        self.assertEqual(bounded.schedules, unbounded.schedules)
        # A bound that left orders out says so (the case above).
        self.assertEqual(explore(two_sections, max_preemptions=1).max_preemptions, 1)

    def test_calls_on_different_primitives_are_run_in_one_order(self) -> None:
        def independent(scenario: Scenario) -> None:
            for _ in range(3):
                scenario.thread(scenario.Lock().acquire)

        result = explore(independent)
        self.assertTrue(result.exhausted)
        self.assertEqual(result.count, 1)

    def test_a_race_with_a_thread_not_yet_enabled_goes_back_through_its_enabler(
            self) -> None:
        def gated(scenario: Scenario) -> None:
            lock, gate, log = scenario.Lock(), scenario.Event(), []

            def section() -> None:
                with lock:
                    log.append(0)

            def after_the_gate() -> None:
                gate.wait()
                section()

            scenario.thread(section)
            scenario.thread(after_the_gate)
            scenario.thread(gate.set)

        result = explore(gated)
        self.assertTrue(result.exhausted)
        # B's section races with A's, but B can only go once C opened the
        # gate: the reversed order is reached by choosing C first.
        self.assertEqual(result.count, 2)
        self.assertEqual({s.index("A") < s.index("B", s.index("C")) for s in result.schedules},
                         {True, False})

    def test_no_threads_is_one_empty_schedule(self) -> None:
        result = explore(no_threads)
        self.assertTrue(result.ok)
        self.assertTrue(result.exhausted)
        self.assertEqual(result.schedules, [()])

    def test_a_setup_may_return_no_invariant(self) -> None:
        result = explore(one_thread_no_invariant)
        self.assertTrue(result.ok, result)
        self.assertEqual(result.schedules, [("A",)])

    def test_a_setup_returning_no_invariant_nor_none_is_refused(self) -> None:
        # A mistake of the caller: refused at the first run, not turned into
        # a failure of the code under test with a test written for it.
        threads: list[threading.Thread] = []
        for returned in (42, "text", (None,)):
            def setup(scenario: Scenario, returned: object = returned) -> Any:
                lock = scenario.Lock()
                threads.append(scenario.thread(lambda: lock.acquire(timeout=BOUND)))
                return returned
            for run in (lambda: explore(setup), lambda: replay(setup, [], timeout=BOUND)):
                with self.subTest(returned=returned), unchecked(), \
                        self.assertRaises(TypeError) as caught:
                    run()
                self.assertTrue(str(caught.exception).startswith(
                    f"setup returned {returned!r}: expected None or a callable invariant"),
                    caught.exception)
        self.assertEqual(len(threads), 6)  # one run each: refused at once
        self.assertTrue(all(thread.ident is None for thread in threads))  # never started

    def test_a_setup_that_is_not_deterministic_is_refused(self) -> None:
        runs = itertools.count()
        threads: list[threading.Thread] = []

        def changing(scenario: Scenario) -> None:
            first, second = scenario.Lock(), scenario.Lock()

            def section(lock: Any) -> None:
                with lock:
                    pass

            threads.append(scenario.thread(section, first))
            # The second run's B takes another lock than the first run's.
            threads.append(scenario.thread(section, first if next(runs) == 0 else second))

        with self.assertRaises(RuntimeError) as caught:
            explore(changing)
        self.assertIn("not deterministic", str(caught.exception))
        self.assertIn("at step 1", str(caught.exception))
        # The run it gave up on is torn down: no thread is left parked.
        for thread in threads:
            thread.join(BOUND)
            self.assertFalse(thread.is_alive(), thread)

    def test_a_difference_found_by_the_thread_that_takes_the_step_reaches_the_caller(
            self) -> None:
        # Past the first step the thread that settles everything chooses the
        # next step itself (Run.carry_on): what the chooser raises there is
        # raised by explore, and the run is torn down as before.
        runs = itertools.count()
        threads: list[threading.Thread] = []

        def changing_later(scenario: Scenario) -> None:
            first, second = scenario.Lock(), scenario.Lock()
            run = next(runs)

            def sections() -> None:
                with first:
                    pass
                with first if run == 0 else second:
                    pass

            threads.append(scenario.thread(sections))
            threads.append(scenario.thread(sections))

        with self.assertRaises(RuntimeError) as caught:
            explore(changing_later)
        self.assertIn("not deterministic", str(caught.exception))
        self.assertRegex(str(caught.exception), r"at step ([2-9]|\d\d+);")
        for thread in threads:
            thread.join(BOUND)
            self.assertFalse(thread.is_alive(), thread)


class StepsTakenByTheThreads(unittest.TestCase):
    def test_a_run_is_no_stall_while_its_threads_take_steps(self) -> None:
        # The scheduler sleeps while the threads take steps themselves
        # (Run.carry_on): its bound running out then is not a stall. Here
        # the bound runs out (made to, once) after steps were taken.
        real = waiting.wait_locked
        ran_out: list[int] = []

        def running_out(core: ScenarioCore, pairs: Any, timeout: Any, *args: Any) -> Any:
            run = getattr(core.on_settled, "__self__", None)
            taken = len(run.trace) if run is not None else 0
            result = real(core, pairs, timeout, *args)
            if run is not None and len(run.trace) > taken and not ran_out:
                ran_out.append(len(run.trace) - taken)
                raise StallError("the bound ran out", "(report)")
            return result

        with unittest.mock.patch.object(waiting, "wait_locked", running_out):
            result = explore(two_sections)
        self.assertTrue(result.ok, result)
        self.assertEqual(result.count, 6)
        self.assertEqual(len(ran_out), 1)


class StartInTurn(unittest.TestCase):
    def test_each_thread_starts_once_the_one_before_is_parked(self) -> None:
        # Before: the threads were started together, so what they do before
        # their first call overlapped (truly, on the free-threaded build) and
        # a run could hit a data race no step of it shows.
        seen: list[bool] = []

        def setup(scenario: Scenario) -> None:
            lock, log = scenario.Lock(), []

            def work() -> None:
                sum(range(2_000_000))  # several switch intervals of the GIL
                with lock:
                    log.append(0)

            A = scenario.thread(work)
            B = scenario.thread(work)
            start = B.start

            def start_b() -> None:
                seen.append(scenario.transaction(A) is not None)
                start()

            B.start = start_b  # type: ignore[method-assign]
            return lambda: None

        result = explore(setup)
        self.assertEqual(result.count, 2)
        self.assertTrue(result.exhausted)
        self.assertEqual(seen, [True, True])


class RandomAndPCT(unittest.TestCase):
    def test_the_same_seed_gives_the_same_schedules(self) -> None:
        # Four samples of the six orders: the depth-first pass beside them
        # (one run after each) has not ended (tests/test_explore_budget.py).
        for strategy in ("random", "pct"):
            with self.subTest(strategy):
                first = explore(two_sections, strategy=strategy, seed=3, max_schedules=4)
                again = explore(two_sections, strategy=strategy, seed=3, max_schedules=4)
                self.assertEqual(first.strategy, strategy)
                self.assertEqual(first.schedules, again.schedules)
                self.assertEqual(len(first.schedules), 4)
                self.assertEqual((first.runs, first.depth_first_runs), (8, 4))
                self.assertFalse(first.exhausted)
                self.assertTrue(first.ok)

    def test_seeds_vary_the_schedules(self) -> None:
        for strategy in ("random", "pct"):
            with self.subTest(strategy):
                seen = {tuple(explore(two_sections, strategy=strategy, seed=seed,
                                      max_schedules=4).schedules) for seed in range(4)}
                self.assertGreater(len(seen), 1)

    def test_pct_with_depth_one_keeps_its_priorities(self) -> None:
        result = explore(two_sections, strategy="pct", depth=1, max_schedules=4, seed=1)
        # Without change points the highest priority thread runs to its end.
        for schedule in result.schedules:
            self.assertIn(schedule, {("A",) * 4 + ("B",) * 4, ("B",) * 4 + ("A",) * 4})

    def test_random_search_finds_a_lost_update(self) -> None:
        failure = failure_of(explore(racing_counter, strategy="random", seed=0))
        self.assertEqual(failure.kind, "invariant")
        self.assertIn("lost an update: count 1", failure.message)

    def test_random_shards_split_the_runs_by_number(self) -> None:
        # Too few runs for the depth-first pass beside them to end: the
        # samples are the schedules (see tests/test_explore_budget.py).
        whole = explore(two_sections, strategy="random", max_schedules=4)
        parts = [explore(two_sections, strategy="random", max_schedules=4, shard=f"{i}/2")
                 for i in (1, 2)]
        self.assertFalse(any(result.exhausted for result in [whole, *parts]))
        self.assertEqual([len(p.schedules) for p in parts], [2, 2])
        self.assertEqual(parts[0].schedules + parts[1].schedules,
                         [s for n, s in enumerate(whole.schedules) if n % 2 == 0]
                         + [s for n, s in enumerate(whole.schedules) if n % 2 == 1])


# -- failures -------------------------------------------------------------------------------

class Failures(unittest.TestCase):
    def test_a_failing_invariant(self) -> None:
        result = explore(racing_counter)
        failure = failure_of(result)
        self.assertFalse(result.ok)
        self.assertEqual(failure.kind, "invariant")
        self.assertIn("the invariant failed", failure.message)
        self.assertIn("AssertionError: lost an update: count 1", failure.message)
        # The run's 8 steps shrunk to those it needs: B's whole withdrawal between
        # A's two sections; the replay's rule finishes the threads.
        self.assertEqual(result.schedules[-1], ("A", "A", "B", "B", "B", "B", "A", "A"))
        self.assertEqual(tuple(step.thread for step in failure.schedule), tuple("AABBB"))
        self.assertIn("self.replay(racing_counter, [", failure.source)

    def test_a_worker_exception(self) -> None:
        failure = failure_of(explore(raising))
        self.assertEqual(failure.kind, "exception")
        self.assertIn("thread A raised:", failure.message)
        self.assertIn("KeyError: 'boom'", failure.message)
        # Shrunk: no step is needed, the replay's rule (A first) raises.
        self.assertEqual(failure.schedule, ())

    def test_a_deadlock(self) -> None:
        def abba(scenario: Scenario) -> None:
            first, second = scenario.Lock(), scenario.Lock()

            def forwards() -> None:
                with first, second:
                    pass

            def backwards() -> None:
                with second, first:
                    pass

            scenario.thread(forwards)
            scenario.thread(backwards)

        failure = failure_of(explore(abba))
        self.assertEqual(failure.kind, "deadlock")
        self.assertEqual(failure.message, "deadlock: A holds Lock 1 and waits for Lock 2; "
                                          "B holds Lock 2 and waits for Lock 1")

    def test_a_thread_stalled_outside_blanket(self) -> None:
        gate = threading.Event()  # a raw event: blanket does not see it
        threads: list[threading.Thread] = []
        # Called from C: the watched code does not use the event itself (else
        # the event would be the scenario's, see blanket.exploration.realprims).
        wait = operator.methodcaller("wait", BOUND)

        def stalling(scenario: Scenario) -> None:
            lock = scenario.Lock()

            def wait_at_the_gate() -> None:
                with lock:
                    pass
                wait(gate)

            threads.append(scenario.thread(wait_at_the_gate))

        try:
            failure = failure_of(explore(stalling, timeout=0.05))
        finally:
            gate.set()
        self.assertEqual(failure.kind, "stall")
        self.assertIn("stalled", failure.message)
        self.assertIn("running, not inside a blanket call", failure.message)
        # The schedule ends with the step after which A ran off.
        self.assertEqual([str(step) for step in failure.schedule],
                         ["A: Lock 1 Lock.acquire", "A: Lock 1 Lock.release"])
        threads[0].join(BOUND)
        self.assertFalse(threads[0].is_alive())

    def test_a_deadlocked_thread_that_does_not_end_when_abandoned(self) -> None:
        gate = threading.Event()
        threads: list[threading.Thread] = []

        def self_deadlock(scenario: Scenario) -> None:
            lock = scenario.Lock()

            def twice() -> None:
                try:
                    with lock, lock:
                        pass
                finally:  # unwinding from Abandoned, it still waits
                    gate.wait(BOUND)

            threads.append(scenario.thread(twice))

        try:
            failure = failure_of(explore(self_deadlock, timeout=0.05))
        finally:
            gate.set()
        self.assertEqual(failure.kind, "deadlock")
        self.assertEqual(failure.message, "stuck, with nothing left to wake them: "
                                          "A holds Lock 1 and waits for Lock 1")
        threads[0].join(BOUND)
        self.assertFalse(threads[0].is_alive())

    def test_the_first_failure_ends_the_search(self) -> None:
        result = explore(racing_counter)
        self.assertFalse(result.exhausted)
        self.assertIn("a failure: invariant:", str(result))


# -- the primitives' calls as choices -------------------------------------------------------

class Primitives(unittest.TestCase):
    def test_a_timed_call_that_cannot_succeed_is_expired(self) -> None:
        failure = failure_of(explore(timed_acquire))
        self.assertEqual(failure.kind, "invariant")
        expired = [step for step in failure.schedule if step.expired]
        self.assertEqual([str(step) for step in expired],
                         ["B: Lock 1 Lock.acquire (expired)"])
        self.assertIn("'B: Lock 1 Lock.acquire (expired)',", failure.source)

    def test_a_timed_wait_is_explored_without_sleeping_out_its_timeout(self) -> None:
        results: list[bool] = []

        def timed_wait(scenario: Scenario) -> None:
            ready = scenario.Condition()

            def wait() -> None:
                with ready:
                    results.append(ready.wait(60))

            def notify() -> None:
                with ready:
                    ready.notify()

            scenario.thread(wait)
            scenario.thread(notify)

        result = explore(timed_wait, max_schedules=20, timeout=0.5)
        # Both outcomes are explored, and none slept out its timeout: notified
        # in time (True) and timed out (False, the wait expired at once).
        self.assertEqual(sorted(set(results)), [False, True])
        # Notified before it waits, a wait that waits "in time" would hang;
        # its timeout would end it, so that is no failure: the expired run
        # covers it.
        self.assertIsNone(result.failure, result)
        self.assertTrue(result.exhausted)
        self.assertIn(("A", "A*", "A", "A", "B", "B", "B"), result.schedules)
        # A random search counts such a run as nothing either.
        sampled = explore(timed_wait, strategy="random", max_schedules=30, timeout=0.5)
        self.assertIsNone(sampled.failure, sampled)
        self.assertLess(len(sampled.schedules), sampled.runs)

    def test_semaphore(self) -> None:
        def two_of_three(scenario: Scenario) -> None:
            slots = scenario.Semaphore(2)
            for _ in range(3):
                scenario.thread(slots.acquire)

        failure = failure_of(explore(two_of_three))
        self.assertEqual(failure.kind, "deadlock")
        self.assertEqual(failure.schedule, ())  # shrunk: every order deadlocks
        self.assertIn("stuck, with nothing left to wake them: "
                      "C waits for Semaphore 1", failure.message)

    def test_rlock_is_reentrant_for_its_owner_only(self) -> None:
        def reentrant(scenario: Scenario) -> None:
            lock = scenario.RLock()

            def nested() -> None:
                with lock, lock:
                    pass

            scenario.thread(nested)
            scenario.thread(nested)

        result = explore(reentrant)
        self.assertTrue(result.ok, result)
        self.assertTrue(result.exhausted)
        # The owner's nested acquire is a choice; the other's acquire is not
        # until the lock is free again: whole sections in either order.
        self.assertEqual(sorted(result.schedules), [tuple("AAAABBBB"), tuple("BBBBAAAA")])

    def test_event_wait_is_a_choice_only_once_set(self) -> None:
        def signal(scenario: Scenario) -> None:
            event = scenario.Event()
            scenario.thread(event.wait)
            scenario.thread(event.set)

        result = explore(signal)
        self.assertTrue(result.ok, result)
        self.assertEqual(result.schedules, [("B", "A")])

    def test_a_stuck_barrier_is_reported_and_broken(self) -> None:
        def three_parties_two_come(scenario: Scenario) -> None:
            barrier = scenario.Barrier(3)
            scenario.thread(barrier.wait)
            scenario.thread(barrier.wait)

        result = explore(three_parties_two_come)
        failure = failure_of(result)
        self.assertEqual(failure.kind, "deadlock")
        self.assertEqual(failure.message, "stuck, with nothing left to wake them: "
                                          "A waits in Barrier.wait on Barrier 1; "
                                          "B waits in Barrier.wait on Barrier 1")

    def test_a_barrier_that_fills(self) -> None:
        def two_parties(scenario: Scenario) -> None:
            barrier = scenario.Barrier(2)
            scenario.thread(barrier.wait)
            scenario.thread(barrier.wait)

        result = explore(two_parties)
        self.assertTrue(result.ok, result)
        self.assertEqual(sorted(result.schedules), [("A", "B"), ("B", "A")])

    def test_condition_over_an_rlock(self) -> None:
        def hand_over(scenario: Scenario) -> Invariant:
            ready = scenario.Condition(scenario.RLock())
            box: list[int] = []

            def take() -> None:
                with ready:
                    while not box:
                        ready.wait()
                    box.pop()

            def put() -> None:
                with ready:
                    box.append(1)
                    ready.notify()

            scenario.thread(take)
            scenario.thread(put)

            def taken() -> None:
                assert box == [], box
            return taken

        result = explore(hand_over)
        self.assertTrue(result.ok, result)
        self.assertTrue(result.exhausted)
        resumed = [s for s in result.schedules if s[:2] == ("A", "A")]
        self.assertTrue(resumed)

    def test_a_nonblocking_acquire_is_always_a_choice(self) -> None:
        got: list[bool] = []

        def try_lock(scenario: Scenario) -> None:
            lock = scenario.Lock()

            def hold() -> None:
                with lock:
                    pass

            def attempt() -> None:
                got.append(lock.acquire(False))
                if got[-1]:
                    lock.release()

            scenario.thread(hold)
            scenario.thread(attempt)

        result = explore(try_lock)
        self.assertTrue(result.ok, result)
        self.assertIn(False, got)

    def test_threads_the_code_under_test_starts(self) -> None:
        got: list[bool] = []

        def spawning(scenario: Scenario) -> None:
            slot = scenario.Semaphore(0)

            def give() -> None:
                # One call: the scheduler sees a thread it did not make only
                # while it is in a call, so the helper makes no call after
                # this one (between two, it would be out of sight).
                slot.release()

            def spawn() -> None:
                helper = threading.Thread(target=give, name="helper")
                helper.start()
                # Not to go on before the helper is inside its call.
                scenario.wait(helper, timeout=BOUND)
                got.append(slot.acquire(blocking=False))

            scenario.thread(spawn)

        # Nothing watched, so nothing adopted: the helper is not the scenario's
        # (with races watched it would be, see tests/test_adopt.py).
        result = explore(spawning, races="off")
        self.assertTrue(result.ok, result)
        # Both orders are run, but a thread blanket did not start is not
        # scheduled between its calls: the verdict says so.
        self.assertFalse(result.exhausted)
        self.assertEqual(len(result.unseen), 1, result.unseen)
        self.assertIn("thread 'helper' started outside blanket at test_explore.py:",
                      result.unseen[0])
        self.assertEqual(result.count, 2)
        self.assertEqual(set(got), {False, True})  # the helper's release first, or not


# -- the results -----------------------------------------------------------------------

class Results(unittest.TestCase):
    def test_step_prints_thread_primitive_call(self) -> None:
        self.assertEqual(str(Step("A", "Lock.acquire", "Lock 1", "BLOCKED")),
                         "A: Lock 1 Lock.acquire")
        self.assertEqual(str(Step("B", "Lock.acquire", "Lock 1", "BLOCKED", expired=True)),
                         "B: Lock 1 Lock.acquire (expired)")
        self.assertEqual(str(Step("C", "Condition.wait", "ready", "STALLED")),
                         "C: ready Condition.wait resumes")

    def test_failure_prints_its_kind_message_and_numbered_steps(self) -> None:
        failure = Failure("deadlock", "deadlock: cycle", (
            Step("A", "Lock.acquire", "Lock 1", "BLOCKED"),
            Step("B", "Lock.acquire", "Lock 2", "BLOCKED")))
        self.assertEqual(str(failure), "deadlock: cycle\nschedule:\n"  # the kind once
                                       "  1. A: Lock 1 Lock.acquire\n"
                                       "  2. B: Lock 2 Lock.acquire")
        self.assertEqual(failure.source, "")
        invariant = Failure("invariant", "balance 90", ())
        self.assertEqual(str(invariant), "invariant: balance 90\nschedule:\n")

    def test_exploration_counts_distinct_schedules(self) -> None:
        result = Exploration("dfs", schedules=[("A", "B"), ("A", "B"), ("B", "A")],
                             elapsed=0.25)
        self.assertEqual(result.count, 2)
        self.assertTrue(result.ok)
        self.assertEqual(str(result), "dfs: 2 distinct schedule(s) in 0.25 s; no failure")
        result.exhausted = True
        self.assertIn("2 distinct schedule(s), the whole space in", str(result))
        result.failure = Failure("stall", "stalled", ())
        self.assertFalse(result.ok)
        self.assertTrue(str(result).endswith("; a failure: stall: stalled\nschedule:\n"))

    def test_explore_is_exported(self) -> None:
        for name in ("explore", "Exploration", "Failure", "Step", "Abandoned"):
            self.assertIn(name, blanket.__all__)


class DocsPage(unittest.TestCase):
    def test_the_examples_of_the_exploration_page_run(self) -> None:
        with quiet_thread_errors():
            failed, attempted = doctest.testfile(
                str(PAGE), module_relative=False, optionflags=doctest.ELLIPSIS)
        self.assertGreater(attempted, 20)
        self.assertEqual(failed, 0)


if __name__ == "__main__":  # pragma: no cover
    unittest.main()

"""The parts of blanket.linearizability: operations and their names, the
history search, workloads, the report's source, the check's arguments and
its rarer verdicts (a deadlock, another strategy, a partition)."""

from __future__ import annotations

import functools
import threading
import types
import unittest
from typing import Any
from unittest import mock

import blanket
from blanket import seconds
from blanket.exploration import search, searching
from blanket.exploration.reproduce import Replay
from blanket.linearizability import check, history
from blanket.linearizability.history import (
    History,
    Model,
    Outcome,
    Specification,
    Verdict,
    explain,
)
from blanket.linearizability.operations import describe
from blanket.linearizability.scenarios import Workload

from . import lin_structures, lru_shapes
from .support import quiet_thread_errors, unchecked


class Incomparable:
    def __eq__(self, other: object) -> bool:
        raise TypeError("no")

    __hash__ = object.__hash__


class LooksLikeOne:
    def __repr__(self) -> str:
        return "1"


class Operations(unittest.TestCase):
    def test_an_operation_reads_compares_and_writes_itself(self) -> None:
        put = blanket.Operation("put", 1, block=False)
        self.assertEqual(repr(put), "put(1, block=False)")
        self.assertEqual(put, blanket.Operation("put", 1, block=False))
        self.assertNotEqual(put, "put")
        self.assertEqual(hash(put), hash(blanket.Operation("put", 1, block=False)))
        self.assertEqual(put.source, "blanket.Operation('put', 1, block=False)")
        self.assertIsNone(blanket.Operation("put", object()).source)
        self.assertIsNone(blanket.Operation("put", float("nan")).source)
        self.assertIsNone(blanket.Operation("put", LooksLikeOne()).source)
        with self.assertRaises(TypeError):
            blanket.Operation("not a name")

    def test_describe_names_each_kind_of_callable(self) -> None:
        self.assertEqual(describe(lambda q: q.put(1)), "q.put(1)")
        self.assertEqual(describe(functools.partial(divmod, 7, b=2)), "divmod(7, b=2)")
        self.assertEqual(describe(lin_structures.LockedCounter), "LockedCounter")
        self.assertIn("<Mock name='op'", describe(mock.Mock(name="op")))
        unread = eval("lambda q: q.pop()")  # noqa: S307 - no source to read
        self.assertEqual(describe(unread), "<lambda>")


class Histories(unittest.TestCase):
    def counter(self) -> tuple[Specification, History]:
        ops = [blanket.Operation("increment"), blanket.Operation("get")]
        return Specification(lin_structures.LockedCounter, ops), History(2)

    def test_outcomes_match_by_value_or_exception(self) -> None:
        self.assertTrue(Outcome(True, KeyError("a")).matches(Outcome(True, KeyError("a"))))
        self.assertFalse(Outcome(True, KeyError("a")).matches(Outcome(False, None)))
        self.assertEqual(str(Outcome(True, KeyError("a"))), "raised KeyError('a')")

    def test_a_comparison_that_raises_raises(self) -> None:
        # Before, it was "no match": a false "not linearizable".
        with self.assertRaises(TypeError):
            Outcome(False, Incomparable()).matches(Outcome(False, 1))

    def test_a_call_left_blocked_that_the_specification_answers_is_lost(self) -> None:
        specification, record = self.counter()
        record.begin(0)  # increment never returns, though a fresh counter's would
        record.begin(1)
        record.end(1, Outcome(False, 0))
        verdict = specification.check(record)
        self.assertFalse(verdict.ok)
        self.assertIn("A1 was blocked when the run ended",
                      explain(verdict, ["A1 increment()", "B1 get()"], record))

    def test_a_pending_call_that_blocks_in_the_specification_takes_no_effect(self) -> None:
        # The specification's get of an empty queue waits on its own
        # condition: it is known to block at once, no clock involved.
        ops = [blanket.Operation("get"), blanket.Operation("put", 1)]
        specification = Specification(lin_structures.BlockingQueue, ops)
        record = History(2)
        record.begin(0)
        self.assertTrue(specification.check(record).ok)  # only a get, pending: it blocks
        record.begin(1)
        record.end(1, Outcome(False, None))
        verdict = specification.check(record)  # after the put, the get would return
        self.assertFalse(verdict.ok)
        self.assertEqual(verdict.divergences[-1][:2], ((1,), 0))

    def test_divergences_kept_and_listed_are_bounded(self) -> None:
        specification, record = self.counter()
        record.begin(0)
        record.end(0, Outcome(False, 5))
        with mock.patch.object(history, "MAX_DIVERGENCES", 0):
            verdict = specification.check(record)
        self.assertEqual((verdict.ok, verdict.tried, verdict.divergences), (False, 1, []))
        many = Verdict(None, [((), 0, Outcome(False, 1))] * 13, 13)
        self.assertIn("... and 1 more", explain(many, ["A1 increment()", "B1 get()"], record))

    def test_independent_parts_are_checked_alone(self) -> None:
        ops = [blanket.Operation("get", "a"), blanket.Operation("get", "b")]
        specification = Specification(lin_structures.LockedCache, ops,
                                       partition=lambda op: op.args[0])
        self.assertEqual(specification.parts, [[0], [1]])
        record = History(2)
        for call, value in ((0, "a#1"), (1, "b#1")):  # a model per part: each made first
            record.begin(call)
            record.end(call, Outcome(False, value))
        self.assertTrue(specification.check(record).ok)


class Identities(unittest.TestCase):
    """Values that keep object's equality match by which one they are."""

    def history(self, *values: object) -> History:
        record = History(len(values))
        for call, value in enumerate(values):
            record.begin(call)
            record.end(call, Outcome(False, value))
        return record

    def test_the_same_object_twice_matches_the_same_object_twice(self) -> None:
        ops = [blanket.Operation("connect", "db")] * 2
        specification = Specification(lin_structures.CheckThenActPool, ops)
        one = lin_structures.Connection("db")
        self.assertTrue(specification.check(self.history(one, one)).ok)

    def test_two_objects_for_one_key_are_named_by_the_call_that_returned_each(self) -> None:
        ops = [blanket.Operation("connect", "db")] * 2
        specification = Specification(lin_structures.CheckThenActPool, ops)
        record = self.history(lin_structures.Connection("db"), lin_structures.Connection("db"))
        verdict = specification.check(record)
        self.assertFalse(verdict.ok)
        text = explain(verdict, ["A1 connect('db')", "B1 connect('db')"], record)
        self.assertIn("the specification returns what A1 returned, B1 returned a new "
                      "Connection", text)
        first = Verdict(None, [((), 0, Outcome(False, object(), token=1))], 1)
        self.assertIn("A1 connect('db'): the specification returns a new object, "
                      "A1 returned a new Connection", explain(first, ["A1 connect('db')"], record))

    def test_an_object_where_a_value_is_expected_differs(self) -> None:
        ops = [blanket.Operation("get")]
        specification = Specification(lin_structures.LockedCounter, ops)
        self.assertFalse(specification.check(self.history(lin_structures.Connection("db"))).ok)


class Workloads(unittest.TestCase):
    def test_a_workload_needs_an_operation(self) -> None:
        with self.assertRaises(ValueError):
            Workload([[], []])

    def test_smaller_ones_drop_a_thread_or_an_operation(self) -> None:
        inc, get = lin_structures.COUNTER_OPERATIONS
        one = Workload([[inc]], prefix=[get], suffix=[get])
        self.assertEqual(repr(one), "<Workload before: get(); A: increment(); after: get()>")
        self.assertEqual([repr(w) for w in one.smaller()],
                         ["<Workload A: increment(); after: get()>",
                          "<Workload before: get(); A: increment()>"])
        self.assertEqual(one.names, ["before1 get()", "A1 increment()", "after1 get()"])

    def test_functions_are_watched_once_partials_by_their_function(self) -> None:
        def bump(counter: lin_structures.UnlockedCounter, _: int) -> int:
            return counter.increment()
        setup = Workload([[functools.partial(bump, 1), functools.partial(bump, 2)]]).setup(
            lin_structures.UnlockedCounter)
        self.assertEqual(setup.targets.count(bump), 1)


class Arguments(unittest.TestCase):
    def test_what_cannot_run_is_refused_at_the_call(self) -> None:
        ops = lin_structures.COUNTER_OPERATIONS
        make = lin_structures.LockedCounter
        for args, kwargs, error in (
                ((1, ops), {}, TypeError), ((make, []), {}, TypeError),
                ((make, "ab"), {}, TypeError), ((make, ops), {"threads": 0}, ValueError),
                ((make, ops), {"prefix": 1.0}, TypeError),
                ((make, ops), {"model": 3}, TypeError),
                ((make, ops), {"strategy": "bfs"}, ValueError)):
            with self.subTest(kwargs), self.assertRaises(error), unchecked():
                blanket.check_linearizable(*args, **kwargs)


class MadeOnce(lin_structures.LockedCounter):
    """A counter that can be made once only: in the run, making it raises."""

    made = 0

    def __init__(self) -> None:
        super().__init__()
        MadeOnce.made += 1
        if MadeOnce.made > 1:
            raise RuntimeError("made twice")


class AbbaCounter:
    """Two operations taking two locks in opposite orders."""

    def __init__(self) -> None:
        self.first, self.second = threading.Lock(), threading.Lock()

    def forwards(self) -> int:
        with self.first, self.second:
            return 1

    def backwards(self) -> int:
        with self.second, self.first:
            return 2


class Verdicts(unittest.TestCase):
    def test_a_call_that_blocks_in_the_specification_too_is_no_failure(self) -> None:
        make, operations = lin_structures.CORRECT["blocking queue"]
        result = blanket.check_linearizable(make, operations, scenarios=6)
        self.assertTrue(result.ok, str(result))
        self.assertEqual(result.exhausted, [True] * 6)

    def test_a_wake_up_lost_is_a_deadlock_failure(self) -> None:
        _, fixed, operations = lin_structures.BUGGY["lost wake-up queue"]
        result = blanket.check_linearizable(lin_structures.LostWakeupQueue, operations)
        failure = result.failure
        assert failure is not None
        self.assertEqual(failure.kind, "deadlock")
        self.assertIn("get() pending", failure.source)

    def test_a_deadlock_is_a_failure_when_the_specification_answers_a_blocked_call(self) -> None:
        ops = [blanket.Operation("forwards"), blanket.Operation("backwards")]
        result = blanket.check_linearizable(AbbaCounter, ops)
        failure = result.failure
        assert failure is not None
        self.assertEqual(failure.kind, "deadlock")
        self.assertIn("holds Lock", failure.explanation)
        self.assertIn("was blocked when the run ended", failure.explanation)
        self.assertIn("pending", failure.table)

    def test_another_strategy_one_pass(self) -> None:
        result = blanket.check_linearizable(lin_structures.UnlockedCounter,
                                            lin_structures.COUNTER_OPERATIONS,
                                            strategy="random", max_schedules=50)
        self.assertFalse(result.ok)
        self.assertIn("0 of them exhausted", str(result))

    def test_a_bounded_check_minimizes_within_its_bound(self) -> None:
        result = blanket.check_linearizable(lin_structures.UnlockedCounter,
                                            lin_structures.COUNTER_OPERATIONS,
                                            max_preemptions=1)
        assert result.failure is not None
        self.assertEqual([len(ops) for ops in result.failure.workload.threads], [1, 1])

    def test_a_factory_that_raises_in_the_run_is_an_error_not_a_verdict(self) -> None:
        # Before, an "exception" failure: the object under test was blamed.
        MadeOnce.made = 0
        with quiet_thread_errors(), self.assertRaises(blanket.LinearizabilityError) as raised:
            blanket.check_linearizable(MadeOnce, lin_structures.COUNTER_OPERATIONS)
        self.assertIn("make=MadeOnce raised RuntimeError('made twice') on its call number 2",
                      str(raised.exception))
        self.assertIsInstance(raised.exception.__cause__, RuntimeError)

    def test_a_model_closed_twice_has_no_thread_to_end(self) -> None:
        model = Model(lin_structures.LockedCounter)
        self.assertEqual(model.outcome([blanket.Operation("get")]).value, 0)
        model.close()
        model.close()
        self.assertIsNone(model._runner)

    def test_a_bounded_check_says_so(self) -> None:
        result = blanket.check_linearizable(lin_structures.LockedCounter,
                                            lin_structures.COUNTER_OPERATIONS,
                                            max_preemptions=1, scenarios=2)
        self.assertIn("at most 1 preemption(s) (bounded", str(result))

    def test_the_source_names_what_it_can_and_says_what_it_cannot(self) -> None:
        ops = [functools.partial(lin_structures.UnlockedCounter.increment)]
        result = blanket.check_linearizable(lin_structures.UnlockedCounter, ops,
                                            model=lin_structures.LockedCounter,
                                            partition=lin_structures.one_part)
        assert result.failure is not None
        source = result.failure.source
        self.assertIn("has no name to import it by", source)
        self.assertIn("model=LockedCounter, partition=one_part", source)

    def test_an_operation_that_raises_what_is_no_result_is_an_exception_failure(self) -> None:
        class Quits(lin_structures.LockedCounter):
            def quit(self) -> None:
                raise SystemExit(3)  # not an Exception: its thread dies of it

        with quiet_thread_errors():
            result = blanket.check_linearizable(Quits, [blanket.Operation("quit")],
                                                threads=1, operations_per_thread=1)
        assert result.failure is not None
        self.assertEqual(result.failure.kind, "exception")
        self.assertIn("SystemExit: 3", result.failure.explanation)

    def test_a_replay_that_passes_is_said(self) -> None:
        passed = Replay(None, 0, "step 1 could not go", ())
        with mock.patch.object(check, "replay", return_value=passed):
            result = blanket.check_linearizable(lin_structures.UnlockedCounter,
                                                lin_structures.COUNTER_OPERATIONS)
        assert result.failure is not None
        self.assertIn("the replay of this schedule did not fail: step 1 could not go",
                      result.failure.explanation)


class Passes(unittest.TestCase):
    """The first pass over the scenarios runs the first schedules of each
    one's search (:data:`check.FIRST_PASS`); the second takes each search
    on from there. A scenario whose search ended in the first pass is not
    run again, and no run is made twice."""

    def test_the_second_pass_takes_the_first_s_searches_on(self) -> None:
        begun: list[tuple[object, bool, int]] = []
        resumed: list[tuple[int, bool, int]] = []
        runs: list[int] = []
        resume, run = search.Search.resume, searching.Searching.run

        def explore(setup: object, **options: object) -> blanket.Exploration:
            found = blanket.explore(setup, **options)  # type: ignore[arg-type]
            begun.append((options["max_schedules"], found.exhausted, found.count))
            runs.append(found.runs)
            return found

        def taken_on(self: search.Search, max_schedules: int, *args: Any,
                     **kwargs: Any) -> blanket.Exploration:
            before = self.searching.result.runs if self.searching else 0
            found = resume(self, max_schedules, *args, **kwargs)
            resumed.append((max_schedules, found.exhausted, found.count))
            runs.append(found.runs - before)
            return found

        made: list[object] = []

        def counted(self: searching.Searching, choose: Any) -> Any:
            made.append(choose)
            return run(self, choose)
        with mock.patch.object(check, "explore", explore), \
                mock.patch.object(search.Search, "resume", taken_on), \
                mock.patch.object(searching.Searching, "run", counted):
            result = blanket.check_linearizable(
                lin_structures.LockedCounter, lin_structures.COUNTER_OPERATIONS, scenarios=10)
        self.assertTrue(result.ok, result)
        self.assertEqual({cap for cap, _, _ in begun}, {check.FIRST_PASS})
        self.assertEqual(len(begun), 10)
        whole = [count for _, exhausted, count in begun if exhausted]
        # Some scenarios' orders are more than the first pass runs, some not.
        self.assertTrue(0 < len(whole) < 10, begun)
        self.assertEqual(len(resumed), 10 - len(whole))
        self.assertEqual({(cap, exhausted) for cap, exhausted, _ in resumed}, {(10_000, True)})
        self.assertEqual(result.exhausted, [True] * 10)
        self.assertEqual(result.schedules, sum(whole) + sum(count for _, _, count in resumed))
        self.assertEqual(sum(runs), len(made))  # no run made twice
        self.assertIn("every one's whole space", str(result))

    def test_a_bound_within_the_first_pass_s_makes_one_pass(self) -> None:
        given: list[object] = []

        def explore(setup: object, **options: object) -> blanket.Exploration:
            given.append(options["max_schedules"])
            return blanket.explore(setup, **options)  # type: ignore[arg-type]

        def taken_on(self: search.Search, max_schedules: int, *args: Any,
                     **kwargs: Any) -> blanket.Exploration:
            given.append(("resumed", max_schedules))
            return resume(self, max_schedules, *args, **kwargs)
        resume = search.Search.resume
        with mock.patch.object(check, "explore", explore), \
                mock.patch.object(search.Search, "resume", taken_on):
            result = blanket.check_linearizable(
                lin_structures.LockedCounter, lin_structures.COUNTER_OPERATIONS, scenarios=3,
                max_schedules=check.FIRST_PASS)
        self.assertTrue(result.ok, result)
        self.assertEqual(given, [check.FIRST_PASS] * 3)
        self.assertEqual(result.scenarios, 3)


class LruShapes(unittest.TestCase):
    """The locked LRU caches of tests/lru_shapes.py (boltons' and cachetools'
    shapes, whose check times issue 32 sets targets for) are linearizable."""

    def test_both_shapes_are_linearizable(self) -> None:
        for make, operations in ((lru_shapes.LinkedLRU, lru_shapes.LINKED_OPERATIONS),
                                 (lru_shapes.Squares, lru_shapes.CACHED_OPERATIONS)):
            with self.subTest(make.__name__):
                result = blanket.check_linearizable(make, operations, scenarios=3)
                self.assertTrue(result.ok, result)
                self.assertEqual(result.exhausted, [True] * 3)


class Clock:
    """A ``time`` module whose clock moves only when told."""

    def __init__(self, ticks: float = 0.0) -> None:
        self.now, self.ticks = 0.0, ticks

    def monotonic(self) -> float:
        self.now += self.ticks
        return self.now


class Budget(unittest.TestCase):
    """``max_seconds``: the check stops once its time is spent, and says so
    (issue 32)."""

    def test_the_check_stops_between_scenarios(self) -> None:
        clock, given, ended = Clock(), [], []

        def explore(setup: object, **options: object) -> blanket.Exploration:
            given.append(options.pop("max_seconds"))
            result = blanket.explore(setup, **options)  # type: ignore[arg-type]
            ended.append(result.exhausted)
            clock.now += 1.0  # each scenario takes a second
            return result
        with mock.patch.object(seconds, "time", clock), \
                mock.patch.object(check, "explore", explore):
            result = blanket.check_linearizable(
                lin_structures.LockedCounter, lin_structures.COUNTER_OPERATIONS,
                scenarios=10, max_seconds=2.5)
        self.assertEqual(given, [2.5, 1.5, 0.5])  # each exploration, what is left
        self.assertEqual((result.scenarios, result.stopped), (3, "max_seconds=2.5"))
        # Each as far as the first pass ran it: whole only if its search ended.
        self.assertEqual(result.exhausted, ended)
        self.assertIn(False, ended)
        self.assertTrue(result.ok)
        self.assertIn("; stopped by max_seconds=2.5 with scenarios left; linearizable",
                      str(result))

    def test_an_exploration_cut_short_stops_the_check(self) -> None:
        # Every look at the search's clock is a second later than the last:
        # its first run spends the budget.
        with mock.patch.object(seconds, "time", Clock(ticks=1.0)):
            result = blanket.check_linearizable(
                lin_structures.LockedCounter, lin_structures.COUNTER_OPERATIONS,
                scenarios=10, max_seconds=0.5)
        self.assertEqual((result.scenarios, result.schedules), (1, 1))
        self.assertEqual((result.exhausted, result.stopped), ([False], "max_seconds=0.5"))

    def test_a_failure_found_as_time_runs_out_is_reported_unminimized(self) -> None:
        clock = Clock()

        def explore(setup: object, **options: object) -> blanket.Exploration:
            result = blanket.explore(setup, **options)  # type: ignore[arg-type]
            clock.now += 10.0
            return result
        with mock.patch.object(seconds, "time", clock), \
                mock.patch.object(check, "explore", explore):
            result = blanket.check_linearizable(
                lin_structures.UnlockedCounter, [blanket.Operation("increment")],
                max_seconds=5.0)
        failure = result.failure
        assert failure is not None
        self.assertEqual(failure.stopped, 0)
        self.assertIn("(minimization stopped after 0 tries: the failure may not be the "
                      "smallest)", failure.explanation)

    def test_a_budget_that_is_no_number_of_seconds_is_refused(self) -> None:
        for value, error in ((0.0, ValueError), (float("inf"), ValueError), ("1", TypeError)):
            with self.subTest(value=value), self.assertRaisesRegex(
                    error, "^max_seconds is a"), unchecked():
                blanket.check_linearizable(lin_structures.LockedCounter,
                                           lin_structures.COUNTER_OPERATIONS,
                                           max_seconds=value)


class NothingLeftRunning(unittest.TestCase):
    """Before, every check and every replay left a "blanket-model" thread
    asleep (the specification's): a thread leaked per test."""

    def assert_no_thread_left(self, run: object) -> None:
        before = set(threading.enumerate())
        assert callable(run)
        run()
        self.assertEqual([t.name for t in threading.enumerate() if t not in before], [])

    def test_a_check(self) -> None:
        self.assert_no_thread_left(lambda: blanket.check_linearizable(
            lin_structures.LockedCounter, lin_structures.COUNTER_OPERATIONS, scenarios=2))

    def test_a_check_whose_specification_blocks(self) -> None:
        # Before, each call of the specification that blocked (a get of an
        # empty queue) left its thread waiting for good: 17 in this check.
        make, operations = lin_structures.CORRECT["blocking queue"]
        self.assert_no_thread_left(lambda: blanket.check_linearizable(
            make, operations, scenarios=6))

    def test_a_check_that_raises(self) -> None:
        self.assert_no_thread_left(lambda: self.assertRaises(
            blanket.LinearizabilityError, blanket.check_linearizable,
            lin_structures.LockedCounter, lin_structures.COUNTER_OPERATIONS,
            model=NoIncrement))

    def test_the_runs_of_a_workload_s_own_setup(self) -> None:
        operations = lin_structures.COUNTER_OPERATIONS
        workload = Workload([[operations[0]], [operations[-1]]])
        self.assert_no_thread_left(lambda: blanket.explore(
            workload.setup(lin_structures.LockedCounter)))


# -- hardening: long histories, bounded minimization, errors instead of verdicts --------

def sequential_history(operations: list[object], results: list[object]) -> History:
    """Calls one after the other, each with its result."""
    record = History(len(operations))
    for call, value in enumerate(results):
        record.begin(call)
        record.end(call, Outcome(False, value))
    return record


class LongHistories(unittest.TestCase):
    """Before, the search recursed once per call: a history of about a
    thousand calls raised RecursionError, a false "not linearizable"."""

    def test_a_history_of_thousands_of_calls_is_checked(self) -> None:
        inc, get = lin_structures.COUNTER_OPERATIONS
        operations = [inc, get] * 2500
        results = [value for count in range(1, 2501) for value in (count, count)]
        specification = Specification(lin_structures.LockedCounter, operations)
        self.assertTrue(specification.check(sequential_history(operations, results)).ok)
        results[-1] = 7  # the last get: not what the counter holds
        verdict = specification.check(sequential_history(operations, results))
        self.assertFalse(verdict.ok)
        self.assertEqual((len(verdict.divergences[0][0]), verdict.divergences[0][1]),
                         (4999, 4999))

    def test_a_state_met_again_by_another_order_is_not_searched_again(self) -> None:
        # Seven gets and an increment all at once, then a get no order explains:
        # every order of the eight is tried before, as many subsets now.
        inc, get = lin_structures.COUNTER_OPERATIONS
        operations = [inc] + [get] * 7 + [get]
        record = History(9)
        for call in range(8):
            record.begin(call)
        record.end(0, Outcome(False, 1))
        for call in range(1, 8):
            record.end(call, Outcome(False, 0))
        record.begin(8)
        record.end(8, Outcome(False, 5))
        verdict = Specification(lin_structures.LockedCounter, operations).check(record)
        self.assertFalse(verdict.ok)
        self.assertLessEqual(verdict.tried, 2 ** 8 * 9)  # 8! orders: 40320 and more before

    def test_a_correct_counter_of_500_operations_a_thread_passes(self) -> None:
        inc, get = lin_structures.COUNTER_OPERATIONS
        workload = Workload([[inc, get] * 250, [get, inc] * 250])
        exploration = blanket.explore(workload.setup(lin_structures.LockedCounter),
                                      max_schedules=1)
        failure = exploration.failure
        self.assertTrue(failure is None, failure and failure.message[-300:])


class BoundedMinimization(unittest.TestCase):
    """Before, the minimization dropped one call at a time, each smaller
    scenario explored in full, with no bound: a racy counter of 200 calls a
    thread had no answer after 240 s."""

    def test_a_large_scenario_shrinks_by_halves(self) -> None:
        explored: list[Workload] = []
        real = check._Options.explore

        def counted(options: check._Options, workload: Workload,
                    **bounds: object) -> tuple[blanket.Exploration, object]:
            explored.append(workload)
            return real(options, workload, **bounds)

        with mock.patch.object(check._Options, "explore", counted):
            result = blanket.check_linearizable(
                lin_structures.UnlockedCounter, [lin_structures.COUNTER_OPERATIONS[0]],
                operations_per_thread=32, scenarios=1)
        failure = result.failure
        assert failure is not None
        self.assertEqual([len(ops) for ops in failure.workload.threads], [1, 1])
        self.assertIsNone(failure.stopped)
        self.assertLessEqual(len(explored), 30)  # one call at a time: 60 and more

    def test_a_minimization_stops_at_its_bound_and_says_so(self) -> None:
        for name, value, tries in (("MINIMIZE_TRIES", 2, 2), ("MINIMIZE_SECONDS", 0.0, 0)):
            with self.subTest(name), mock.patch.object(check, name, value):
                result = blanket.check_linearizable(
                    lin_structures.UnlockedCounter, lin_structures.COUNTER_OPERATIONS,
                    operations_per_thread=4, scenarios=1)
            failure = result.failure
            assert failure is not None
            self.assertEqual(failure.stopped, tries)
            self.assertIn(f"minimization stopped after {tries} tries: the failure may not "
                          "be the smallest", str(failure))

    def test_the_search_for_fewer_preemptions_is_bounded_too(self) -> None:
        preemptions = check._preemptions

        def many(exploration: blanket.Exploration) -> int:
            return preemptions(exploration) + 5

        with mock.patch.object(check, "_preemptions", many), \
                mock.patch.object(check, "MINIMIZE_TRIES", 4):
            result = blanket.check_linearizable(lin_structures.UnlockedCounter,
                                                lin_structures.COUNTER_OPERATIONS)
        assert result.failure is not None
        self.assertEqual(result.failure.stopped, 4)


class NoIncrement:
    """A model without the operation checked."""

    def get(self) -> int:
        return 0


class ThirdTimeFails(lin_structures.LockedCounter):
    """A factory that raises from its third call."""

    made = 0

    def __init__(self) -> None:
        super().__init__()
        ThirdTimeFails.made += 1
        if ThirdTimeFails.made >= 3:
            raise OSError("out of handles")


class IncomparableCounter(lin_structures.LockedCounter):
    """Returns values whose == raises."""

    def peek(self) -> Incomparable:
        return Incomparable()


#: Set by the test that a model blocks on: nothing of the model's own.
OUTSIDE = threading.Event()


class WaitsOutside(lin_structures.LockedCounter):
    """A model whose get waits for what its own primitives are not."""

    def get(self) -> int:
        OUTSIDE.wait()
        return super().get()


class SlowFirstCall(lin_structures.LockedCounter):
    """A correct model whose first call ever takes longer than half a second."""

    slow = True

    def increment(self) -> int:
        if SlowFirstCall.slow:
            SlowFirstCall.slow = False
            threading.Event().wait(0.6)  # slow: not blocked
        return super().increment()


class ErrorsNotVerdicts(unittest.TestCase):
    """What the check was given failing is a LinearizabilityError: before,
    each of these was a "not linearizable" of correct code."""

    def test_a_model_without_the_operation(self) -> None:
        with self.assertRaises(blanket.LinearizabilityError) as raised:
            blanket.check_linearizable(lin_structures.LockedCounter,
                                       lin_structures.COUNTER_OPERATIONS, model=NoIncrement)
        self.assertIn("the specification's increment() raised AttributeError(",
                      str(raised.exception))
        self.assertIsInstance(raised.exception.__cause__, AttributeError)

    def test_the_model_s_other_exceptions_are_results(self) -> None:
        ops = [blanket.Operation("append", 1), blanket.Operation("pop")]
        result = blanket.check_linearizable(list, ops, scenarios=3)  # pop() of []: IndexError
        self.assertTrue(result.ok, str(result))

    def test_a_factory_that_raises_from_its_third_call(self) -> None:
        ThirdTimeFails.made = 0
        with quiet_thread_errors(), self.assertRaises(blanket.LinearizabilityError) as raised:
            blanket.check_linearizable(ThirdTimeFails, lin_structures.COUNTER_OPERATIONS)
        self.assertIn("make=ThirdTimeFails raised OSError('out of handles') on its call "
                      "number 3", str(raised.exception))

    def test_a_model_factory_that_raises(self) -> None:
        def broken() -> object:
            raise KeyError("no model")

        with self.assertRaises(blanket.LinearizabilityError) as raised:
            blanket.check_linearizable(lin_structures.LockedCounter,
                                       lin_structures.COUNTER_OPERATIONS, model=broken)
        self.assertIn("model=", str(raised.exception))
        self.assertIn("broken raised KeyError('no model') on its call number 1",
                      str(raised.exception))
        model = Model(broken)
        with self.assertRaises(blanket.LinearizabilityError) as raised:
            model.outcome([blanket.Operation("get")])
        self.assertIn("the specification's factory ErrorsNotVerdicts", str(raised.exception))
        with self.assertRaises(blanket.LinearizabilityError):  # the same, at once
            Specification(model, [blanket.Operation("get")]).check(History(1))
        model.close()

    def test_results_whose_comparison_raises(self) -> None:
        with self.assertRaises(blanket.LinearizabilityError) as raised:
            blanket.check_linearizable(IncomparableCounter, [blanket.Operation("peek")],
                                       threads=1, operations_per_thread=1)
        self.assertIn("comparing A1 peek()'s result -> <", str(raised.exception))
        self.assertIn("raised TypeError('no')", str(raised.exception))

    def test_a_model_that_is_not_deterministic(self) -> None:
        values = iter(range(100))
        model = Model(lambda: types.SimpleNamespace(value=lambda: next(values)))
        value, again = blanket.Operation("value"), blanket.Operation("value")
        self.assertEqual(model.outcome([value]).value, 0)
        self.assertEqual(model.outcome([again]).value, 1)  # another branch: a fresh object
        with self.assertRaises(blanket.LinearizabilityError) as raised:
            model.outcome([value, value])  # [value]'s state made again: not 0 now
        self.assertIn("not deterministic: value() -> 2 after 1 call(s) on a fresh object, "
                      "-> 0 the first time", str(raised.exception))
        model.close()

    def test_a_slow_model_is_not_a_blocking_one(self) -> None:
        SlowFirstCall.slow = True
        result = blanket.check_linearizable(lin_structures.LockedCounter,
                                            lin_structures.COUNTER_OPERATIONS,
                                            model=SlowFirstCall, scenarios=2)
        self.assertFalse(SlowFirstCall.slow)
        self.assertTrue(result.ok, str(result))  # before: "the specification blocks"

    def test_a_model_that_waits_for_good_outside_is_an_error_naming_the_call(self) -> None:
        before = set(threading.enumerate())
        try:
            with self.assertRaises(blanket.LinearizabilityError) as raised:
                blanket.check_linearizable(lin_structures.LockedCounter,
                                           lin_structures.COUNTER_OPERATIONS,
                                           model=WaitsOutside, timeout=0.5)
            self.assertIn("the specification's get() did not return within 0.5 s",
                          str(raised.exception))
            left = [thread for thread in threading.enumerate() if thread not in before]
            self.assertEqual([(t.name, t.daemon) for t in left], [("blanket-model", True)])
        finally:
            OUTSIDE.set()  # its call returns: the thread it was left to ends
        left[0].join(10)
        self.assertFalse(left[0].is_alive())
        OUTSIDE.clear()


class CountsOutOfRange(unittest.TestCase):
    def test_counts_out_of_range_are_refused_naming_the_argument(self) -> None:
        ops = lin_structures.COUNTER_OPERATIONS
        make = lin_structures.LockedCounter
        for kwargs, error, message in (
                ({"threads": 27}, ValueError, "threads=27: expected at least 1 and at most 26"),
                ({"threads": 2 ** 70}, ValueError, "threads="),
                ({"operations_per_thread": 0}, ValueError, "operations_per_thread=0"),
                ({"operations_per_thread": 10 ** 6}, ValueError, "at most 100000"),
                ({"scenarios": 10 ** 9}, ValueError, "scenarios="),
                ({"prefix": -1}, ValueError, "prefix=-1"),
                ({"suffix": 10 ** 6}, ValueError, "suffix="),
                ({"max_schedules": 0}, ValueError, "max_schedules=0: expected at least 1"),
                ({"max_schedules": 1.5}, TypeError, "max_schedules=1.5: expected an int"),
                ({"max_preemptions": -1}, ValueError, "max_preemptions=-1"),
                ({"max_preemptions": "2"}, TypeError, "expected an int or None"),
                ({"seed": None}, TypeError, "seed=None"),
                ({"timeout": 0}, ValueError, "timeout is a finite number of seconds")):
            with self.subTest(kwargs), self.assertRaises(error) as raised, unchecked():
                blanket.check_linearizable(make, ops, **kwargs)
            self.assertIn(message, str(raised.exception))

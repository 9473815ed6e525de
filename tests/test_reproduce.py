"""The generated replaying tests (blanket.reproduce): their text, that they
run and fail the same way, Scenario.primitive (by which they find the
primitives), and ScenarioTestCase.explore."""

from __future__ import annotations

import types
import unittest
from collections.abc import Callable
from typing import Any

import blanket
from blanket import Scenario
from blanket.explore import Step
from blanket.reproduce import _identifier, _step_lines

from . import explore_bugs as bugs
from .support import quiet_thread_errors, unchecked

BOUND = 5.0  # every wait of these tests ends well within it


def failure_of(setup: Callable[[Scenario], Any], **options: Any) -> blanket.Failure:
    options.setdefault("timeout", BOUND)
    with quiet_thread_errors():
        failure = blanket.explore(setup, **options).failure
    assert failure is not None
    return failure


def replay(source: str, **names: Any) -> unittest.TestResult:
    """Compile *source* (with *names* defined), run its test; the result."""
    module = types.ModuleType("replay")
    module.__dict__.update(names)
    exec(compile(source, "<generated test>", "exec"), module.__dict__)  # noqa: S102
    [case] = [value for value in vars(module).values() if isinstance(value, type)
              and issubclass(value, blanket.ScenarioTestCase)
              and value is not blanket.ScenarioTestCase]
    result = unittest.TestResult()
    with quiet_thread_errors():
        case("test_schedule").run(result)
    return result


def only_problem(result: unittest.TestResult) -> str:
    problems = result.failures + result.errors
    assert len(problems) == 1, problems
    return problems[0][1]


def _timed_wait(scenario: Scenario, expected: bool) -> Callable[[], None]:
    ready = scenario.Condition()
    woken: list[bool] = []

    def wait() -> None:
        with ready:
            woken.append(ready.wait(60))

    def notify() -> None:
        with ready:
            ready.notify()

    scenario.thread(wait)
    scenario.thread(notify)

    def as_expected() -> None:
        assert woken == [expected], woken
    return as_expected


def timed_wait_that_must_not_time_out(scenario: Scenario) -> Callable[[], None]:
    """A wait whose timeout running out breaks the invariant."""
    return _timed_wait(scenario, True)


def timed_wait_that_must_time_out(scenario: Scenario) -> Callable[[], None]:
    """A wait whose being notified in time breaks the invariant."""
    return _timed_wait(scenario, False)


def broken_invariant(scenario: Scenario) -> Callable[[], None]:
    def never() -> None:
        raise AssertionError("never holds")
    return never


def raise_in_a_wait(scenario: Scenario) -> None:
    """A notified waiter that wakes to find nothing (the if-not-while bug
    with one item): the woken thread resumes, then fails."""
    ready = scenario.Condition(scenario.Lock())
    items: list[int] = []

    def consume() -> None:
        with ready:
            if not items:
                ready.wait()
            items.pop()

    def produce() -> None:
        with ready:
            ready.notify()

    scenario.thread(consume)
    scenario.thread(produce)


class GeneratedSource(unittest.TestCase):
    def test_an_invariant_failure_replays(self) -> None:
        failure = failure_of(bugs.check_then_act)
        self.assertIn("from tests.explore_bugs import check_then_act", failure.source)
        self.assertIn("class TestCheckThenActSchedule(blanket.ScenarioTestCase):",
                      failure.source)
        self.assertIn('"""AssertionError: overdrawn: balance -60"""', failure.source)
        self.assertIn("        if invariant is not None:\n            invariant()\n",
                      failure.source)
        self.assertIn("overdrawn: balance -60", only_problem(replay(failure.source)))

    def test_a_deadlock_replays_with_assert_no_deadlock(self) -> None:
        failure = failure_of(bugs.abba)
        self.assertIn("            self.assertNoDeadlock()\n", failure.source)
        self.assertIn("from blanket import Parked\n", failure.source)
        problem = only_problem(replay(failure.source))
        self.assertIn("deadlock: A holds Lock 1 and waits for Lock 2", problem)

    def test_a_resumed_wait_replays_with_unstall(self) -> None:
        failure = failure_of(raise_in_a_wait)
        self.assertEqual(failure.kind, "exception")
        self.assertIn("scenario.api(condition_1).unstall(condition_1.wait, A)",
                      failure.source)
        self.assertIn("tx = scenario.skip(A, condition_1.wait)[A]", failure.source)
        self.assertIn("scenario.wait(Waiting(tx))", failure.source)
        self.assertIn("from blanket import Parked, Waiting", failure.source)
        self.assertIn("IndexError", only_problem(replay(
            failure.source, raise_in_a_wait=raise_in_a_wait)))

    def test_an_expired_timeout_replays(self) -> None:
        setup = timed_wait_that_must_not_time_out
        failure = failure_of(setup)
        self.assertEqual(failure.kind, "invariant")
        self.assertEqual([step.mark for step in failure.schedule][:2], ["A", "A*"])
        self.assertIn("scenario.api(condition_1).expire(condition_1.wait, A)",
                      failure.source)
        problem = only_problem(replay(failure.source, **{setup.__name__: setup}))
        self.assertIn("[False]", problem)

    def test_a_disregarded_timeout_replays(self) -> None:
        setup = timed_wait_that_must_time_out
        failure = failure_of(setup)
        self.assertEqual(failure.kind, "invariant")
        step = next(step for step in failure.schedule if step.call == "Condition.wait")
        self.assertTrue(step.disregarded)
        self.assertEqual(str(step), "A: Condition 1 Condition.wait (timeout disregarded)")
        self.assertIn("scenario.api(condition_1).disregard(condition_1.wait, A)",
                      failure.source)
        problem = only_problem(replay(failure.source, **{setup.__name__: setup}))
        self.assertIn("[True]", problem)

    def test_a_setup_that_is_not_importable_is_named_in_a_comment(self) -> None:
        def local_setup(scenario: Scenario) -> Callable[[], None]:
            return broken_invariant(scenario)

        failure = failure_of(local_setup)
        self.assertEqual(failure.schedule, ())
        source = failure.source
        self.assertIn(
            "# GeneratedSource.test_a_setup_that_is_not_importable_is_named_in_a_comment."
            "<locals>.local_setup is not importable: define it at module level, then\n"
            f"# from {__name__} import local_setup\n", source)
        self.assertIn("class TestLocalSetupSchedule", source)
        # No threads, no steps: nothing to name or wait for.
        self.assertNotIn("scenario.managed", source)
        self.assertNotIn("from blanket import", source)
        self.assertIn("        with scenario:\n            pass\n", source)
        self.assertIn("never holds", only_problem(replay(source, local_setup=local_setup)))

    def test_a_setup_without_a_qualified_name(self) -> None:
        class Setup:
            """A callable object: no __qualname__ of its own."""

            def __call__(self, scenario: Scenario) -> Callable[[], None]:
                return broken_invariant(scenario)

        setup = Setup()
        with unchecked():
            failure = failure_of(setup, name="callable")  # type: ignore[arg-type]
        self.assertIn("invariant = setup(scenario)", failure.source)
        self.assertIn("class TestSetupSchedule", failure.source)

    def test_one_thread_unpacks_as_a_tuple(self) -> None:
        def alone(scenario: Scenario) -> None:
            lock = scenario.Lock()

            def fail() -> None:
                with lock:
                    raise RuntimeError("alone")
            scenario.thread(fail)

        failure = failure_of(alone)
        self.assertIn("        A, = scenario.managed\n        A.name = 'A'\n", failure.source)


class StepLines(unittest.TestCase):
    """One step's lines, for each kind of step."""

    names = {"Lock 1": "lock_1", "ready": "ready"}

    def test_a_call_let_go(self) -> None:
        step = Step("A", "Lock.acquire", "Lock 1", "BLOCKED", settled=(("A", "parked"),))
        self.assertEqual(_step_lines(step, self.names),
                         ["scenario.skip(A, lock_1.acquire)", "scenario.wait(Parked(A))"])

    def test_a_call_that_wakes_another_thread_into_a_sleep(self) -> None:
        step = Step("B", "Condition.notify", "ready", "BLOCKED",
                    settled=(("A", "waiting"), ("B", "parked")))
        self.assertEqual(_step_lines(step, self.names), [
            "scenario.skip(B, ready.notify)",
            "scenario.wait(Waiting(scenario.transaction(A)))",
            "scenario.wait(Parked(B))"])

    def test_a_resumed_wait_that_sleeps_again(self) -> None:
        step = Step("A", "Condition.wait", "ready", "STALLED", settled=(("A", "waiting"),))
        self.assertEqual(_step_lines(step, self.names), [
            "scenario.api(ready).unstall(ready.wait, A)",
            "scenario.wait(Waiting(scenario.transaction(A)))"])

    def test_timeouts(self) -> None:
        expired = Step("A", "Lock.acquire", "Lock 1", "BLOCKED", expired=True)
        disregarded = Step("A", "Lock.acquire", "Lock 1", "BLOCKED", disregarded=True)
        self.assertEqual(_step_lines(expired, self.names)[0],
                         "scenario.api(lock_1).expire(lock_1.acquire, A)")
        self.assertEqual(_step_lines(disregarded, self.names)[0],
                         "scenario.api(lock_1).disregard(lock_1.acquire, A)")

    def test_identifiers_for_labels(self) -> None:
        taken = {"A", "lock_1"}
        self.assertEqual(_identifier("Lock 2", taken), "lock_2")
        self.assertEqual(_identifier("Lock 1", taken), "lock_1_2")
        self.assertEqual(_identifier("Lock 1", taken), "lock_1_3")
        self.assertEqual(_identifier("2nd lock", taken), "p_2nd_lock")
        self.assertEqual(_identifier("class", taken), "p_class")
        self.assertEqual(_identifier("***", taken), "primitive")


class PrimitiveLookup(unittest.TestCase):
    def test_by_label_and_by_name(self) -> None:
        scenario = Scenario("lookup")
        first, second = scenario.Lock(), scenario.Lock()
        ready = scenario.Condition(first)
        self.assertIs(scenario.primitive("Lock 1"), first)
        self.assertIs(scenario.primitive("Lock 2"), second)
        self.assertIs(scenario.primitive("Condition 1"), ready)
        scenario.api(second).name = "accounts"
        self.assertIs(scenario.primitive("accounts"), second)
        self.assertIs(scenario.primitive("Lock 2"), second)  # its label still finds it

    def test_none_or_several_is_a_lookup_error(self) -> None:
        scenario = Scenario("lookup")
        first, second = scenario.Lock(), scenario.Lock()
        with self.assertRaises(LookupError) as caught:
            scenario.primitive("Lock 3")
        self.assertEqual(str(caught.exception),
                         "no primitive of scenario 'lookup' named or labelled 'Lock 3'")
        scenario.api(first).name = scenario.api(second).name = "twin"
        with self.assertRaises(LookupError) as caught:
            scenario.primitive("twin")
        self.assertEqual(str(caught.exception),
                         "2 primitives of scenario 'lookup' named or labelled 'twin'")


class ExploreInATestCase(unittest.TestCase):
    def test_a_failure_fails_the_test_with_the_schedule_and_a_replaying_test(self) -> None:
        class Case(blanket.ScenarioTestCase):
            stall_timeout = BOUND

            def test_abba(self) -> None:
                self.explore(bugs.abba)

        result = unittest.TestResult()
        with quiet_thread_errors():
            Case("test_abba").run(result)
        self.assertEqual(result.errors, [])
        [(_, message)] = result.failures
        self.assertIn("a failure: deadlock: A holds Lock 1 and waits for Lock 2", message)
        self.assertNotIn("deadlock: deadlock:", message)
        self.assertIn("schedule:\n  1. A: Lock 1 Lock.acquire\n  2. B: Lock 2 Lock.acquire",
                      message)
        self.assertIn("a test that replays it:\n\n\"\"\"Replays a schedule", message)
        self.assertIn("class TestAbbaSchedule(blanket.ScenarioTestCase):", message)

    def test_a_clean_search_returns_the_exploration(self) -> None:
        seen: list[blanket.Exploration] = []

        class Case(blanket.ScenarioTestCase):
            stall_timeout = BOUND

            def test_fixed(self) -> None:
                seen.append(self.explore(bugs.abba_fixed, max_preemptions=2))

        result = unittest.TestResult()
        Case("test_fixed").run(result)
        self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
        [exploration] = seen
        self.assertTrue(exploration.ok)
        self.assertTrue(exploration.exhausted)
        self.assertEqual(exploration.count, 2)


if __name__ == "__main__":  # pragma: no cover
    unittest.main()

"""The generated replaying tests (blanket.exploration.reproduce): their text, that they
run and fail the same way, Scenario.primitive (by which they find the
primitives), and ScenarioTestCase.explore."""

from __future__ import annotations

import functools
import importlib.machinery
import linecache
import sys
import tempfile
import types
import unittest
import unittest.mock
from collections.abc import Callable
from pathlib import Path
from typing import Any

import blanket
from blanket import Scenario
from blanket.exploration import reproduce
from blanket.exploration.reproduce import lambda_text
from blanket.exploration.tried import untried

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


def fixed_source(source: str, buggy: str, fixed: str) -> str:
    """*source* importing the *fixed* setup under the buggy one's name: the
    same test, once the user has fixed the code."""
    line = f"from tests.explore_bugs import {buggy}\n"
    assert line in source, source
    return source.replace(line, f"from tests.explore_bugs import {fixed} as {buggy}\n")


class GeneratedSource(unittest.TestCase):
    def test_an_invariant_failure_replays(self) -> None:
        failure = failure_of(bugs.check_then_act)
        self.assertIn("from tests.explore_bugs import check_then_act", failure.source)
        self.assertIn("class TestCheckThenActSchedule(blanket.ScenarioTestCase):",
                      failure.source)
        self.assertIn('"""AssertionError: overdrawn: balance -60"""', failure.source)
        # Each step on its line, with where the code made the call.
        steps = "".join(f"            {str(step)!r},  # {step.made}\n" for step in failure.schedule)
        self.assertIn(f"        self.replay(check_then_act, [\n{steps}        ])\n",
                      failure.source)
        self.assertTrue(all(step.at.startswith("tests/explore_bugs.py:")
                            for step in failure.schedule), failure.schedule)
        self.assertIn("overdrawn: balance -60", only_problem(replay(failure.source)))

    def test_the_replay_fails_on_each_bug_and_passes_once_it_is_fixed(self) -> None:
        # The regression test: generated from the buggy code, it fails there
        # (before, it did not run at all against the fixed code: its script
        # raised ThreadOrderingError at the first call that differed).
        cases = [("check_then_act", "dfs", "overdrawn"), ("abba", "dfs", "deadlock: A holds"),
                 ("if_not_while", "dfs", "IndexError"), ("lost_wakeup", "dfs", "stuck"),
                 ("philosophers", "random", "E holds Lock 5 and waits for Lock 1")]
        for name, strategy, says in cases:
            with self.subTest(name):
                source = failure_of(getattr(bugs, name), strategy=strategy).source
                self.assertIn(says, only_problem(replay(source)))
                fixed = replay(fixed_source(source, name, f"{name}_fixed"))
                self.assertTrue(fixed.wasSuccessful(), fixed.failures + fixed.errors)
                self.assertEqual(fixed.testsRun, 1)

    def test_a_resumed_wait_and_timeouts_replay(self) -> None:
        for setup, says, step in [
                (raise_in_a_wait, "IndexError", "A: Condition 1 Condition.wait resumes"),
                (timed_wait_that_must_not_time_out, "[False]",
                 "A: Condition 1 Condition.wait (expired)"),
                (timed_wait_that_must_time_out, "[True]",
                 "A: Condition 1 Condition.wait (timeout disregarded)")]:
            with self.subTest(setup.__name__), untried():
                # As the search's run met them (shrunk, the rule makes most).
                failure = failure_of(setup)
                self.assertIn(f"from {__name__} import {setup.__name__}\n", failure.source)
                self.assertIn(f"'{step}',", failure.source)
                self.assertIn(says, only_problem(replay(failure.source)))

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
        self.assertIn("        self.replay(local_setup, [])\n", source)
        self.assertIn("never holds", only_problem(replay(source, local_setup=local_setup)))

    def test_a_lambda_is_called_setup_in_valid_python(self) -> None:
        failure = failure_of(lambda scenario: broken_invariant(scenario))
        source = failure.source
        compile(source, "test_written.py", "exec")  # no "self.replay(lambda, [...])"
        self.assertIn("# setup: GeneratedSource.test_a_lambda_is_called_setup_in_valid_python."
                      "<locals>.<lambda> is not importable; define it at module level\n"
                      "# setup = lambda scenario: broken_invariant(scenario)\n"
                      f"# and import it: from {__name__} import setup\n", source)
        self.assertIn("        self.replay(setup, [])\n", source)
        self.assertIn("never holds", only_problem(replay(source, setup=broken_invariant)))

    def test_a_linearizability_check_of_a_lambda_writes_valid_python(self) -> None:
        from . import lin_structures

        result = blanket.check_linearizable(lambda: lin_structures.UnlockedCounter(),
                                            lin_structures.COUNTER_OPERATIONS)
        assert result.failure is not None
        compile(result.failure.source, "test_written.py", "exec")
        self.assertIn("workload.setup(make", result.failure.source)

    def test_two_lambdas_are_two_operations_each_with_its_text(self) -> None:
        from blanket.linearizability import report

        from . import lin_structures

        operations = [lambda c: c.increment(), lambda c: c.get()]
        workload = blanket.Workload([[operations[0]], [operations[0], operations[1]]])
        source = report.source(workload, (), "not linearizable", "",
                               lin_structures.UnlockedCounter, operations, None, None)
        compile(source, "test_written.py", "exec")
        self.assertIn("# operation = lambda c: c.increment()\n", source)
        self.assertIn("# operation_2 = lambda c: c.get()\n", source)
        self.assertIn("# and import it: from tests.test_reproduce import operation_2\n", source)
        self.assertIn("blanket.Workload([[operation], [operation, operation_2]])", source)

    def test_a_lambda_s_text_is_found_where_it_can_be(self) -> None:
        pair = [lambda c: c.pop(), lambda c, k=3: c.get(k,
                                                        "\u00e9")]
        self.assertEqual(lambda_text(pair[0]), "lambda c: c.pop()")
        self.assertEqual(lambda_text(pair[1]), 'lambda c, k=3: c.get(k, "\\u00e9")')
        self.assertIsNone(lambda_text(broken_invariant))  # (not a lambda)
        self.assertIsNone(lambda_text(len))
        self.assertIsNone(lambda_text(eval("lambda q: q")))  # noqa: S307 - (no source)
        namespace: dict[str, Any] = {}
        exec(compile("f = lambda q: q", "<not python now>", "exec"), namespace)  # noqa: S102
        linecache.cache["<not python now>"] = (5, None, ["f = lambda q:\n"], "<not python now>")
        try:
            self.assertIsNone(lambda_text(namespace["f"]))
        finally:
            del linecache.cache["<not python now>"]

    def test_a_setup_without_a_qualified_name(self) -> None:
        class Setup:
            """A callable object: no __qualname__ of its own."""

            def __call__(self, scenario: Scenario) -> Callable[[], None]:
                return broken_invariant(scenario)

        setup = Setup()
        with unchecked():
            failure = failure_of(setup, name="callable")  # type: ignore[arg-type]
        self.assertIn("self.replay(setup, [", failure.source)
        self.assertIn("class TestSetupSchedule", failure.source)
        # Before: "from tests.test_reproduce import setup", a name not there.
        self.assertIn("# the setup, a tests.test_reproduce.GeneratedSource.test_a_setup_"
                      "without_a_qualified_name.<locals>.Setup, has no name to import it by:\n"
                      "# bind it to setup at module level, then import it here, e.g.\n"
                      "# from mymodule import setup\n", failure.source)
        self.assertNotIn("\nfrom ", failure.source)

    def test_a_partial_setup_is_not_imported_from_functools(self) -> None:
        with unchecked():
            failure = failure_of(functools.partial(broken_invariant), name="partial")
        self.assertNotIn("from functools import", failure.source)  # before: it was
        self.assertIn("# the setup, a functools.partial, has no name to import it by:",
                      failure.source)
        self.assertIn("self.replay(setup, [", failure.source)


def in_main(scenario: Scenario) -> Callable[[], None]:
    """A setup that says it was defined in the __main__ module."""
    return broken_invariant(scenario)


in_main.__module__ = "__main__"


class SetupInMain(unittest.TestCase):
    """A setup defined in the script being run is imported by its real name."""

    def source_with_main(self, main: types.ModuleType, holds: bool = True) -> str:
        if holds:  # as a script's module holds what it defines
            main.in_main = in_main  # type: ignore[attr-defined]
        with unittest.mock.patch.dict(sys.modules, {"__main__": main}):
            source = failure_of(in_main).source
        self.assertNotIn("from __main__", source)
        return source

    def test_run_with_dash_m(self) -> None:
        main = types.ModuleType("__main__")
        main.__spec__ = importlib.machinery.ModuleSpec("tools.check", None)
        self.assertIn("\nfrom tools.check import in_main\n", self.source_with_main(main))

    def test_a_doctest_s_function_is_not_imported_from_the_main_module(self) -> None:
        # A doctest's namespace says "__main__", but the main module (here
        # unittest's, run by python -m unittest) holds no such function:
        # importing it from there ran unittest's main program.
        main = types.ModuleType("__main__")
        main.__spec__ = importlib.machinery.ModuleSpec("unittest.__main__", None)
        source = self.source_with_main(main, holds=False)
        self.assertIn("# in_main is not unittest.__main__.in_main: define it at module level",
                      source)
        self.assertNotIn("\nfrom ", source)

    def test_run_by_its_path(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            package = Path(folder) / "proj" / "scripts"
            package.mkdir(parents=True)
            (package / "__init__.py").write_text("")
            main = types.ModuleType("__main__")
            main.__spec__ = None
            main.__file__ = str(package / "check.py")
            source = self.source_with_main(main)
        self.assertIn(f"# in_main is defined in {main.__file__}, run as a script: its "
                      "folder must be\n# on sys.path, and its top level guarded by "
                      "if __name__ == '__main__'.\nfrom scripts.check import in_main\n",
                      source)

    def test_typed_in_at_the_prompt(self) -> None:
        main = types.ModuleType("__main__")
        main.__spec__ = None
        source = self.source_with_main(main)
        self.assertIn("# in_main was defined in the interactive session: move it to a "
                      "module your tests\n# can import, then import it here, e.g.\n"
                      "# from mymodule import in_main\n", source)


def timed_event_wait(scenario: Scenario) -> Callable[[], None]:
    """A waits on an event nobody sets, with a timeout: it must time out."""
    event = scenario.Event()
    got: list[bool] = []
    scenario.thread(lambda: got.append(event.wait(60)))

    def timed_out() -> None:
        assert got == [False], got
    return timed_out


class Replaying(unittest.TestCase):
    """blanket.exploration.reproduce.replay and ScenarioTestCase.replay."""

    def test_the_schedule_then_the_rule(self) -> None:
        result = reproduce.replay(bugs.check_then_act_fixed,
                                  ["A: Lock 1 Lock.acquire", "B: Lock 1 Lock.acquire"],
                                  timeout=BOUND)
        self.assertIsNone(result.failure)
        self.assertEqual(result.followed, 1)
        self.assertEqual(result.diverged, "step 2 (B: Lock 1 Lock.acquire) could not go; "
                                          "the calls that could: A: Lock 1 Lock.release")
        self.assertEqual([step.mark for step in result.steps], ["A", "A", "B", "B"])
        self.assertTrue(str(result).startswith(
            "the replay passed: it followed 1 step(s) of the schedule, then step 2 "))
        self.assertIn("steps:\n  1. A: Lock 1 Lock.acquire\n  2. A: Lock 1 Lock.release",
                      str(result))

    def test_a_failing_replay_says_how_far_it_followed(self) -> None:
        failure = failure_of(bugs.check_then_act)
        with quiet_thread_errors():
            result = reproduce.replay(bugs.check_then_act, failure.schedule, timeout=BOUND)
        assert result.failure is not None
        self.assertEqual(result.failure[0], "invariant")
        self.assertEqual(result.followed, len(failure.schedule))
        self.assertIsNone(result.diverged)
        self.assertTrue(str(result).startswith("the replay failed: invariant: the invariant "
                                               "failed:"))
        self.assertIn(f"it followed all {len(failure.schedule)} step(s) of the schedule",
                      str(result))

    def test_threads_that_end_before_the_schedule_does(self) -> None:
        result = reproduce.replay(bugs.check_then_act_fixed, [
            "A: Lock 1 Lock.acquire", "A: Lock 1 Lock.release", "B: Lock 1 Lock.acquire",
            "B: Lock 1 Lock.release", "C: Lock 1 Lock.acquire"], timeout=BOUND)
        self.assertIsNone(result.failure)
        self.assertEqual(result.diverged,
                         "the threads ended before step 5 (C: Lock 1 Lock.acquire)")

    def test_a_wait_nothing_wakes_times_out(self) -> None:
        # The rule lets the timed wait go as if its timeout were long; nothing
        # wakes it, so the replay is run again with it expired, as time would.
        result = reproduce.replay(timed_event_wait, [], timeout=BOUND)
        self.assertIsNone(result.failure)
        self.assertEqual([str(step) for step in result.steps],
                         ["A: Event 1 Event.wait (expired)"])

    def test_a_disregarded_wait_of_the_schedule_that_nothing_wakes(self) -> None:
        result = reproduce.replay(timed_event_wait,
                                  [blanket.Step("A", "Event.wait", "Event 1", "BLOCKED",
                                                disregarded=True)], timeout=BOUND)
        self.assertEqual(result.failure, (
            "stall", "a wait the schedule let go with its timeout disregarded was never woken"))

    def test_in_a_test_case(self) -> None:
        class Case(blanket.ScenarioTestCase):
            stall_timeout = BOUND

            def test_fixed(self) -> None:
                self.replay(bugs.check_then_act_fixed, ["B: Lock 1 Lock.acquire"])

            def test_buggy(self) -> None:
                self.replay(bugs.check_then_act, ["B: Lock 1 Lock.acquire",
                                                   "A: Lock 1 Lock.acquire"])

        result = unittest.TestResult()
        with quiet_thread_errors():
            Case("test_fixed").run(result)
            Case("test_buggy").run(result)
        self.assertEqual(result.testsRun, 2)
        self.assertEqual(result.errors, [])
        [(case, message)] = result.failures
        self.assertEqual(case.id().rsplit(".", 1)[-1], "test_buggy")
        self.assertIn("the replay failed: invariant: the invariant failed:", message)
        self.assertIn("overdrawn", message)


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


class Named(unittest.TestCase):
    """What the code that made a call names its primitive, in a report."""

    def test_a_variable_an_attribute_or_nothing(self) -> None:
        lock, real = object(), object()
        twin = types.SimpleNamespace(_real=real)  # (a twin stands for the real object)
        pool = types.SimpleNamespace(size=3, _cond=real)
        cases = [({"lock": lock}, {}, lock, "lock"),
                 ({}, {"LOCK": lock}, lock, "LOCK"),
                 ({"n": 3, "self": pool}, {}, twin, "self._cond"),
                 ({"n": 3, "self": pool}, {"pool": pool}, lock, "")]
        for local, global_, primitive, expected in cases:
            with self.subTest(expected=expected):
                frame = types.SimpleNamespace(f_locals=local, f_globals=global_)
                self.assertEqual(reproduce.named(frame, primitive), expected)


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
        # (shrunk: B takes its first lock, and the replay's rule lets A take its own)
        self.assertRegex(message, r"schedule:\n  1\. B: Lock 2 Lock\.acquire  "
                                  r"\(outer at tests/explore_bugs\.py:\d+\)\n\nthe schedule "
                                  r"as a timeline \(one column per thread\):\n  B\n  -+\n"
                                  r"  1\. Lock 2 Lock\.acquire\n\na test")
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

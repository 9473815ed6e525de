"""The tests blanket.explore writes are tried as their user runs them
(``python -m unittest``, a fresh interpreter) before they are handed over:
a failure's test must fail as the search's run did, a reached line's test
must pass; a test that passes while the bug is there is never handed over
as a test (issue 30)."""

from __future__ import annotations

import os
import subprocess
import time
import types
import unittest
import unittest.mock

import blanket
from blanket import Scenario
from blanket.exploration import tried
from blanket.exploration.reproduce import summary_of

from . import adopt_real_bugs, lin_structures
from .test_explore import explore, failure_of

#: How many times :func:`leaky` ran in this process.
_RUNS: list[int] = []


def lost_update(scenario: Scenario) -> object:
    """Two threads add one to a count, reading and writing it apart."""
    box = {"count": 0}

    def add() -> None:
        seen = box["count"]
        box["count"] = seen + 1

    scenario.thread(add)
    scenario.thread(add)

    def invariant() -> None:
        assert box["count"] == 2, f"count is {box['count']}"
    return invariant


def leaky(scenario: Scenario) -> object:
    """Fails from its second run in a process: the failure is the process's
    state, not an order of the threads, so no test of it can fail."""
    _RUNS.append(1)
    lock, log = scenario.Lock(), []
    runs = len(_RUNS)

    def take() -> None:
        with lock:
            log.append(runs)

    scenario.thread(take)
    scenario.thread(take)

    def invariant() -> None:
        assert runs < 2, "the second run of this process"
    return invariant


def per_process(scenario: Scenario) -> None:
    """Fails in every order, saying which process it runs in."""
    def fail() -> None:
        raise RuntimeError(f"in process {os.getpid()}")

    scenario.thread(fail)


def reaches(scenario: Scenario) -> None:
    """A thread that runs the line :data:`LINE`."""
    def run() -> None:
        marker = 1  # the line looked for
        del marker

    scenario.thread(run)


LINE = f"tests/test_explore_tried.py:{reaches.__code__.co_firstlineno + 3}"


def naps(scenario: Scenario) -> None:
    """B naps in a loop, in code no blanket primitive is called from, for
    longer than the searches' waits: a stall."""
    lock = scenario.Lock()

    def take() -> None:
        with lock:
            pass

    def nap() -> None:
        end = time.monotonic() + 3 * STALL
        while time.monotonic() < end:
            time.sleep(STALL / 20)

    scenario.thread(take)
    scenario.thread(nap)


#: How long :func:`naps`'s searches wait for the threads.
STALL = 0.5


def lost_mail(scenario: Scenario) -> None:
    """A library's mailbox (its Condition made in __init__, in the setup)
    between a getter and a putter: the getter can sleep for ever."""
    box = adopt_real_bugs.Mailbox()
    got: list[object] = []
    scenario.thread(lambda: got.append(box.get()))  # the library met as the thread runs
    scenario.thread(box.put, 1)


class FailureTests(unittest.TestCase):
    def test_a_test_that_fails_as_the_search_s_run_did_is_handed_over(self) -> None:
        failure = failure_of(explore(lost_update))
        self.assertTrue(failure.checked.startswith("tried: the test fails as the search's "
                                                   "run did"), failure)
        self.assertIn("self.replay(lost_update, [", failure.source)
        self.assertNotIn("the written test", str(failure))

    def test_a_test_that_passes_is_never_handed_over(self) -> None:
        _RUNS.clear()
        failure = failure_of(explore(leaky))
        self.assertIn("the second run of this process", failure.message)
        self.assertIn("passed when run as a user runs it", failure.checked)
        self.assertIn("the written test: the test written for it passed", str(failure))
        lines = failure.source.splitlines()
        self.assertTrue(all(line.startswith("#") for line in lines), failure.source)
        self.assertIn("#         self.replay(leaky, [])", lines)  # (shrunk: no step needed)

    def test_a_test_that_fails_otherwise_is_told(self) -> None:
        failure = failure_of(explore(per_process))
        self.assertIn("but not with the failure the search found (exception: "
                      f"RuntimeError: in process {os.getpid()})", failure.checked)
        self.assertIn("#   RuntimeError: in process", failure.checked)
        self.assertIn("self.replay(per_process, [", failure.source)

    def test_a_stall_s_test_waits_as_long_and_fails_alike(self) -> None:
        # Its test waited 10 s, not the search's 0.5, and the stall it saw
        # said "within 10.0 s" and named the test's scenario: said to fail
        # otherwise, it was taken 30 s to try.
        failure = failure_of(explore(naps, timeout=STALL))
        self.assertEqual(failure.kind, "stall", failure)
        self.assertIn(f"    stall_timeout = {STALL!r}\n", failure.source)
        headline = failure.message.splitlines()[0]
        self.assertIn(f"signalled within {STALL} s", headline)
        self.assertIn(f'    """{headline}"""', failure.source)  # the class's docstring
        self.assertTrue(failure.checked.startswith("tried: the test fails as the search's "
                                                   "run did"), failure.checked)

    def test_a_deadlock_on_a_library_s_condition_replays(self) -> None:
        # The replay watched the threads only for a schedule with data
        # races: on 3.11 and 3.12 the getter's Condition, made in the
        # library's __init__ and first used in code not yet watched, stayed
        # real, and the test stalled, following 0 steps.
        failure = failure_of(explore(lost_mail, timeout=STALL))
        self.assertEqual(failure.kind, "deadlock", failure)
        self.assertIn("A waits in Condition.wait on Condition 1", failure.message)
        self.assertTrue(failure.checked.startswith("tried: the test fails as the search's "
                                                   "run did"), failure.checked)

    def test_a_search_with_the_default_timeout_writes_none(self) -> None:
        failure = failure_of(explore(lost_update, timeout=10.0))
        self.assertNotIn("stall_timeout", failure.source)

    def test_stuck_threads_are_summed_up_by_their_first_line(self) -> None:
        message = "stuck: A waits for Lock 1\nscenario 's' (entered); threads:\n  'A': ..."
        for kind in ("deadlock", "stall", "livelock"):
            self.assertEqual(summary_of(kind, message), "stuck: A waits for Lock 1")
        self.assertEqual(summary_of("exception", "Traceback:\n  ...\nValueError: x"),
                         "ValueError: x")

    def test_a_setup_with_no_name_is_not_tried(self) -> None:
        def nested(scenario: Scenario) -> None:
            per_process(scenario)

        failure = failure_of(explore(nested))
        self.assertTrue(failure.checked.startswith("not tried: the setup has no name"),
                        failure.checked)
        self.assertNotIn("the written test", str(failure))  # its comments say why

    def test_a_setup_its_module_does_not_hold_is_not_imported(self) -> None:
        # As a doctest's function: its module's name says where, but that
        # module holds another object (or nothing) by its name.
        ghost = types.FunctionType(per_process.__code__, globals(), "per_process")
        failure = failure_of(explore(ghost))
        self.assertIn("# per_process is not tests.test_explore_tried.per_process: define it",
                      failure.source)
        self.assertTrue(failure.checked.startswith("not tried: the setup has no name"),
                        failure.checked)

    def test_a_test_that_does_not_import_is_not_tried(self) -> None:
        output = ("E\nERROR: test_blanket_written (unittest.loader._FailedTest."
                  "test_blanket_written)\nImportError: cannot import name 'x' from 'y'\n")
        failed = subprocess.CompletedProcess([], 1, "", output)
        with unittest.mock.patch.object(tried.subprocess, "run", return_value=failed):
            failure = failure_of(explore(lost_update))
        self.assertEqual(failure.checked, "not tried: the test did not import in a fresh "
                         "interpreter (ImportError: cannot import name 'x' from 'y')")
        self.assertIn("self.replay(lost_update, [", failure.source)

    def test_a_test_past_its_bound_is_told(self) -> None:
        late = subprocess.TimeoutExpired("python", 1.0)
        with unittest.mock.patch.object(tried.subprocess, "run", side_effect=late):
            failure = failure_of(explore(lost_update))
            reached = explore(reaches, reach=LINE).reached[LINE]
        self.assertTrue(failure.checked.startswith("not tried to its end: the test ran past"),
                        failure.checked)
        self.assertIn("self.replay(lost_update, [", failure.source)
        assert reached is not None
        self.assertTrue(reached.checked.startswith("not tried to its end"), reached.checked)

    def test_nothing_is_tried_in_an_interpreter_trying_a_test(self) -> None:
        with unittest.mock.patch.dict(os.environ, {tried.TRYING: "1"}):
            failure = failure_of(explore(lost_update))
        self.assertEqual(failure.checked, "")


class UntriedTests(unittest.TestCase):
    def test_an_exploration_within_untried_tries_nothing(self) -> None:
        with tried.untried():
            failure = failure_of(explore(lost_update))
        self.assertEqual(failure.checked, "")
        self.assertIn("self.replay(lost_update, [", failure.source)
        self.assertFalse(tried.trying())  # and after it, explorations try again

    def test_a_reached_line_s_test_is_not_tried_within_untried(self) -> None:
        with tried.untried():
            reached = explore(reaches, reach=LINE).reached[LINE]
        assert reached is not None
        self.assertEqual(reached.checked, "")
        self.assertIn("self.assertReached(reaches, [", reached.source)

    def test_a_linearizability_check_runs_no_interpreter_per_exploration(self) -> None:
        class Count:
            def __init__(self) -> None:
                self.value = 0

            def add(self) -> int:
                self.value += 1
                return self.value

        with unittest.mock.patch.object(tried.subprocess, "run") as run:
            result = blanket.check_linearizable(Count, [blanket.Operation("add")])
        self.assertFalse(result.ok)
        run.assert_not_called()


class LinearizabilityTests(unittest.TestCase):
    """A linearizability check's failure carries a test of its own: it is
    tried once, after the check, not once per exploration."""

    def test_the_check_s_test_is_tried_once(self) -> None:
        with unittest.mock.patch.object(tried.subprocess, "run", wraps=subprocess.run) as run:
            result = blanket.check_linearizable(lin_structures.UnlockedCounter,
                                                lin_structures.COUNTER_OPERATIONS)
        failure = result.failure
        assert failure is not None
        self.assertEqual(run.call_count, 1)
        self.assertEqual(failure.checked, f"tried: the test fails as the search's run did "
                         f"({tried.HOW})")
        self.assertIn("from tests.lin_structures import UnlockedCounter", failure.source)
        self.assertNotIn("the written test", str(failure))

    def test_a_check_s_test_that_passes_is_not_handed_over(self) -> None:
        passed = subprocess.CompletedProcess([], 0, "", "Ran 1 test\n\nOK\n")
        with unittest.mock.patch.object(tried.subprocess, "run", return_value=passed):
            result = blanket.check_linearizable(lin_structures.UnlockedCounter,
                                                lin_structures.COUNTER_OPERATIONS)
        failure = result.failure
        assert failure is not None
        self.assertTrue(failure.checked.startswith("the test written for it passed"),
                        failure.checked)
        self.assertTrue(failure.source.startswith("# blanket could not write a test that "
                                                  "fails for this failure:"), failure.source)
        self.assertIn("# The test it wrote, which passes:", failure.source)
        self.assertTrue(str(failure).endswith(f"the written test: {failure.checked}"))


class ReachTests(unittest.TestCase):
    def test_a_reached_line_s_test_passes(self) -> None:
        reached = explore(reaches, reach=LINE).reached[LINE]
        assert reached is not None
        self.assertTrue(reached.checked.startswith("tried: the test passes"), reached.checked)

    def test_a_reached_line_s_test_that_fails_is_told(self) -> None:
        failed = subprocess.CompletedProcess([], 1, "", "FAILED (failures=1)")
        with unittest.mock.patch.object(tried.subprocess, "run", return_value=failed):
            reached = explore(reaches, reach=LINE).reached[LINE]
        assert reached is not None
        self.assertIn("the line did not run so:\n#   FAILED (failures=1)", reached.checked)

    def test_a_setup_with_no_name_is_not_tried(self) -> None:
        reached = explore(lambda scenario: reaches(scenario), reach=LINE).reached[LINE]
        assert reached is not None
        self.assertTrue(reached.checked.startswith("not tried"), reached.checked)


if __name__ == "__main__":  # pragma: no cover
    unittest.main()

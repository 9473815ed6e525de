"""explore(progress=...) and check_linearizable(progress=...): a search
tells how far it went while it runs, and once at its end
(blanket.exploration.reporting). The interval is patched (0: a report a
run; huge: only the last), never waited for."""

from __future__ import annotations

import dataclasses
import multiprocessing
import unittest
import unittest.mock
from typing import Any

import blanket
from blanket.exploration import processes, reporting
from blanket.linearizability import check

from . import explore_bugs as bugs
from . import lin_structures as structures
from . import reach_cases as cases
from .support import unchecked
from .test_processes import timed

BOUND = 5.0


def every_run() -> Any:
    """A report after every run (the interval patched to 0)."""
    return unittest.mock.patch.object(reporting, "INTERVAL", 0.0)


def never_due() -> Any:
    """No report but the last (the interval patched out of reach)."""
    return unittest.mock.patch.object(reporting, "INTERVAL", 1e9)


class Explore(unittest.TestCase):
    def test_a_report_a_run_and_the_last_the_result(self) -> None:
        told: list[blanket.Progress] = []
        with every_run():
            result = blanket.explore(bugs.check_then_act_fixed, max_schedules=3,
                                     progress=told.append, timeout=BOUND)
        *going, last = told
        self.assertEqual([report.runs for report in going], list(range(1, result.runs + 1)))
        self.assertFalse(any(report.done for report in going))
        self.assertEqual(last, blanket.Progress(
            len(result.schedules), result.runs, result.elapsed, len(result.races),
            len(result.unseen), 3, 3 - len(result.schedules), done=True))
        for report in going:
            self.assertEqual(report.max_schedules, 3)
            self.assertEqual(report.left, 3 - report.schedules)

    def test_only_the_last_when_no_report_is_due(self) -> None:
        told: list[blanket.Progress] = []
        with never_due():
            result = blanket.explore(bugs.abba, progress=told.append, timeout=BOUND)
        [last] = told
        self.assertTrue(last.done)
        self.assertEqual((last.schedules, last.runs), (len(result.schedules), result.runs))
        self.assertEqual(result.failure.kind, "deadlock")  # type: ignore[union-attr]

    def test_races_and_gaps_so_far(self) -> None:
        told: list[blanket.Progress] = []
        with every_run():
            result = blanket.explore(bugs.philosophers_fixed, max_schedules=2,
                                     progress=told.append, timeout=BOUND)
        self.assertGreater(len(result.races), 0)
        self.assertEqual(told[0].races, 0)  # (the first run meets them)
        self.assertEqual(told[-1].races, len(result.races))
        self.assertEqual(told[-1].left, 0)

    def test_the_samples_spend_the_budget_of_the_random_strategies(self) -> None:
        told: list[blanket.Progress] = []
        with every_run():
            blanket.explore(bugs.philosophers_fixed, strategy="random", max_schedules=7,
                            shard="2/3", progress=told.append, timeout=BOUND)
        # Shard 2 of 3 takes the samples numbered 2 and 5 of 1 to 7.
        self.assertEqual({report.max_schedules for report in told}, {2})
        self.assertEqual(told[-1].left, 0)
        self.assertEqual(told[0].left, 1)

    def test_what_it_raises_ends_the_search(self) -> None:
        class Enough(Exception):
            pass

        def stop(progress: blanket.Progress) -> None:
            raise Enough
        with every_run(), self.assertRaises(Enough):
            blanket.explore(bugs.check_then_act_fixed, progress=stop, timeout=BOUND)

    def test_a_progress_that_is_not_callable_is_refused_before_any_run(self) -> None:
        ran: list[object] = []
        with self.assertRaisesRegex(TypeError, r"^progress=42: expected a callable taking a "
                                               r"blanket.Progress, or None$"), unchecked():
            blanket.explore(ran.append, progress=42)  # type: ignore[arg-type]
        self.assertEqual(ran, [])

    def test_read_as_a_line(self) -> None:
        progress = blanket.Progress(1234, 2468, 2.0, 2, 0, 10_000, 8766)
        self.assertEqual(str(progress), "1,234 schedules, 1,234 runs/s, 2 races, 0 gaps, "
                                        "8,766 left")
        self.assertEqual(str(dataclasses.replace(progress, elapsed=0.0, left=None,
                                                 explorations=3)),
                         "3 explorations, 1,234 schedules, 0 runs/s, 2 races, 0 gaps")
        with self.assertRaises(dataclasses.FrozenInstanceError):
            progress.runs = 0  # type: ignore[misc]


class Processes(unittest.TestCase):
    def test_the_processes_progress_added_up(self) -> None:
        told: list[blanket.Progress] = []
        with every_run():
            result = blanket.explore(cases.never, processes=2, progress=told.append,
                                     timeout=BOUND)
        *going, last = told
        self.assertGreaterEqual(len(going), 2)  # each process's last report, at least
        self.assertEqual(last, blanket.Progress(
            len(result.schedules), result.runs, result.elapsed, 0, 0, 2 * 10_000,
            2 * 10_000 - len(result.schedules), done=True))
        self.assertFalse(any(report.done for report in going))

    def test_a_process_sends_its_progress_before_its_result(self) -> None:
        progress = blanket.Progress(1, 2, 0.5, 0, 0, 10, 9)

        def explore(setup: Any, **options: Any) -> blanket.Exploration:
            options["progress"](progress)
            return blanket.Exploration("dfs")
        results, answer = multiprocessing.Pipe(duplex=False)
        with results, answer:
            processes._work(answer, explore, cases.never, 1, 2, None, timed({"progress": True}))
            self.assertEqual(results.recv(), (processes.PROGRESS, progress))
            self.assertEqual(results.recv()[0], processes.DONE)

    def test_without_progress_asked_for_none_is_sent(self) -> None:
        shares = processes._Shares(None, "random", 5, 2, 0.0)
        shares.note(1, blanket.Progress(1, 1, 0.1, 0, 0, 3, 2))  # nobody told
        self.assertEqual([share.max_schedules for share in shares.latest.values()], [3, 2])
        shares.finish(blanket.Exploration("random"))


class Linearizable(unittest.TestCase):
    def test_the_explorations_added_up(self) -> None:
        told: list[blanket.Progress] = []
        with every_run():
            result = blanket.check_linearizable(structures.LockedCounter,
                                                structures.COUNTER_OPERATIONS, scenarios=2,
                                                progress=told.append, timeout=BOUND)
        *going, last = told
        self.assertTrue(result.ok)
        self.assertTrue(going)
        self.assertFalse(any(report.done for report in going))
        self.assertEqual({report.left for report in told}, {None})
        # Two scenarios in two passes, less the one the first pass ran whole
        # (its sections commute: no order needed a preemption).
        self.assertEqual(last.explorations, 3)
        self.assertEqual((last.elapsed, last.races, last.unseen, last.done, last.max_schedules),
                         (result.elapsed, 0, 0, True, 10_000))
        runs = [report.runs for report in told]
        self.assertEqual(runs, sorted(runs))  # added up, never started again
        # The second pass takes the first's search on: nothing counted twice.
        self.assertEqual(last.schedules, result.schedules)
        self.assertEqual([report.runs for report in going], list(range(1, last.runs + 1)))

    def test_only_the_last_when_no_report_is_due(self) -> None:
        told: list[blanket.Progress] = []
        with never_due():
            blanket.check_linearizable(structures.LockedCounter, structures.COUNTER_OPERATIONS,
                                       scenarios=1, progress=told.append, timeout=BOUND)
        [last] = told
        self.assertEqual((last.explorations, last.done), (2, True))
        with never_due():  # (an exploration's report due, the check's not)
            check._Told(told.append, 10).exploring(blanket.Progress(1, 1, 0.1, 0, 0, 10, 9))
        self.assertEqual(told, [last])

    def test_a_progress_that_is_not_callable_is_refused(self) -> None:
        with self.assertRaisesRegex(TypeError, "^progress='no': expected a callable"), \
                unchecked():
            blanket.check_linearizable(structures.LockedCounter,
                                       structures.COUNTER_OPERATIONS,
                                       progress="no")  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()

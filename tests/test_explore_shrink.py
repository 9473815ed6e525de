"""A failure's schedule is shrunk before it is reported
(:mod:`blanket.exploration.shrink`): on every bug of the cookbook and of
tests/explore_bugs.py, the schedule reported replays to the same failure,
dropping any one of its steps does not, and no search bounded to fewer
preemptions finds one; shrinking that stops short says so; a schedule that
cannot shrink is left alone."""

from __future__ import annotations

import time
import unittest
import unittest.mock
from collections.abc import Callable, Sequence
from typing import Any

import blanket
from blanket import Exploration, Failure, Scenario, Step
from blanket.exploration import shrink as shrinking
from blanket.exploration.dfs import NotDeterministic
from blanket.exploration.reproduce import Replay, replay
from blanket.exploration.search import explore
from blanket.exploration.shrink import exception_type, shrink
from blanket.exploration.tried import untried
from blanket.seconds import Deadline

from . import cookbook_bugs, race_bugs
from . import explore_bugs as bugs
from .support import quiet_thread_errors

#: Every wait of these searches and replays.
TIMEOUT = 5.0
#: The options :func:`shrink` is given, as :func:`blanket.explore` gives them.
OPTIONS: dict[str, Any] = {
    "strategy": "dfs", "max_schedules": 10_000, "max_seconds": 120.0, "max_preemptions": None,
    "seed": 0, "depth": 3, "split_depth": 4, "timeout": TIMEOUT, "name": None,
    "races": "report", "exclude": (), "reach": None, "lines": False, "guided": None}
#: A step no run of these setups takes.
NOWHERE = Step("A", "Lock.acquire", "Lock 99", "BLOCKED")


def fails_so(again: Replay, kind: str, raised: str, preemptions: int) -> bool:
    """Whether *again*, a replay, took every step of its schedule and
    failed with *kind* (raising *raised*) with at most *preemptions*: the
    judge shrinking keeps a schedule by."""
    return again.diverged is None and again.failure is not None and \
        again.failure[0] == kind and exception_type(*again.failure) == raised and \
        again.preemptions <= preemptions


def searched(setup: Callable[[Scenario], Any], **options: Any) -> Failure:
    """The failure ``explore`` reports for *setup* (shrunk, with no bound of
    its own on the time shrinking takes: under coverage and typeguard the
    philosophers' took more than its 2 s, and these tests check what
    shrinking finds, not how fast)."""
    options.setdefault("timeout", TIMEOUT)
    with quiet_thread_errors(), unittest.mock.patch.object(shrinking, "MIN_SECONDS", 600.0), \
            unittest.mock.patch.object(shrinking, "MAX_SECONDS", 600.0):
        failure = blanket.explore(setup, **options).failure
    assert failure is not None
    return failure


def unshrunk(setup: Callable[[Scenario], Any], **options: Any) -> Failure:
    """The failure the search found for *setup*, as its run had it."""
    options.setdefault("timeout", TIMEOUT)
    with quiet_thread_errors(), untried():
        failure = blanket.explore(setup, **options).failure
    assert failure is not None
    return failure


def shrunk(setup: Callable[[Scenario], Any], failure: Failure,
           search: Callable[..., Exploration] = explore, deadline: Deadline | None = None,
           elapsed: float = 0.0, **options: Any) -> Failure:
    """*failure* of *setup* shrunk, *search* making the bounded searches,
    the search having taken *elapsed* seconds."""
    result = Exploration("dfs", failure=failure, elapsed=elapsed)
    with quiet_thread_errors():
        shrink(result, setup, search, {**OPTIONS, **options}, deadline or Deadline(120.0))
    assert result.failure is not None
    return result.failure


def finding(found: Exploration) -> Callable[..., Exploration]:
    """A search that finds what *found* says, whatever it is asked."""
    return lambda setup, **options: found


class Soon(Deadline):
    """A budget spent once it has been asked *asked* times."""

    __slots__ = ("asked",)

    def __init__(self, asked: int) -> None:
        super().__init__(1.0)
        self.asked = asked

    def spent(self) -> bool:
        self.asked -= 1
        return self.asked < 0


class Smallest(unittest.TestCase):
    """What makes a schedule reported the smallest, checked on real bugs."""

    def assert_smallest(self, setup: Callable[[Scenario], Any], failure: Failure,
                        **options: Any) -> int:
        """*failure*, found for *setup* with *options*, replays to itself
        (every step taken), none of its steps can be dropped, and a search
        bounded to fewer preemptions finds no failure of its kind: its
        preemptions."""
        kind, raised = failure.kind, exception_type(failure.kind, failure.message)
        races = "fail" if kind == "race" else "off"
        self.assertTrue(failure.shrunk.startswith("shrunk: "), failure)
        with quiet_thread_errors():
            again = replay(setup, failure.schedule, timeout=TIMEOUT, races=races, places=True)
            preemptions = again.preemptions
            self.assertTrue(fails_so(again, kind, raised, preemptions), again)
            self.assertEqual(again.steps[:len(failure.schedule)], failure.schedule)
            for n in range(len(failure.schedule)):
                fewer = failure.schedule[:n] + failure.schedule[n + 1:]
                dropped = replay(setup, fewer, timeout=TIMEOUT, races=races)
                self.assertFalse(fails_so(dropped, kind, raised, preemptions),
                                 f"step {n + 1} dropped: {dropped}")
        if preemptions:
            options = {**options, "strategy": "dfs", "max_preemptions": preemptions - 1}
            with quiet_thread_errors(), untried():
                bounded = blanket.explore(setup, timeout=TIMEOUT, **options).failure
            self.assertFalse(bounded is not None and bounded.kind == kind and
                             exception_type(bounded.kind, bounded.message) == raised, bounded)
        # The report and the written test give the shrunk schedule.
        listed = "".join(f"\n            {str(step)!r},{f'  # {step.made}' if step.made else ''}"
                         for step in failure.schedule)
        self.assertIn(f"[{listed}", failure.source)
        self.assertIn(f"{len(failure.schedule)} step(s) with {preemptions} preemption(s)",
                      failure.shrunk)
        return preemptions

    def test_each_bug_of_the_cookbook(self) -> None:
        for bug, setup in cookbook_bugs.BUGS.items():
            with self.subTest(bug):
                failure = searched(setup)
                self.assert_smallest(setup, failure)
                # Never longer than the run that failed, here.
                self.assertLessEqual(len(failure.schedule), len(unshrunk(setup).schedule))

    def test_each_bug_of_the_explore_suite(self) -> None:
        for name in ("check_then_act", "abba", "if_not_while", "lost_wakeup"):
            with self.subTest(name):
                setup = getattr(bugs, name)
                self.assert_smallest(setup, searched(setup))

    def test_the_philosophers_found_at_random(self) -> None:
        failure = searched(bugs.philosophers, strategy="random")
        # Every philosopher holds one fork: four need be let go, the rule
        # takes the fifth's.
        self.assertEqual(self.assert_smallest(bugs.philosophers, failure), 2)
        self.assertEqual(len(failure.schedule), 4)

    def test_each_strategy_shrinks_to_the_same_schedule(self) -> None:
        found = {strategy: searched(bugs.check_then_act, strategy=strategy).schedule
                 for strategy in ("dfs", "random", "pct")}
        self.assertEqual(found["random"], found["dfs"])
        self.assertEqual(found["pct"], found["dfs"])
        self.assertEqual([str(step) for step in found["dfs"]],
                         ["A: Lock 1 Lock.acquire", "A: Lock 1 Lock.release",
                          "B: Lock 1 Lock.acquire", "B: Lock 1 Lock.release",
                          "B: Lock 1 Lock.acquire"])
        # Each with where the code made the call: the check, then the act.
        check, act = (bugs.Account.withdraw_racy.__code__.co_firstlineno + n for n in (1, 4))
        self.assertEqual([step.at for step in found["dfs"]],
                         [f"tests/explore_bugs.py:{line}" for line in (check,) * 4 + (act,)])
        self.assertEqual({step.named for step in found["dfs"]}, {"self.lock"})
        self.assertIn(f"  5. B: Lock 1 Lock.acquire  (self.lock at tests/explore_bugs.py:{act})",
                      str(searched(bugs.check_then_act)))

    def test_the_same_every_time(self) -> None:
        first = searched(bugs.if_not_while)
        for _ in range(3):
            again = searched(bugs.if_not_while)
            self.assertEqual((again.schedule, again.message, again.source),
                             (first.schedule, first.message, first.source))

    def test_over_processes_the_merged_failure_is_shrunk(self) -> None:
        one = searched(bugs.check_then_act)
        two = searched(bugs.check_then_act, processes=2)
        self.assertEqual(two.schedule, one.schedule)
        self.assertEqual(two.shrunk, one.shrunk)
        self.assertTrue(two.checked.startswith("tried:"), two.checked)

    def test_a_data_race_that_fails(self) -> None:
        for bug, (setup, _, _) in race_bugs.BUGS.items():
            with self.subTest(bug):
                failure = searched(setup, races="fail")
                self.assertEqual(failure.kind, "race")
                self.assert_smallest(setup, failure, races="fail")
                self.assertIn('races="fail"', failure.source)

    def test_the_message_is_the_shrunk_run_s(self) -> None:
        failure = searched(bugs.check_then_act)
        again = replay(bugs.check_then_act, failure.schedule, timeout=TIMEOUT)
        self.assertEqual(again.failure, (failure.kind, failure.message))
        self.assertIn("AssertionError: overdrawn: balance -60", str(failure))
        self.assertNotIn("shrunk", str(failure))  # (said only when it stopped short)


def always_raises(scenario: Scenario) -> None:
    """A thread that raises before any step: its schedule has none."""
    def boom() -> None:
        raise KeyError("boom")

    scenario.thread(boom)


class LeftAlone(unittest.TestCase):
    """What is not shrunk, and a schedule that cannot be."""

    def test_a_schedule_that_cannot_shrink_is_left_as_it_is(self) -> None:
        failure = searched(bugs.abba)
        again = shrunk(bugs.abba, failure)
        self.assertEqual((again.schedule, again.message, again.source, again.shrunk),
                         (failure.schedule, failure.message, failure.source, failure.shrunk))
        nothing = searched(always_raises)
        self.assertEqual(nothing.schedule, ())
        self.assertEqual(nothing.shrunk,
                         "shrunk: 0 step(s) with 0 preemption(s), the fewest found that fail so")

    def test_one_that_does_not_replay_to_its_failure(self) -> None:
        failure = unshrunk(bugs.check_then_act)
        bogus = Failure(failure.kind, failure.message, (NOWHERE,), failure.source)
        again = shrunk(bugs.check_then_act, bogus)
        self.assertEqual(again.schedule, (NOWHERE,))
        self.assertEqual(again.source, failure.source)
        self.assertIn("the schedule was not shrunk: it does not replay", str(again))

    def test_a_shrunk_one_that_does_not_replay_again(self) -> None:
        failure = unshrunk(bugs.check_then_act)
        seen: set[tuple[str, ...]] = set()

        def flaky(setup: Any, steps: Sequence[Step], **options: Any) -> Replay:
            key = tuple(map(str, steps))
            if key in seen and len(steps) < len(failure.schedule):  # the check
                return Replay(None, len(steps), None, ())
            seen.add(key)
            return replay(setup, steps, **options)

        with unittest.mock.patch.object(shrinking, "replay", flaky):
            again = shrunk(bugs.check_then_act, failure)
        self.assertEqual(again.schedule, failure.schedule)
        self.assertEqual(again.message, failure.message)
        self.assertIn("the schedule was not shrunk: the shrunk one did not fail so when "
                      "replayed again (the replay passed", again.shrunk)

    def test_a_stall_and_a_livelock(self) -> None:
        for kind in ("stall", "livelock"):
            with self.subTest(kind):
                failure = Failure(kind, "stuck", (NOWHERE,), "source")
                again = shrunk(bugs.check_then_act, failure)
                self.assertIs(again, failure)
                self.assertEqual(again.schedule, (NOWHERE,))
                self.assertEqual(again.shrunk, "the schedule was not shrunk: "
                                 f"{shrinking.UNSHRUNK[kind]}")
                self.assertIn(again.shrunk, str(again))

    def test_where_no_test_is_tried_nothing_is_shrunk(self) -> None:
        failure = unshrunk(bugs.check_then_act)
        self.assertEqual(len(failure.schedule), 8)
        self.assertEqual(failure.shrunk, "")
        with untried():
            self.assertIs(shrunk(bugs.check_then_act, failure), failure)
        result = Exploration("dfs")
        shrink(result, bugs.check_then_act, explore, OPTIONS, Deadline(1.0))
        self.assertIsNone(result.failure)

    def test_the_exception_type_of_a_failure(self) -> None:
        self.assertEqual(exception_type("invariant", "the invariant failed:\nTraceback:\n"
                                        "AssertionError: count is 1"), "AssertionError")
        self.assertEqual(exception_type("exception", "thread A raised:\nTraceback:\n"
                                        "IndexError"), "IndexError")
        self.assertEqual(exception_type("deadlock", "deadlock: A holds Lock 1"), "")


class StoppedShort(unittest.TestCase):
    """Shrinking is bounded, and says so when a bound stopped it."""

    def setUp(self) -> None:
        self.failure = unshrunk(bugs.check_then_act)  # 8 steps, 1 preemption

    def said(self, failure: Failure) -> str:
        """What *failure* says of its shrinking, checked to be in its report."""
        self.assertIn(f"\n{failure.shrunk}", str(failure))
        self.assertTrue(failure.shrunk.startswith(
            "the schedule may not be the smallest: shrinking stopped "), failure.shrunk)
        return failure.shrunk

    def test_by_the_search_s_wall_clock_budget_before_it_began(self) -> None:
        spent = Deadline(0.5, time.monotonic() - 1)
        again = shrunk(bugs.check_then_act, self.failure, deadline=spent)
        self.assertEqual(again.schedule, self.failure.schedule)
        self.assertEqual(self.said(again), "the schedule may not be the smallest: shrinking "
                         "stopped by max_seconds=0.5")

    def test_by_the_budget_before_a_bounded_search(self) -> None:
        again = shrunk(bugs.check_then_act, self.failure, deadline=Soon(1))
        self.assertEqual(again.schedule, self.failure.schedule)
        self.assertTrue(self.said(again).endswith("stopped by max_seconds=1"))

    def test_by_the_budget_during_a_bounded_search(self) -> None:
        stopped = Exploration("dfs", stopped="max_seconds=0.25")
        again = shrunk(bugs.check_then_act, self.failure, finding(stopped))
        self.assertTrue(self.said(again).endswith(
            "stopped after 2 s, its own bound (a search bounded to 0 preemption(s))"))
        # The steps were shrunk all the same, within the preemptions it has.
        self.assertEqual(len(again.schedule), 5)

    def test_by_its_own_bound_within_a_larger_budget(self) -> None:
        # Before: shrinking had the rest of the search's budget, and a
        # deadlock found in 3 s in rich 9.12.0 took 97 s to shrink. Now as
        # long as the search took, 2 s at least, 10 s at most.
        for took, said in ((0.0, "2"), (6.84, "6.8"), (60.0, "10")):
            with self.subTest(took=took), unittest.mock.patch.object(
                    Deadline, "within", lambda deadline, seconds: Deadline(seconds, 0.0)):
                again = shrunk(bugs.check_then_act, self.failure, elapsed=took)
            self.assertEqual(again.schedule, self.failure.schedule)
            self.assertEqual(self.said(again), "the schedule may not be the smallest: "
                             f"shrinking stopped after {said} s, its own bound")

    def test_a_run_made_to_shrink_that_raises(self) -> None:
        # Before: explore raised the setup's AssertionError, the failure it
        # found lost (linecache's cache, left stale by the failing run, on
        # 3.13t in the corpus's linecache_traceback).
        poisoned: list[bool] = []

        def setup(scenario: Scenario) -> None:
            assert not poisoned, "the failing run left the cache stale"
            lock = scenario.Lock()

            def fails() -> None:
                with lock:  # (steps to shrink)
                    pass
                poisoned.append(True)
                raise ValueError("the bug")
            scenario.thread(fails)
        with quiet_thread_errors(), untried():  # (untried: the search's own failure)
            found = blanket.explore(setup, timeout=TIMEOUT).failure
        assert found is not None
        poisoned.clear()
        again = shrunk(setup, found)
        self.assertEqual(again.schedule, found.schedule)
        self.assertEqual(again.shrunk, "the schedule was not shrunk: a run made to shrink it "
                         "raised AssertionError: the failing run left the cache stale (the "
                         "failing run may have left state the setup does not expect)")
        self.assertIn("ValueError: the bug", str(again))

    def test_by_max_schedules_in_a_bounded_search(self) -> None:
        stopped = Exploration("dfs", stopped="max_schedules=3")
        again = shrunk(bugs.check_then_act, self.failure, finding(stopped))
        self.assertTrue(self.said(again).endswith(
            "stopped by max_schedules=3 (a search bounded to 0 preemption(s))"))

    def test_at_another_failure_a_bounded_search_found_first(self) -> None:
        other = Failure("deadlock", "deadlock: A holds Lock 1 and waits for Lock 2", ())
        again = shrunk(bugs.check_then_act, self.failure,
                       finding(Exploration("dfs", failure=other)))
        self.assertTrue(self.said(again).endswith(
            "stopped at a search bounded to 0 preemption(s), which found another failure "
            "first: deadlock: A holds Lock 1 and waits for Lock 2"))

    def test_at_a_bounded_search_s_failure_that_does_not_replay(self) -> None:
        same = Failure(self.failure.kind, self.failure.message, (NOWHERE,))
        again = shrunk(bugs.check_then_act, self.failure,
                       finding(Exploration("dfs", failure=same)))
        self.assertTrue(self.said(again).endswith(
            "stopped at a search bounded to 0 preemption(s): its failure's schedule did "
            "not replay to it"))
        self.assertEqual(len(again.schedule), 5)  # (with the preemption it has)

    def test_at_a_bounded_search_that_finds_the_setup_not_deterministic(self) -> None:
        def refused(setup: Any, **options: Any) -> Exploration:
            raise NotDeterministic("the scenario is not deterministic: ...\nmore",
                                   "the scenario is not deterministic: ...")

        again = shrunk(bugs.check_then_act, self.failure, refused)
        self.assertTrue(self.said(again).endswith(
            "stopped at a search bounded to 0 preemption(s): the scenario is not "
            "deterministic: ..."))

    def test_after_the_most_bounded_searches(self) -> None:
        with unittest.mock.patch.object(shrinking, "MAX_SEARCHES", 0):
            again = shrunk(bugs.check_then_act, self.failure)
        self.assertTrue(self.said(again).endswith(
            "stopped after 0 searches bounded in preemptions"))

    def test_after_the_most_replays(self) -> None:
        with unittest.mock.patch.object(shrinking, "MAX_REPLAYS", 3):
            again = shrunk(bugs.check_then_act, self.failure)
        self.assertTrue(self.said(again).endswith("stopped after 3 replays"))
        # What the three replays dropped is dropped: checked, it fails so.
        self.assertLess(len(again.schedule), len(self.failure.schedule))
        self.assertEqual(again.kind, "invariant")
        self.assertIn("overdrawn", again.message)

    def test_explore_says_so_in_its_report(self) -> None:
        with unittest.mock.patch.object(shrinking, "MAX_REPLAYS", 1):
            result = blanket.explore(bugs.check_then_act, timeout=TIMEOUT)
        assert result.failure is not None
        self.assertIn("\nthe schedule may not be the smallest: shrinking stopped after 1 "
                      "replays", str(result))


if __name__ == "__main__":
    unittest.main()

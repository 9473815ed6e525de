"""Data races in explore: the six bugs of issue 15 found quickly by every
strategy, their locked fixes exhausted with no race; races reported with
both sides' file:line, or failing the run; happens-before from the order of
calls on a primitive and from wakes; two reads commute."""

from __future__ import annotations

import itertools
import random
import threading
import unittest
from collections.abc import Callable, Mapping

import blanket
from blanket import Scenario
from blanket.exploration import races
from blanket.exploration.result import Setup, Step
from blanket.exploration.run import dependent
from blanket.exploration.sites import ADDS

from . import race_bugs
from .support import quiet_thread_errors, unchecked

Invariant = Callable[[], None]
FILE = "tests/race_bugs.py"  # as steps name it: the path the module name spans


class SixBugs(unittest.TestCase):
    #: Each bug's setup, its locked fix, and what its failure says.
    bugs: Mapping[str, tuple[Setup, Setup, str]] = race_bugs.BUGS

    def races(self, bug: str) -> str:
        """What ``explore`` does with the races of *bug*."""
        return "report"

    def test_each_bug_is_found_within_50_runs(self) -> None:
        # (How long it takes is a figure of `make bench`, not a test's: a
        # loaded machine under typeguard took 1.4-2.9 s of wall time.)
        for bug, (setup, _, says) in self.bugs.items():
            for strategy in ("dfs", "random", "pct"):
                with self.subTest(bug=bug, strategy=strategy), quiet_thread_errors():
                    result = blanket.explore(setup, strategy=strategy, max_schedules=50,
                                             races=self.races(bug))
                    self.assertLessEqual(result.runs, 50)
                    assert result.failure is not None, result
                    self.assertIn(says, result.failure.message)
                    self.assertTrue(result.races)

    def test_each_fix_is_explored_exhaustively_with_no_race(self) -> None:
        for bug, (_, fixed, _) in self.bugs.items():
            with self.subTest(bug):
                result = blanket.explore(fixed, races=self.races(bug))
                self.assertIsNone(result.failure, result)
                self.assertTrue(result.exhausted)
                self.assertEqual(result.races, [])

    def test_the_races_name_both_sides(self) -> None:
        with quiet_thread_errors():
            result = blanket.explore(race_bugs.counter)
        line = race_bugs.Counter.increment.__code__.co_firstlineno + 2  # the += line
        self.assertEqual([str(race) for race in result.races], [
            f"Counter.count: A writes at {FILE}:{line}, B reads at {FILE}:{line}",
            f"Counter.count: A writes at {FILE}:{line}, B writes at {FILE}:{line}",
            f"Counter.count: A reads at {FILE}:{line}, B writes at {FILE}:{line}"])
        assert result.failure is not None
        at = f"at tests/race_bugs.py:{line}"
        # Shrunk from the failing run's four steps (A reads, B reads, B writes,
        # A writes): the replay parks the writes alone, each thread having read.
        self.assertEqual([str(step) for step in result.failure.schedule],
                         [f"B: write Counter.count {at}"])
        # The replaying test names the steps the same way (tests/test_replay_races.py).
        self.assertIn(f"'B: write Counter.count {at}',", result.failure.source)


def closure_counter(scenario: Scenario, locked: bool) -> Invariant:
    """``nonlocal count; count += 1``: the cell is the shared state."""
    count = 0
    lock = scenario.Lock()

    def increment() -> None:
        nonlocal count
        if locked:
            lock.acquire()
        count += 1
        if locked:
            lock.release()

    scenario.thread(increment)
    scenario.thread(increment)

    def both_counted() -> None:
        assert count == 2, f"count is {count}"
    return both_counted


class Closures(unittest.TestCase):
    def test_a_closure_variable_races_and_its_fix_does_not(self) -> None:
        result = blanket.explore(lambda scenario: closure_counter(scenario, False))
        assert result.failure is not None
        self.assertIn("count is 1", result.failure.message)
        line = closure_counter.__code__.co_firstlineno + 9  # count += 1
        # (shrunk: both threads read before the write the schedule names, B's)
        self.assertEqual([str(step) for step in result.failure.schedule],
                         [f"B: write count at tests/test_races.py:{line}"])
        fixed = blanket.explore(lambda scenario: closure_counter(scenario, True))
        self.assertTrue(fixed.exhausted)
        self.assertEqual((fixed.races, fixed.count), ([], 2))


class Context(threading.local):
    """Thread-local data with a default, as a library keeps a call's context."""

    depth = 0


_made = itertools.count()


def thread_local_data(scenario: Scenario) -> None:
    """Two threads each counting in their own thread-local data, one of them
    under a name that differs from run to run (as a library names its flag
    by ``id()``): no shared state at all."""
    context, flags = Context(), threading.local()
    flag = f"in_progress_{next(_made)}"

    def work() -> None:
        context.depth += 1
        setattr(flags, flag, getattr(flags, flag, 0) + context.depth)
        assert getattr(flags, flag) == 1, "another thread's data"

    scenario.thread(work)
    scenario.thread(work)


class ThreadLocalData(unittest.TestCase):
    def test_a_thread_local_s_attributes_are_each_thread_s_own(self) -> None:
        # Before: a race on Context.depth reported (2 schedules), and then
        # NotDeterministic: "run 1 had A: read local.in_progress_0 ..., run
        # 2 met A: read local.in_progress_1".
        result = blanket.explore(thread_local_data)
        self.assertTrue(result.ok, result)
        self.assertTrue(result.exhausted, result)
        self.assertEqual((result.races, result.count), ([], 1))


def unordered_flag(scenario: Scenario) -> None:
    """A write and a read of a flag, no lock: a race, no failure."""
    flag = race_bugs.Config()

    def write() -> None:
        flag.ready = True

    def read() -> None:
        assert flag.ready in (True, False)

    scenario.thread(write)
    scenario.thread(read)


def woken_reader(scenario: Scenario) -> None:
    """The write happens before the notify that wakes the reader: ordered."""
    condition = scenario.Condition()
    box = race_bugs.Config()

    def reader() -> None:
        with condition:
            while not box.ready:
                condition.wait()
            box.value += 1

    def writer() -> None:
        box.value = 1
        with condition:
            box.ready = True
            condition.notify()

    scenario.thread(reader)
    scenario.thread(writer)


class Reporting(unittest.TestCase):
    def test_fail_makes_a_race_a_failure(self) -> None:
        result = blanket.explore(unordered_flag, races="fail")
        assert result.failure is not None
        self.assertEqual(result.failure.kind, "race")
        self.assertIn("Config.ready: A writes at", result.failure.message)
        reported = blanket.explore(unordered_flag)
        self.assertIsNone(reported.failure)
        self.assertTrue(reported.exhausted)
        self.assertEqual(len(reported.races), 1)
        self.assertEqual(reported.count, 2)  # the two orders of the write and the read
        self.assertRegex(str(reported), r"^dfs: 2 distinct schedule\(s\), the whole space, "
                                        r"1 data race\(s\) in .* s; no failure \(no invariant "
                                        r"was returned: only an exception, a deadlock or a stall "
                                        r"could fail\)$")

    def test_off_watches_nothing(self) -> None:
        with quiet_thread_errors():
            result = blanket.explore(race_bugs.counter, races="off")
        self.assertIsNone(result.failure)
        self.assertEqual(result.races, [])
        self.assertEqual(result.count, 1)

    def test_a_bad_value_is_refused(self) -> None:
        with unchecked(), self.assertRaisesRegex(ValueError, "races='loud': expected one of"):
            blanket.explore(unordered_flag, races="loud")

    def test_a_wake_orders_what_came_before_it(self) -> None:
        result = blanket.explore(woken_reader)
        self.assertIsNone(result.failure)
        self.assertEqual(result.races, [])
        self.assertTrue(result.exhausted)

    def test_random_strategies_park_at_the_races_found(self) -> None:
        for strategy in ("random", "pct"):
            with self.subTest(strategy):
                result = blanket.explore(unordered_flag, strategy=strategy, max_schedules=20)
                self.assertEqual(len(result.races), 1)
                self.assertEqual(result.count, 2)


def readers_and_writer(scenario: Scenario) -> None:
    """Two readers and a writer of one attribute."""
    box = race_bugs.Config()

    def read() -> None:
        assert box.value in (0, 1)

    def write() -> None:
        box.value = 1

    scenario.thread(read)
    scenario.thread(read)
    scenario.thread(write)


class Tally:
    """A map whose subscripts run its own methods: *locked*, under its lock."""

    def __init__(self, locked: bool) -> None:
        self._lock = threading.Lock() if locked else None
        self._counts: dict[str, int] = {"a": 0}

    def __getitem__(self, key: str) -> int:
        if self._lock is None:
            return self._counts[key]
        with self._lock:
            return self._counts[key]

    def __setitem__(self, key: str, count: int) -> None:
        if self._lock is None:
            self._counts[key] = count
        else:
            with self._lock:
                self._counts[key] = count


def tallies(locked: bool) -> Setup:
    """Two threads set a tally's count, a third reads it."""
    def setup(scenario: Scenario) -> None:
        tally = Tally(locked)

        def write() -> None:
            tally["a"] = 1

        def read() -> None:
            assert tally["a"] in (0, 1)

        scenario.thread(write)
        scenario.thread(read)
        scenario.thread(write)
    return setup


class ItemHooks(unittest.TestCase):
    """A subscript of an object whose class runs Python code for it is a
    call of that code, which makes the accesses itself. Before, it was also
    an access of the whole object: a locked LRU cache's ``cache[key] = v``
    raced with itself (boltons' shape, tests/lru_shapes.py), and every
    check of it searched twice the schedules."""

    def test_under_the_class_s_lock_no_race(self) -> None:
        result = blanket.explore(tallies(locked=True))
        self.assertTrue(result.exhausted)
        self.assertEqual(result.races, [])

    def test_unlocked_the_accesses_inside_race(self) -> None:
        result = blanket.explore(tallies(locked=False))
        self.assertTrue(result.exhausted)
        places = {side[2] for race in result.races for side in (race.first, race.second)}
        line = Tally.__setitem__.__code__.co_firstlineno
        self.assertEqual(places, {f"tests/test_races.py:{line + 2}",
                                  f"tests/test_races.py:{line - 4}"})


class Dependence(unittest.TestCase):
    def test_two_reads_commute(self) -> None:
        self.assertFalse(dependent("memory:read:Box.value", "memory:read:Box.value"))
        self.assertTrue(dependent("memory:write:Box.value", "memory:write:Box.value"))
        self.assertTrue(dependent("memory:read:Box.value", "memory:write:Box.value"))
        self.assertFalse(dependent("memory:read:Box.value", "memory:write:Box.other"))
        self.assertFalse(dependent("memory:read:Box.value", "Lock 1"))
        self.assertTrue(dependent("Lock 1", "Lock 1"))
        # 3 threads, one step each: 6 orders; the readers commute, so only
        # the order of the write and each read matters: 4.
        result = blanket.explore(readers_and_writer)
        self.assertTrue(result.exhausted)
        self.assertEqual(result.count, 4)

    def test_writes_that_add_attributes_meet_on_their_class(self) -> None:
        def added(label: str) -> str:
            return f"memory:write:{label}{ADDS}"
        # Two attributes added to objects of one class: which came first
        # shows in vars(obj). Of two classes, or one attribute added and
        # another only written, they commute, as any two attributes do.
        self.assertTrue(dependent(added("Box.a"), added("Box.b")))
        self.assertFalse(dependent(added("Box.a"), added("Crate.b")))
        self.assertFalse(dependent(added("Box.a"), "memory:write:Box.b"))
        # The attribute's own accesses, the whole dict's, the object's
        # __dict__'s: as an attribute's write.
        self.assertTrue(dependent(added("Box.a"), "memory:read:Box.a"))
        self.assertTrue(dependent("memory:read:dict", added("Box.a")))
        self.assertTrue(dependent(added("Box.a"), "memory:read:Box.__dict__"))

    def test_a_step_at_a_racy_access_prints_as_one(self) -> None:
        step = Step("A", "Memory.write", "Counter.count", "BLOCKED", where="bank.py:12")
        self.assertEqual(str(step), "A: write Counter.count at bank.py:12")

    def test_clocks_follow_primitives_and_wakes_not_memory(self) -> None:
        trace = [(0, "Lock 1", ()), (1, "memory:write:X", ()), (1, "Lock 1", (2,)),
                 (2, "Lock 2", ())]
        after = races.clocks(trace)
        self.assertEqual(after[(0, 0)], {0: 0})
        self.assertEqual(after[(1, 1)], {1: 1})
        self.assertEqual(after[(1, 2)], {0: 0, 1: 2})
        self.assertEqual(after[(2, 2)], {0: 0, 1: 2, 2: 2})
        self.assertEqual(after[(2, 3)], {0: 0, 1: 2, 2: 3})


Side = tuple[races.Entry, str]


def pairwise(items: list[Side], met: list[Side], after: dict[tuple[int, int], dict[int, int]]
             ) -> list[tuple[bool, Side, Side]]:
    """The racing pairs of accesses by the definition, pair by pair (as
    :func:`races._unordered` once ran), each with whether its second is
    met: of two threads, one a write (two writes taken once), the one at
    the earlier epoch not known to the other's clock; in the order of
    their places."""
    def clock(entry: races.Entry) -> dict[int, int]:
        return after.get((entry[0], entry[3]), {})

    def apart(a: races.Entry, b: races.Entry) -> bool:
        if a[3] < b[3]:
            return clock(b).get(a[0], -1) <= a[3]
        return clock(a).get(b[0], -1) <= b[3]
    found = [(False, a, b) for i, a in enumerate(items) for j, b in enumerate(items)
             if a[0][2] and b[0][0] != a[0][0] and not (b[0][2] and j <= i)
             and apart(a[0], b[0])]
    return found + [(True, a, b) for a in items for b in met
                    if b[0][0] != a[0][0] and (a[0][2] or b[0][2]) and apart(a[0], b[0])]


class Unordered(unittest.TestCase):
    """The races of a run are found group by group, by bisection: the same
    first pair for each two sites of two threads as the pair-by-pair
    definition, in its order (before, a run of 2,000 locked calls took
    seconds to analyse)."""

    def test_the_first_pair_of_each_race_as_pair_by_pair(self) -> None:
        generator = random.Random(7)
        compared = 0
        for _ in range(300):
            threads = generator.randint(2, 3)
            trace = [(generator.randrange(threads),
                      generator.choice(["Lock 1", "Lock 2", "memory:write:x"]),
                      tuple(t for t in range(threads) if generator.random() < 0.15))
                     for _ in range(generator.randint(1, 12))]
            after = races.clocks(trace)
            items = random_accesses(generator, threads, len(trace), generator.randint(0, 6))
            met = random_accesses(generator, threads, len(trace), generator.randint(0, 3))
            firsts: list[tuple[Side, Side]] = []
            groups: set[tuple[object, ...]] = set()
            for in_met, a, b in pairwise(items, met, after):  # the first of two sites' pairs
                if (in_met, a[0][:3], b[0][:3]) not in groups:
                    groups.add((in_met, a[0][:3], b[0][:3]))
                    firsts.append((a, b))
            self.assertEqual(list(races._unordered(items, met, after)), firsts,
                             (trace, items, met))
            compared += len(firsts)
        self.assertGreater(compared, 100)  # (the cases do race)


SITES = [races.Site(write, "x", 1, "f", "m.py", line, {})
         for line, write in ((1, False), (2, True), (3, True))]


def random_accesses(generator: random.Random, threads: int, steps: int, count: int
                    ) -> list[Side]:
    """Up to *count* accesses of each thread at distinct epochs of a run of
    *steps* steps, each thread's in the order made."""
    made: dict[races.Entry, str] = {}
    for thread in range(threads):
        for epoch in sorted(generator.sample(range(-1, steps), min(count, steps + 1))):
            site = generator.choice(SITES)
            made.setdefault((thread, site, site.write, epoch), "ABC"[thread])
    return list(made.items())

if __name__ == "__main__":
    unittest.main()

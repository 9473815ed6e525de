"""Searches that never hang (issue 31): a thread spinning on plain shared
state is let go fairly, and reported as a livelock when nothing else can
change what it reads; a stall is reported within about one timeout.

Each search here runs in a thread of its own, joined within a generous
bound: a search that hangs fails its test instead of hanging the suite."""

from __future__ import annotations

import threading
import unittest
from collections.abc import Callable
from pathlib import Path
from typing import Any

import blanket
from blanket import Exploration, Scenario
from blanket.exploration.tried import untried

from .support import quiet_thread_errors

#: Every wait of these searches ends well within it (see each test).
TIMEOUT = 2.0
#: How long a search may take before its test calls it hung.
HUNG = 120.0


def marked(marker: str) -> str:
    """Where the line of this file that ends with *marker* is, as blanket says it."""
    lines = Path(__file__).read_text().splitlines()
    number = next(number for number, line in enumerate(lines, 1) if line.endswith(marker))
    return f"tests/test_stalls_hardening.py:{number}"


def bounded(setup: Callable[[Scenario], Any], tried: bool = False,
            **options: Any) -> Exploration:
    """``explore(setup, **options)`` (the written test tried only if
    *tried*), in a thread joined within :data:`HUNG` seconds: an
    ``AssertionError`` if it is still running then."""
    options.setdefault("timeout", TIMEOUT)
    results: list[Exploration] = []
    errors: list[BaseException] = []

    def search() -> None:
        try:
            with quiet_thread_errors():
                if tried:
                    results.append(blanket.explore(setup, **options))
                else:
                    with untried():
                        results.append(blanket.explore(setup, **options))
        except BaseException as error:  # noqa: BLE001 - raised again below
            errors.append(error)

    searcher = threading.Thread(target=search, daemon=True)
    searcher.start()
    searcher.join(HUNG)
    if searcher.is_alive():
        raise AssertionError(f"the search of {setup.__name__} did not end within {HUNG} s")
    if errors:
        raise errors[0]
    return results[0]


class SpinLock:
    """A test-and-set lock on a plain attribute (the test and the set are
    two steps: not atomic, but enough to spin on)."""

    def __init__(self, taken: bool = False) -> None:
        self.taken = taken

    def acquire(self) -> None:
        while True:
            if not self.taken:  # the line the spinner spins at
                self.taken = True
                return

    def release(self) -> None:
        self.taken = False


SPIN_LINE = marked("# the line the spinner spins at")


def holder_never_releases(scenario: Scenario) -> None:
    """A takes the spin lock and ends holding it; B spins on it."""
    lock = SpinLock()
    scenario.thread(lock.acquire)
    scenario.thread(lock.acquire)


def handed_over(scenario: Scenario) -> Callable[[], None]:
    """A holds the spin lock from the start, writes, then releases it; B
    spins until it is free, then reads what A wrote: correct, whatever the
    order, once A is let run."""
    lock = SpinLock(taken=True)
    box: list[str] = []
    seen: list[list[str]] = []

    def holder() -> None:
        box.append("written")
        lock.release()

    def spinner() -> None:
        lock.acquire()
        seen.append(list(box))

    scenario.thread(spinner)  # first: the search lets it go first when it can
    scenario.thread(holder)

    def invariant() -> None:
        assert seen == [["written"]], seen
    return invariant


class SpinningTest(unittest.TestCase):
    """Issue 31, 1: a thread spinning on a lock another thread holds."""

    def test_a_spinner_whose_holder_ended_is_a_livelock_naming_both(self) -> None:
        result = bounded(holder_never_releases, tried=True)
        failure = result.failure
        assert failure is not None, result
        self.assertEqual(failure.kind, "livelock", failure)
        self.assertIn(f"spins at {SPIN_LINE}, reading SpinLock.taken again", failure.message)
        self.assertIn("SpinLock.taken last written by", failure.message)
        # The written test makes it happen again, as its user runs it.
        self.assertIn("fails as the search's run did", failure.checked)

    def test_a_correct_spin_lock_is_no_false_alarm(self) -> None:
        result = bounded(handed_over)
        self.assertTrue(result.ok, result)
        # Withholding the spinner is a reduction: the verdict says so.
        self.assertFalse(result.exhausted, result)
        self.assertIn(f"a thread spun at {SPIN_LINE}", str(result))


def tries_three_times(scenario: Scenario) -> Callable[[], None]:
    """A tries the spin lock A holds three times, then gives up: a loop that
    reads the same again, but gets out by itself."""
    lock = SpinLock(taken=True)
    gave_up: list[bool] = []

    def trier() -> None:
        for _ in range(3):
            if not lock.taken:
                return
        gave_up.append(True)

    scenario.thread(trier)

    guard = scenario.Lock()

    def keeper() -> None:
        with guard:  # a call: a change too, that gives the trier back
            lock.taken = True  # a write the reads race with: they park

    scenario.thread(keeper)
    return lambda: None if gave_up == [True] else _fail(gave_up)


def _fail(gave_up: list[bool]) -> None:
    raise AssertionError(f"gave up: {gave_up}")


class Box:
    """A flag nobody sets."""

    ready = False


def never_set(scenario: Scenario) -> None:
    """A waits for a flag nobody sets, reading it where no race makes it park."""
    box = Box()

    def waiter() -> None:
        while not box.ready:  # A reads the flag
            pass
    scenario.thread(waiter)


class Tally:
    """A count of one thread's own."""

    n = 0


def busy_counting(scenario: Scenario) -> None:
    """A counts a long while on a tally of its own (writes: no spin)."""
    tally = Tally()

    def count() -> None:
        for _ in range(100_000):
            tally.n += 1
    scenario.thread(count)


NEVER_SET_LINE = marked("# A reads the flag")


class Office:
    """One ticket; ``left`` read, and written, with no lock."""

    def __init__(self) -> None:
        self.left = 1

    def sell(self) -> None:
        if self.left > 0:
            self.left -= 1

    def remaining(self) -> int:
        return self.left


def read_twice(scenario: Scenario) -> Callable[[], None]:
    """A reads ``left`` twice at one line (two calls): no loop, and the
    order where B sells between the two reads is one of the space's."""
    office = Office()
    seen: list[int] = []
    scenario.thread(lambda: seen.extend((office.remaining(), office.remaining())))
    scenario.thread(office.sell)

    def invariant() -> None:
        assert seen != [1, 0], "B sold between A's two reads"
    return invariant


class Gate:
    """Read again and again by one thread, set by another."""

    def __init__(self) -> None:
        self.open = False
        self.mine = threading.local()


def counts_its_own(gate: Gate) -> None:
    """Reads ``open`` four times at one line, writing its own thread-local
    state each turn: a write that parks not, yet no spin."""
    for _ in range(4):
        if not gate.open:
            gate.mine.turns = getattr(gate.mine, "turns", 0) + 1


def opens(gate: Gate) -> None:
    gate.open = True


def busy_between_reads(scenario: Scenario) -> None:
    gate = Gate()
    scenario.thread(counts_its_own, gate)
    scenario.thread(opens, gate)


class LivelockOrNotTest(unittest.TestCase):
    """Issue 31, 1 and 2: a livelock is reported at once, and only one."""

    def test_a_loop_that_gives_up_by_itself_is_no_livelock(self) -> None:
        result = bounded(tries_three_times)
        self.assertTrue(result.ok, result)
        self.assertTrue(result.races, result)  # its reads were steps

    def test_a_thread_reading_the_same_twice_is_no_spinner(self) -> None:
        # Withheld at its second read, A never read before and after B's
        # sale: the failure was missed, and the verdict was not the whole
        # space (the documented ticket office's remaining() twice).
        result = bounded(read_twice, races="report")
        failure = result.failure
        assert failure is not None, result
        self.assertIn("B sold between A's two reads", failure.message)
        fixed = bounded(lambda scenario: (read_twice(scenario), None)[1], races="report")
        self.assertTrue(fixed.exhausted, fixed)
        self.assertEqual(fixed.unseen, [])

    def test_a_thread_writing_its_own_state_between_reads_is_no_spinner(self) -> None:
        # Its thread-local writes do not park: counted as no change, its
        # third read was withheld (logging's _local.in_progress on 3.13t).
        result = bounded(busy_between_reads, races="report")
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.unseen, [])

    def test_a_thread_busy_writing_is_no_spinner(self) -> None:
        result = bounded(busy_counting, timeout=60.0)
        self.assertTrue(result.ok, result)
        self.assertTrue(result.exhausted, result)

    def test_a_thread_spinning_where_it_does_not_park_is_a_livelock(self) -> None:
        # It never parks (no race: one thread): before, the run waited for
        # it to settle until the timeout, and the search called it a stall,
        # after some three timeouts; now its reads become steps.
        result = bounded(never_set, timeout=60.0)
        failure = result.failure
        assert failure is not None, result
        self.assertEqual(failure.kind, "livelock", failure)
        self.assertLess(result.elapsed, 60.0, result)  # not one timeout
        self.assertIn(f"spins at {NEVER_SET_LINE}, reading box again", failure.message)


def tries_the_lock(trying: Callable[[Any], bool], releases: bool = True
                   ) -> Callable[[Scenario], Callable[[], None]]:
    """A setup: A holds a lock (and releases it, if *releases*); B tries it
    in a loop (``while not trying(lock)``: a try that fails changes
    nothing), then takes its turn."""
    def setup(scenario: Scenario) -> Callable[[], None]:
        lock = scenario.Lock()
        turns: list[str] = []

        def holds() -> None:
            lock.acquire()
            turns.append("A")
            if releases:
                lock.release()

        def spins() -> None:
            while not trying(lock):
                pass
            turns.append("B")
            lock.release()

        scenario.thread(holds)
        scenario.thread(spins)

        def both_had_a_turn() -> None:
            assert sorted(turns) == ["A", "B"], turns
        return both_had_a_turn
    setup.__name__ = f"tries_the_lock_{'' if releases else 'never_'}released"
    return setup


#: Where B's tries are (each in a lambda of SpinningOnPrimitivesTest.TRIES).
TRIES_LINES = r"tests/test_stalls_hardening\.py:\d+"


class SpinningOnPrimitivesTest(unittest.TestCase):
    """Issue 31: a thread spinning on a primitive (``while not
    lock.acquire(False)``) made one run that never ended: the depth-first
    search always let the spinner try again, never the holder release."""

    TRIES: dict[str, Callable[[Any], bool]] = {
        "acquire(False)": lambda lock: bool(lock.acquire(False)),
        "acquire(blocking=False)": lambda lock: bool(lock.acquire(blocking=False)),
        "acquire(timeout=0)": lambda lock: bool(lock.acquire(timeout=0)),
        "acquire(timeout=0.5)": lambda lock: bool(lock.acquire(timeout=0.5)),
        "locked() then acquire": lambda lock: not lock.locked() and bool(lock.acquire()),
    }

    def test_a_spinner_lets_the_holder_release(self) -> None:
        for how, trying in self.TRIES.items():
            with self.subTest(how):
                result = bounded(tries_the_lock(trying))
                self.assertTrue(result.ok, result)
                self.assertRegex(str(result), f"a thread spun at {TRIES_LINES}, calling "
                                              r"Lock 1\.(acquire|locked)\(\) again with "
                                              "nothing changed since: it was let go")

    def test_a_spinner_whose_holder_ended_is_a_livelock(self) -> None:
        # (A timed try: before, its first run waited in the real lock for
        # good, the holder having ended, and the search reported a stall.)
        for how, trying in self.TRIES.items():
            with self.subTest(how):
                result = bounded(tries_the_lock(trying, releases=False))
                failure = result.failure
                assert failure is not None, result
                self.assertEqual(failure.kind, "livelock", failure)
                self.assertRegex(failure.message, f"B spins at {TRIES_LINES}, calling "
                                                  r"Lock 1\.(acquire|locked)\(\) again with "
                                                  r"nothing changed since \(Lock 1 last "
                                                  r"changed by A\)")

    def test_a_spinner_on_an_event_is_let_go_once_it_is_set(self) -> None:
        def setup(scenario: Scenario) -> Callable[[], None]:
            ready = scenario.Event()
            seen: list[bool] = []

            def waits() -> None:
                while not ready.is_set():
                    pass
                seen.append(True)

            scenario.thread(waits)
            scenario.thread(ready.set)

            def it_saw_the_event() -> None:
                assert seen == [True], seen
            return it_saw_the_event

        result = bounded(setup)
        self.assertTrue(result.ok, result)
        self.assertIn("calling Event 1.is_set() again", str(result))

    def test_a_spinner_on_an_event_nobody_sets_is_a_livelock(self) -> None:
        def setup(scenario: Scenario) -> None:
            ready = scenario.Event()

            def waits() -> None:
                while not ready.wait(0):
                    pass

            scenario.thread(waits)

        result = bounded(setup)
        failure = result.failure
        assert failure is not None, result
        self.assertEqual(failure.kind, "livelock", failure)
        self.assertIn("calling Event 1.wait() again with nothing changed since (Event 1 not "
                      "changed by any thread since it began)", failure.message)

    def test_a_semaphore_tried_in_a_loop(self) -> None:
        def setup(scenario: Scenario) -> None:
            slots = scenario.Semaphore(1)

            def takes() -> None:
                while not slots.acquire(False):
                    pass
                slots.release()

            scenario.thread(takes)
            scenario.thread(takes)

        result = bounded(setup)
        self.assertTrue(result.ok, result)
        self.assertIn("calling Semaphore 1.acquire() again", str(result))

    def test_a_try_that_succeeds_is_no_spin(self) -> None:
        # Each acquire(False) of a free lock takes it: a change, not a read.
        def setup(scenario: Scenario) -> None:
            lock = scenario.Lock()

            def takes_turns() -> None:
                for _ in range(12):
                    assert lock.acquire(False)
                    lock.release()

            scenario.thread(takes_turns)

        result = bounded(setup)
        self.assertTrue(result.exhausted, result)


if __name__ == "__main__":  # pragma: no cover
    unittest.main()

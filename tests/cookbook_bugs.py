"""Each bug of the cookbook (``examples/cookbook/*/buggy.py``) as a setup
for :func:`blanket.explore`: the data-race recipes' own (their test modules
name it ``BUGGY``), and for the recipes whose tests script the failing
order, a scenario of the same threads whose invariant says what went wrong.
The tests of shrinking (tests/test_explore_shrink.py) explore each, and the
tests they write import them from here."""

from __future__ import annotations

import importlib
import queue
import sys
from collections.abc import Callable
from pathlib import Path

from blanket import Scenario

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
if str(EXAMPLES) not in sys.path:  # (as the cookbook's discovery puts it there)
    sys.path.append(str(EXAMPLES))

Invariant = Callable[[], None]


def buggy(bug: str) -> object:
    """The module ``buggy.py`` of the cookbook's *bug*."""
    return importlib.import_module(f"cookbook.{bug}.buggy")


def _recipe(bug: str) -> Callable[[Scenario], object]:
    """The setup a data-race recipe's test module names ``BUGGY``."""
    return importlib.import_module(f"cookbook.{bug}.test_{bug}").BUGGY  # type: ignore[no-any-return]


lost_update = _recipe("lost_update")
check_then_insert = _recipe("check_then_insert")
len_then_pop = _recipe("len_then_pop")
publish_before_init = _recipe("publish_before_init")


def abba_deadlock(scenario: Scenario) -> None:
    """Opposite transfers, each locking its source first."""
    module = buggy("abba_deadlock")
    x = module.Account(1, scenario.Lock(), balance=100)  # type: ignore[attr-defined]
    y = module.Account(2, scenario.Lock(), balance=100)  # type: ignore[attr-defined]
    scenario.thread(module.transfer, x, y, 10)  # type: ignore[attr-defined]
    scenario.thread(module.transfer, y, x, 20)  # type: ignore[attr-defined]


def broken_barrier(scenario: Scenario) -> Invariant:
    """Three workers sum their parts; a wait at the barrier may time out."""
    total = buggy("broken_barrier").ParallelSum(  # type: ignore[attr-defined]
        scenario.Barrier(3), [[1, 2], [3, 4], [5, 6]])
    results: list[int] = []
    for index in range(3):
        scenario.thread(lambda index=index: results.append(total.work(index)))

    def every_total_right() -> None:
        assert results == [21, 21, 21], f"totals {results}"
    return every_total_right


def check_then_act(scenario: Scenario) -> Invariant:
    """Two withdrawals of 80 from 100."""
    account = buggy("check_then_act").Account(scenario.Lock(), 100)  # type: ignore[attr-defined]
    scenario.thread(account.withdraw, 80)
    scenario.thread(account.withdraw, 80)

    def never_overdrawn() -> None:
        assert account.balance >= 0, f"overdrawn: balance {account.balance}"
    return never_overdrawn


def double_checked_init(scenario: Scenario) -> None:
    """Two readers of settings loaded on first use (one may find them empty:
    a KeyError)."""
    module = buggy("double_checked_init")
    source = module.Source(scenario.Lock(), {"colour": "blue"})  # type: ignore[attr-defined]
    settings = module.Settings(scenario.Lock(), source)  # type: ignore[attr-defined]
    for _ in range(2):
        scenario.thread(lambda: settings.get()["colour"])


def if_not_while(scenario: Scenario) -> None:
    """Two consumers and two producers of jobs (a woken consumer may find
    the queue empty: an IndexError)."""
    jobs = buggy("if_not_while").JobQueue(scenario.Condition())  # type: ignore[attr-defined]
    scenario.thread(jobs.get)
    scenario.thread(jobs.put, "job 1")
    scenario.thread(jobs.get)
    scenario.thread(jobs.put, "job 2")


def ignored_timeout(scenario: Scenario) -> None:
    """Two documents printed; a timed acquire may expire (then the release
    of a lock not held raises)."""
    printer = buggy("ignored_timeout").Printer(scenario.Lock())  # type: ignore[attr-defined]
    scenario.thread(printer.print_document, "a", 2)
    scenario.thread(printer.print_document, "b", 2)


def lost_wakeup(scenario: Scenario) -> None:
    """A reader waits for a notify the writer may send before it waits."""
    mailbox = buggy("lost_wakeup").Mailbox(scenario.Condition())  # type: ignore[attr-defined]
    scenario.thread(mailbox.get)
    scenario.thread(mailbox.put, "hello")


def oversold(scenario: Scenario) -> Invariant:
    """Two buyers of one seat."""
    seats = buggy("oversold").Seats()  # type: ignore[attr-defined]
    sold: list[bool] = []
    scenario.thread(lambda: sold.append(seats.buy("1A", "ann")))
    scenario.thread(lambda: sold.append(seats.buy("1A", "bob")))

    def sold_once() -> None:
        assert sold.count(True) == 1, f"sold {sold.count(True)} times"
    return sold_once


def queue_look_then_take(scenario: Scenario) -> None:
    """Two consumers of one job, each looking before it takes (one may find
    it gone: queue.Empty)."""
    module = buggy("queue_look_then_take")
    jobs: queue.Queue[str] = queue.Queue(maxsize=1)
    jobs.put("job")
    scenario.thread(module.consume, jobs)  # type: ignore[attr-defined]
    scenario.thread(module.consume, jobs)  # type: ignore[attr-defined]


def semaphore_overrelease(scenario: Scenario) -> None:
    """A failing job gives its slot back twice (a bounded semaphore refuses:
    a ValueError)."""
    pool = buggy("semaphore_overrelease").Pool(  # type: ignore[attr-defined]
        scenario.BoundedSemaphore(1))
    scenario.thread(pool.run, lambda: True)
    scenario.thread(pool.run, lambda: False)


#: Each bug of the cookbook, by its folder's name: its setup.
BUGS: dict[str, Callable[[Scenario], object]] = {
    "abba_deadlock": abba_deadlock, "broken_barrier": broken_barrier,
    "check_then_act": check_then_act, "check_then_insert": check_then_insert,
    "double_checked_init": double_checked_init, "if_not_while": if_not_while,
    "ignored_timeout": ignored_timeout, "len_then_pop": len_then_pop,
    "lost_update": lost_update, "lost_wakeup": lost_wakeup, "oversold": oversold,
    "publish_before_init": publish_before_init, "queue_look_then_take": queue_look_then_take,
    "semaphore_overrelease": semaphore_overrelease,
}

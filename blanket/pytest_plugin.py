"""blanket's pytest plugin: a ``scenario`` fixture, explorations and
linearizability checks as plain test functions, and the searches' options
on pytest's command line.

Installed with blanket, it is registered as the ``pytest11`` entry point
``blanket`` (pytest loads it by itself; ``-p no:blanket`` keeps it out). It
is the only module of blanket that imports pytest, and nothing else in
blanket imports it: pytest stays optional.

* ``scenario``: a fresh :class:`~blanket.Scenario` for each test, named after
  it, its threads named "A", "B", "C", ... as :class:`~blanket.ScenarioTestCase`
  names them; after the test it is exited, its threads joined within its
  timeout, and a thread still running, dead of an exception, or made but
  never run (by a test that passed) is an error of the test's teardown.
* ``blanket_explore(setup, **options)``: :func:`blanket.explore`, the
  command line's options applied; a failure fails the test with pytest's
  report: the verdict, the schedule, the schedule as a timeline (one
  column per thread) and the written test that replays it.
* ``blanket_check_linearizable(make, operations, **options)``:
  :func:`blanket.check_linearizable` alike.
* ``--blanket-seed N``, ``--blanket-budget N`` (each search's
  ``max_schedules``), ``--blanket-seconds S`` (each search's
  ``max_seconds``), ``--blanket-shard i/n`` and ``--blanket-processes N``
  (explorations only): the defaults of every search of the run; a
  ``@pytest.mark.blanket(...)`` marker's keyword arguments override them
  for a test (``timeout`` and ``threads_must_run`` also apply to the
  ``scenario`` fixture), and the call's own keyword arguments override both.
* The terminal summary counts the searches, the schedules they ran, those
  that covered their whole space or stopped at the budget, and the failures;
  under pytest-xdist each worker's counts reach the controller
  (``workeroutput``).
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

import pytest

from .exploration.arguments import parse_shard
from .exploration.result import Exploration, Setup
from .exploration.search import explore as _explore
from .linearizability.check import Linearizability
from .linearizability.check import check_linearizable as _check_linearizable
from .scenario import Scenario
from .seconds import BUDGET, check_seconds, parse_seconds
from .testcase import clean_up
from .threads import thread_names
from .timeline import failure_report

#: The bound on the scenario fixture's waits, as ScenarioTestCase's
#: ``stall_timeout`` is by default.
DEFAULT_TIMEOUT = 10.0


# -- the command line ------------------------------------------------------------------

def _count(least: int, what: str) -> Callable[[str], int]:
    """A parser of an option's int value of at least *least*."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: expected {what}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value}: expected {what}")
        return value
    return parse


def _seconds(text: str) -> float:
    """The seconds of ``--blanket-seconds``."""
    try:
        return parse_seconds(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _shard(text: str) -> tuple[int, int]:
    """The ``i/n`` of ``--blanket-shard``."""
    try:
        return parse_shard(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def pytest_addoption(parser: pytest.Parser) -> None:
    """The searches' options."""
    group = parser.getgroup("blanket", "blanket (deterministic tests of multithreaded code)")
    group.addoption("--blanket-seed", type=_count(-(2 ** 63), "an int"), metavar="N",
                    help="the seed of every search (the random strategies' choices, the "
                         "scenarios a linearizability check draws); default 0")
    group.addoption("--blanket-budget", type=_count(1, "an int of at least 1"), metavar="N",
                    help="the most schedules each search runs (max_schedules; a "
                         "linearizability check's, each scenario's); default 10000")
    group.addoption("--blanket-seconds", type=_seconds, metavar="S",
                    help="the wall-clock budget of each search, in seconds (max_seconds); "
                         "default 120")
    group.addoption("--blanket-shard", type=_shard, metavar="i/n",
                    help="run only the i-th of n disjoint parts of every exploration "
                         "(the n shards together run the whole search)")
    group.addoption("--blanket-processes", type=_count(1, "an int of at least 1"),
                    metavar="N", help="run every exploration's shards in N processes "
                                      "(its setup must be importable); default 1")


def pytest_configure(config: pytest.Config) -> None:
    """Refuse options that do not go together; register the marker; start the counts."""
    shard = config.getoption("blanket_shard")
    processes = config.getoption("blanket_processes")
    if shard is not None and processes not in (None, 1):
        raise pytest.UsageError(
            f"--blanket-shard {shard[0]}/{shard[1]} with --blanket-processes {processes}: "
            "the processes run the shards of a search themselves (give one or the other)")
    config.addinivalue_line(
        "markers", "blanket(**options): keyword arguments of this test's searches "
                   "(blanket.explore, blanket.check_linearizable) over the command line's; "
                   "timeout and threads_must_run also set the scenario fixture's")
    config.stash[_TALLY] = Tally()


def _defaults(config: pytest.Config) -> dict[str, Any]:
    """The searches' keyword arguments the command line gives."""
    given = {"seed": config.getoption("blanket_seed"),
             "max_schedules": config.getoption("blanket_budget"),
             "max_seconds": config.getoption("blanket_seconds")}
    return {name: value for name, value in given.items() if value is not None}


def _exploring(config: pytest.Config) -> dict[str, Any]:
    """What the command line gives explorations only."""
    shard, processes = config.getoption("blanket_shard"), config.getoption("blanket_processes")
    given: dict[str, Any] = {}
    if shard is not None:
        given["shard"] = shard
    if processes is not None:
        given["processes"] = processes
    return given


def pytest_report_header(config: pytest.Config) -> str:
    """The searches' options, as the run applies them."""
    shard = config.getoption("blanket_shard") or (1, 1)
    options = {**{"seed": 0, "max_schedules": 10_000, "max_seconds": BUDGET},
               **_defaults(config)}
    return (f"blanket: seed {options['seed']}, budget {options['max_schedules']} "
            f"schedule(s) and {options['max_seconds']:g} s a search, shard {shard[0]}/{shard[1]}, "
            f"processes {config.getoption('blanket_processes') or 1}")


# -- the counts ------------------------------------------------------------------------

@dataclass
class Tally:
    """What the searches of a run did."""

    #: Explorations and linearizability checks made.
    explorations: int = 0
    checks: int = 0
    #: Distinct schedules run, in all.
    schedules: int = 0
    #: Searches that covered their whole space (a check: every scenario's).
    exhausted: int = 0
    #: Explorations stopped by their budget with orders left.
    stopped: int = 0
    #: Searches that found a failure.
    failures: int = 0

    def add(self, other: dict[str, int]) -> None:
        """Add the counts *other* gives (a worker's, as :func:`asdict` made them)."""
        for field in fields(self):
            setattr(self, field.name, getattr(self, field.name) + other.get(field.name, 0))

    def __str__(self) -> str:
        searches = self.explorations + self.checks
        stopped = f", {self.stopped} stopped by the budget" if self.stopped else ""
        return (f"{self.explorations} exploration(s), {self.checks} linearizability "
                f"check(s): {self.schedules} schedule(s), {self.exhausted} of {searches} "
                f"search(es) covered their whole space{stopped}, {self.failures} "
                "failure(s) found")


_TALLY = pytest.StashKey[Tally]()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under pytest-xdist, a worker hands its counts to the controller."""
    config = session.config
    output = getattr(config, "workeroutput", None)
    if output is not None:
        output["blanket"] = asdict(config.stash[_TALLY])


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """pytest-xdist's controller: a worker's counts added to the run's."""
    counts = getattr(node, "workeroutput", {}).get("blanket")
    if counts is not None:
        node.config.stash[_TALLY].add(counts)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The counts, when the run made a search."""
    tally = config.stash[_TALLY]
    if tally.explorations or tally.checks:
        terminalreporter.write_sep("-", "blanket")
        terminalreporter.write_line(f"blanket: {tally}")


# -- the failures -----------------------------------------------------------------------

# -- the fixtures -----------------------------------------------------------------------

def _marked(node: pytest.Item) -> dict[str, Any]:
    """The keyword arguments of the test's ``blanket`` markers (the closest wins)."""
    options: dict[str, Any] = {}
    for mark in reversed(list(node.iter_markers("blanket"))):
        if mark.args:
            pytest.fail(f"@pytest.mark.blanket{mark.args!r}: it takes keyword arguments "
                        "only (those of blanket.explore, say max_schedules=)", pytrace=False)
        options.update(mark.kwargs)
    return options


class _Searches:
    """What a test's searches are given, and what becomes of their results."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.config = request.config
        self.node = request.node
        marked = _marked(request.node)
        self.marked = {name: value for name, value in marked.items()
                       if name != "threads_must_run"}

    def options(self, given: dict[str, Any], exploring: bool) -> dict[str, Any]:
        """The keyword arguments of a search: the command line's, the
        marker's over them, the call's over both."""
        line = {**_defaults(self.config), **(_exploring(self.config) if exploring else {})}
        # The test's own processes run the shards themselves; its own shard
        # is one process's.
        test = {**self.marked, **given}
        if "processes" in test:
            line.pop("shard", None)
        if "shard" in test:
            line.pop("processes", None)
        return {**line, **self.marked, **given}

    def done(self, kind: str, of: object, result: Exploration | Linearizability) -> None:
        """Count *result* of the search *kind* of *of* (the setup, the
        factory), and keep its verdict with the test's report; a failure
        fails the test, with its report (:func:`blanket.timeline.failure_report`)."""
        tally = self.config.stash[_TALLY]
        if isinstance(result, Exploration):
            tally.explorations += 1
            tally.schedules += result.count
            tally.exhausted += result.exhausted
            tally.stopped += bool(result.stopped)
        else:
            tally.checks += 1
            tally.schedules += result.schedules
            tally.exhausted += bool(result.exhausted) and all(result.exhausted)
        failure = result.failure
        if failure is None:  # shown with -rP (a failure's report says it all)
            self.node.add_report_section("call", "blanket", f"{kind}: {result}")
            return
        tally.failures += 1
        name = getattr(of, "__qualname__", repr(of))
        pytest.fail(failure_report(f"{kind}({name}) failed: {result}", failure.schedule,
                                   failure.source), pytrace=False)


@pytest.fixture
def blanket_explore(request: pytest.FixtureRequest) -> Callable[..., Exploration]:
    """:func:`blanket.explore`, with the command line's options (and the
    ``blanket`` marker's); a failure found fails the test with the verdict,
    the schedule as a timeline and the test that replays it."""
    searches = _Searches(request)

    def explore(setup: Setup, **options: Any) -> Exploration:
        result = _explore(setup, **searches.options(options, exploring=True))
        searches.done("explore", setup, result)
        return result
    return explore


@pytest.fixture
def blanket_check_linearizable(request: pytest.FixtureRequest
                               ) -> Callable[..., Linearizability]:
    """:func:`blanket.check_linearizable`, with the command line's seed and
    budget (and the ``blanket`` marker's options); a failure found fails the
    test with the scenario, the schedule as a timeline, why no order
    explains the results and the test that replays it."""
    searches = _Searches(request)

    def check_linearizable(make: Callable[[], Any], operations: Sequence[Callable[[Any], Any]],
                           **options: Any) -> Linearizability:
        result = _check_linearizable(make, operations,
                                     **searches.options(options, exploring=False))
        searches.done("check_linearizable", make, result)
        return result
    return check_linearizable


class _NamedScenario(Scenario):
    """A scenario whose threads are named "A", "B", "C", ... in creation order."""

    def __init__(self, name: str, *, timeout: float) -> None:
        super().__init__(name, timeout=timeout)
        self._names = thread_names()
        # The fixture's teardown reports a dead thread, once, as an error.
        self._report_dead_workers = False

    def thread(self, target: Callable[..., Any], *args: Any, **kwargs: Any
               ) -> threading.Thread:
        """A managed thread running ``target(*args, **kwargs)``, named "A",
        "B", "C", ... in creation order (rename it at will)."""
        return self._thread(target, args, kwargs, next(self._names))


_CALL = pytest.StashKey[pytest.TestReport]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Keep the report of the test's call, for the scenario fixture's teardown."""
    made = yield
    if made.when == "call":
        item.stash[_CALL] = made
    return made


@pytest.fixture
def scenario(request: pytest.FixtureRequest) -> Iterator[Scenario]:
    """A fresh :class:`~blanket.Scenario` for the test, cleaned up after it."""
    marked = _marked(request.node)
    timeout = check_seconds(marked.get("timeout", DEFAULT_TIMEOUT),
                            "@pytest.mark.blanket's timeout")
    made = _NamedScenario(request.node.name, timeout=timeout)
    yield made
    called = request.node.stash.get(_CALL, None)
    required = bool(marked.get("threads_must_run", True)) and called is not None \
        and called.passed
    problems = clean_up(made, never_ran=(
        "enter 'with scenario:' afterwards (mark the test "
        "@pytest.mark.blanket(threads_must_run=False) if it never meant to run them)")
        if required else None)
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)



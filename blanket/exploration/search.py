"""The search: run a scenario under many orders of its calls, and stop at
the first order that breaks it.

A scenario is described once by a *setup* function: given a fresh
:class:`~blanket.Scenario`, it creates the primitives and the threads
(``scenario.thread``) and returns the invariant to check once the threads
have finished (or ``None``). :func:`explore` then runs it again and again.
In each run it is the scheduler: whenever every thread is parked at a call
or asleep for good (:mod:`blanket.progress`), it lets one parked call go;
which one is the strategy's choice:

``"dfs"``
    every distinct order, depth first, with dynamic partial-order reduction
    (calls on different primitives commute, so one order of them is run:
    the reversals of the run's races and sleep sets decide which) and an
    optional bound on preemptions;
``"random"``
    a seeded random choice at every step;
``"pct"``
    probabilistic concurrency testing: random thread priorities with
    *depth* - 1 priority change points.

Real time never passes: a call whose outcome depends on its timeout is two
choices, waited for in time or expired at once.

The threads of a run take turns on one CPU (:mod:`blanket.exploration.affinity`);
each run is :mod:`blanket.exploration.run`'s.

A run fails when a thread raises, when the invariant fails, or when live
threads remain and no call can be let go (a deadlock, reported as its
wait-for cycle). The failure carries the schedule and the source of a
:class:`~blanket.ScenarioTestCase` that replays it (:mod:`blanket.exploration.reproduce`).
``shard=(i, n)`` splits a search deterministically: the shards 1..n of one
search run disjoint sets of schedules that together are the whole search.
The depth-first search splits exactly with data races watched too: its
first pass, which every shard makes alike, runs each prefix of the split
once, and the races it meets restart the search in every shard alike.
"""

from __future__ import annotations

import random
import time
import zlib
from collections.abc import Sequence
from contextlib import nullcontext

from ..seconds import check_seconds
from . import pct, uniform
from .affinity import one_cpu
from .dfs import DepthFirst
from .processes import check as check_processes
from .processes import search as search_processes
from .races import Race
from .races import report as races_report
from .reach import Goal, goal
from .reproduce import reproduce
from .result import Exploration, Failure, Setup
from .run import Run, run_once
from .runners import Runners
from .sites import Site
from .unseen import Unseen

STRATEGIES = ("dfs", "random", "pct")
#: What :func:`explore` does with data races on plain shared state.
RACES = ("report", "fail", "off")


def _parse_shard(shard: str | tuple[int, int] | None) -> tuple[int, int]:
    if shard is None:
        return 1, 1
    if isinstance(shard, str):
        try:
            index, count = (int(part) for part in shard.split("/"))
        except ValueError:
            raise ValueError(f"shard {shard!r}: expected 'i/n', e.g. '1/4'") from None
    elif isinstance(shard, tuple) and len(shard) == 2 \
            and all(_is_int(part) for part in shard):
        index, count = shard
    else:
        raise TypeError(f"shard={shard!r}: expected 'i/n' or a tuple (i, n) of two ints")
    if not 1 <= index <= count:
        raise ValueError(f"shard {index}/{count}: expected 1 <= i <= n")
    return index, count


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_count(name: str, value: object, least: int, *, optional: bool = False) -> None:
    """Refuse *value* for the argument *name* unless it is an int of at
    least *least* (or ``None`` when *optional*): a float, even ``nan``, or
    a string would stop the search at once or never."""
    if optional and value is None:
        return
    if not _is_int(value):
        expected = "an int or None" if optional else "an int"
        raise TypeError(f"{name}={value!r}: expected {expected}")
    if value < least:  # type: ignore[operator]
        more = "0 or more" if least == 0 else f"at least {least}"
        raise ValueError(f"{name}={value}: expected {more}")


def _check_arguments(setup: object, strategy: object, seed: object, timeout: object,
                     name: object) -> None:
    """Refuse, at the call, the arguments of :func:`explore` that are not
    counts (those are :func:`_check_count`'s)."""
    if not callable(setup):
        raise TypeError(f"explore: setup={setup!r} is not callable: expected a "
                        "function that fills a Scenario")
    if not isinstance(strategy, str):
        raise TypeError(f"strategy={strategy!r}: expected one of {', '.join(STRATEGIES)}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy {strategy!r}: expected one of {', '.join(STRATEGIES)}")
    if not _is_int(seed):
        raise TypeError(f"seed={seed!r}: expected an int")
    check_seconds(timeout, "explore's timeout")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name={name!r}: expected a str or None")


def _owner(choices: Sequence[str], count: int) -> int:
    """The shard (1..count) a schedule prefix belongs to."""
    return zlib.crc32(",".join(choices).encode()) % count + 1


def _failure(setup: Setup, run: Run) -> Failure:
    """The failure of *run*, with a test replaying it."""
    assert run.failure is not None
    kind, message = run.failure
    steps = tuple(run.steps)
    return Failure(kind, message, steps, reproduce(setup, steps, kind, message, run))


def explore(setup: Setup, *, strategy: str = "dfs", max_schedules: int = 10_000,
            max_preemptions: int | None = None, seed: int = 0, depth: int = 3,
            shard: str | tuple[int, int] | None = None, split_depth: int = 4,
            timeout: float = 10.0, name: str | None = None, races: str = "report",
            reach: object = None, lines: bool = False, processes: int = 1) -> Exploration:
    """Run the scenario *setup* describes under many orders of its calls;
    stop at the first failure.

    *strategy* is ``"dfs"`` (every order, with partial-order reduction and at
    most *max_preemptions* preemptions when given), ``"random"`` or ``"pct"``
    (seeded by *seed*; *depth* is PCT's bug depth). At most *max_schedules*
    schedules are counted. *shard* (``"i/n"`` or ``(i, n)``) runs only the
    i-th of n disjoint parts of the search, split by the first *split_depth*
    choices of each schedule (by run number for the random strategies).
    The depth-first search first runs each such prefix once, in every
    shard alike (see :doc:`/exploration`), then the rest of its own: a data
    race met only in that rest, which the other shards do not park at, is
    named in :attr:`Exploration.unseen`.
    *timeout* bounds each wait for the threads to settle.

    The threads' targets (and whatever ``scenario.instrument`` names) are
    watched for data races on plain shared state (:mod:`blanket.exploration.watch`):
    each race found makes its accesses steps of the following runs (a new
    one restarts the search), and is listed on the result. *races* is
    ``"report"`` (that), ``"fail"`` (a race is also a failure) or ``"off"``
    (nothing watched: steps at calls on primitives only). What watched code
    makes with ``threading`` (threads, locks, ...) is the run's own
    (:mod:`blanket.exploration.adopt`).

    *reach* names lines to run (``"pkg/module.py:42"``, ``(function, 42)``
    or a list of them: see :mod:`blanket.exploration.reach`): the search
    also stops once a run has run each of them, and
    :attr:`Exploration.reached` gives the schedule and the test. With
    *lines*, :attr:`Exploration.lines` says which lines of the watched
    files the runs ran, and which no order runs when the search covered
    every order.

    *processes* > 1 runs the shards of the search in that many local
    processes and merges them (:mod:`blanket.exploration.processes`): the
    same schedules; the setup must be importable.
    """
    _check_arguments(setup, strategy, seed, timeout, name)
    _check_count("max_schedules", max_schedules, 1)
    _check_count("max_preemptions", max_preemptions, 0, optional=True)
    _check_count("depth", depth, 1)
    _check_count("split_depth", split_depth, 1)
    if races not in RACES:
        raise ValueError(f"races={races!r}: expected one of {', '.join(map(repr, RACES))}")
    if check_processes(setup, processes) > 1:
        if shard is not None:
            raise ValueError(f"shard={shard!r} with processes={processes}: the processes "
                             "run the shards themselves")
        return search_processes(explore, setup, processes, {
            "strategy": strategy, "max_schedules": max_schedules,
            "max_preemptions": max_preemptions, "seed": seed, "depth": depth,
            "split_depth": split_depth, "timeout": timeout, "name": name, "races": races,
            "reach": reach, "lines": lines})
    aim = goal(setup, reach, lines, timeout)
    # A run's threads go one at a time (see blanket.exploration.affinity);
    # the lines looked for are probed for the whole search.
    with one_cpu(), aim or nullcontext():
        runners = Runners()
        try:
            return _search(setup, strategy, max_schedules, max_preemptions, seed, depth, shard,
                           split_depth, timeout, name, races, runners, aim)
        finally:
            runners.close()  # nothing left running, however the search ended


def _search(setup: Setup, strategy: str, max_schedules: int, max_preemptions: int | None,
            seed: int, depth: int, shard: str | tuple[int, int] | None, split_depth: int,
            timeout: float, name: str | None, races: str, runners: Runners,
            aim: Goal | None = None) -> Exploration:
    """:func:`explore`, its arguments checked; the runs' managed threads
    run on *runners*; *aim* the lines looked for."""
    racy: set[Site] | None = None if races == "off" else set()
    seen: set[Race] = set()
    index, count = _parse_shard(shard)
    title = name or str(getattr(setup, "__qualname__", "exploration"))
    result = Exploration(strategy, max_preemptions=max_preemptions)
    unseen = Unseen()
    if aim is not None:
        aim.start(result)
    started = time.monotonic()
    search = DepthFirst(max_preemptions, split_depth) if strategy == "dfs" else None
    length = 1
    number = 0
    loose: Run | None = None  # a failure its schedule does not make
    late: list[str] = []  # sites of races met after the split, in this shard only
    while len(result.schedules) < max_schedules:
        if search is None:
            if number >= max_schedules:  # the run numbers are split, not the count
                break
            mine = number % count == index - 1
            number += 1
            if not mine:
                continue
            rng = random.Random(f"{seed}/{number}")
            chooser = (uniform.chooser(rng) if strategy == "random"
                       else pct.chooser(rng, depth, length))
            run = run_once(setup, title, timeout, chooser, unseen,
                       racy, runners=runners)
        else:
            run = run_once(setup, title, timeout, search.choose, unseen,
                       racy, runners=runners)
            search.analyse(run.trace, run.pending)
            prefix = run.marks(split_depth)
            mine = _owner(prefix, count) == index
        result.runs += 1
        length = max(length, len(run.taken))
        if mine and not run.redundant:
            result.schedules.append(run.marks())
        grown = False
        if racy is not None:
            found, sites = run.races()
            result.races += [race for race in found if race not in seen]
            seen.update(found)
            new = sites - racy
            grown = bool(new)
            racy |= sites
            if new and search is not None and not search.top and count > 1:
                late += sorted({site.place for site in new})
            if found and races == "fail" and run.failure is None:
                run.failure = ("race", races_report(found))
        reached = aim is not None and aim.note(run, result, grown)
        if mine and run.failure is not None:
            if not grown or run.failure[0] == "race":
                result.failure = _failure(setup, run)
                break
            # The threads ran free through accesses that were no steps yet (on
            # a free-threaded build, in parallel): the schedule does not make
            # this failure, so no test could replay it. Search on with them as
            # steps; report it only if that search finds nothing.
            loose = loose or run
        if reached:
            break
        if grown:
            # New scheduling points: the space searched so far is not the
            # scenario's. Search again; the schedules counted are the new search's.
            result.schedules.clear()
            if search is not None:
                search = DepthFirst(max_preemptions, split_depth)
                continue
        if search is not None and not search.advance(mine):
            result.exhausted = True
            break
    if result.failure is None and loose is not None:
        result.failure = _failure(setup, loose)
    result.unseen = unseen.notes
    if late:
        result.unseen.append(
            f"shard {index}/{count}: data race(s) at {', '.join(dict.fromkeys(late))} met "
            "after the split, in this shard's runs: the other shards do not park there")
    result.exhausted = result.exhausted and not result.unseen
    if aim is not None:
        aim.finish(result)
    result.elapsed = time.monotonic() - started
    return result

"""One search over several local processes: ``explore(..., processes=N)``
runs the exact shards ``1/N`` .. ``N/N`` of the search (``shard=``, see
``blanket.exploration.search``), one a process, with the standard
library's ``concurrent.futures``, and merges what they found.

The shards of a search are disjoint and together are the whole search, so
the merged result has the schedules one process would run (in another
order). Each process keeps its runs on one CPU of its own (the CPUs the
search may use, in turn), so that two shards never share one. The
processes are started afresh (``spawn``), never forked from a process that
may run threads: the setup is sent by name, so it must be importable (a
function at a module's top level). ``max_schedules`` bounds each process's
count. Each shard stops at its own first failure; the merged result gives
the failure of the first shard (by number) that found one.
"""

from __future__ import annotations

import os
import pickle
import time
from collections.abc import Callable
from typing import Any

from .reached import FileLines
from .result import Exploration, Setup


def check(setup: Setup, processes: object) -> int:
    """The number of processes, refused unless an int of at least 1; for
    more than one, *setup* refused unless it can be sent to another process."""
    if not isinstance(processes, int) or isinstance(processes, bool):
        raise TypeError(f"processes={processes!r}: expected an int")
    if processes < 1:
        raise ValueError(f"processes={processes}: expected at least 1")
    if processes > 1:
        try:
            pickle.dumps(setup)
        except Exception as error:  # noqa: BLE001 - whatever pickling refuses
            raise TypeError(
                f"processes={processes}: the setup {setup!r} cannot be sent to another "
                f"process ({error}): define it at a module's top level") from None
    return processes


def search(explore: Callable[..., Exploration], setup: Setup, processes: int,
           options: dict[str, Any]) -> Exploration:
    """Run the shards of the search *explore* makes of *setup* with
    *options* (no ``shard``), one a process, and merge them."""
    # Imported here: multiprocessing names a module "__mp_main__" as it is
    # imported, and every import of blanket would pay for both.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    started = time.monotonic()
    cpus = sorted(getattr(os, "sched_getaffinity", lambda _: set())(0))
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(processes, mp_context=context) as pool:
        futures = [pool.submit(_shard, explore, setup, index, processes,
                               cpus[(index - 1) % len(cpus)] if cpus else None, options)
                   for index in range(1, processes + 1)]
        parts = [future.result() for future in futures]
    merged = merge(parts)
    merged.elapsed = time.monotonic() - started
    return merged


def _shard(explore: Callable[..., Exploration], setup: Setup, index: int, count: int,
           cpu: int | None, options: dict[str, Any]) -> Exploration:
    """One shard, in its process, on *cpu* when given."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    return explore(setup, shard=(index, count), **options)


def merge(parts: list[Exploration]) -> Exploration:
    """The result of the whole search, from the results of its shards in order."""
    first = parts[0]
    merged = Exploration(first.strategy, max_preemptions=first.max_preemptions)
    merged.exhausted = all(part.exhausted for part in parts)
    merged.failure = next((part.failure for part in parts if part.failure is not None), None)
    for part in parts:
        merged.schedules += part.schedules
        merged.runs += part.runs
        merged.unseen += [note for note in part.unseen if note not in merged.unseen]
        merged.races += [race for race in part.races if race not in merged.races]
        for place, found in part.reached.items():
            if merged.reached.get(place) is None:
                merged.reached[place] = found
    for file in first.lines:
        ran = frozenset().union(*(part.lines[file].ran for part in parts))
        missed = frozenset().union(*(part.lines[file].missed for part in parts)) - ran
        covered = all(part.lines[file].never is not None for part in parts)
        merged.lines[file] = FileLines(file, ran, missed, missed if covered else None)
    return merged

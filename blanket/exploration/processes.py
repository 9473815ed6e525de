"""One search over several local processes: ``explore(..., processes=N)``
runs the exact shards ``1/N`` .. ``N/N`` of the search (``shard=``, see
``blanket.exploration.search``), one a process, and merges what they found.

The shards of a search are disjoint and together are the whole search, so
the merged result has the schedules one process would run (in another
order). Each process keeps its runs on one CPU of its own (the CPUs the
search may use, in turn), so that two shards never share one. The
processes are started afresh (``spawn``), never forked from a process that
may run threads: the setup is sent by name, so it must be importable (a
function at a module's top level). ``max_schedules`` bounds each process's
count. Each shard stops at its own first failure; the merged result gives
the failure of the first shard (by number) that found one. An exception a
shard raises (a setup refused) is raised in the caller, the shard's
traceback in its notes; a process that ends without a result is a
:class:`RuntimeError`. With ``progress=``, each process sends its shard's
progress on the same pipe, and the caller reports their sum
(:mod:`blanket.exploration.reporting`).

No process outlives the search. However it ends (every result in, an
exception, Ctrl-C), the caller ends and reaps every process before it
returns (``stop``): Ctrl-C is the caller's (the processes ignore it)
and is raised within milliseconds, not once the shards are done. A process
whose caller is killed (no ``finally`` runs there) leaves at once too: a
thread of its own waits for the caller's end (``leave_with``).
"""

from __future__ import annotations

import os
import pickle
import signal
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from ..holdback import interrupts_held_back
from ..seconds import Deadline
from .reached import FileLines
from .reporting import Progress, Report, Reporter, budget, total
from .result import Exploration, Setup
from .tried import TRYING

if TYPE_CHECKING:  # pragma: no cover
    from multiprocessing.connection import Connection
    from multiprocessing.context import SpawnContext
    from multiprocessing.process import BaseProcess

#: How long, in seconds, a process is given to end: by itself once it sent
#: its result, then once terminated, before it is killed.
GRACE = 1.0
#: How long, in seconds, a killed process is waited for: it ends at once,
#: but a machine under load may take a while to reap it (a process the
#: suite saw alive 1 s after its kill, at a load of 6 on 2 cores).
REAPED = 10.0
#: The exit status of a process whose caller ended first.
ORPHANED = 70
#: What a process sends its caller: its shard's result, or what it raised;
#: before them, with ``progress=``, its shard's progress.
DONE, RAISED, PROGRESS = "done", "raised", "progress"


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
           options: dict[str, Any], progress: Callable[[Progress], object] | None = None
           ) -> Exploration:
    """Run the shards of the search *explore* makes of *setup* with
    *options* (no ``shard``), one a process, and merge them; *progress*
    told the sum of theirs."""
    # Imported here: multiprocessing names a module "__mp_main__" as it is
    # imported, and every import of blanket would pay for both.
    import multiprocessing

    started = time.monotonic()
    cpus = sorted(getattr(os, "sched_getaffinity", lambda _: set())(0))
    context = multiprocessing.get_context("spawn")
    workers: list[tuple[BaseProcess, Connection]] = []
    parts: list[Exploration] | None = None
    shares = _Shares(progress, options["strategy"], options["max_schedules"], processes,
                     started)
    if progress is not None:
        options = {**options, "progress": True}  # (each process sends its own)
    # Each process spends what is left of the search's time (it starts later).
    options = {**options, "deadline": started + options["max_seconds"]}
    try:
        for index in range(1, processes + 1):
            cpu = cpus[(index - 1) % len(cpus)] if cpus else None
            # Ctrl-C while a process starts comes once it is on the list.
            with interrupts_held_back():
                workers.append(start(context, (explore, setup, index, processes, cpu,
                                               options)))
        parts = collect(workers, shares)
    finally:
        # However the search ended: the processes that sent their results
        # are ending, the others (an exception, Ctrl-C) are ended at once.
        stop([process for process, _ in workers], GRACE if parts is not None else 0.0)
        for _, results in workers:
            results.close()
    merged = merge(parts)
    merged.elapsed = time.monotonic() - started
    shares.finish(merged)
    return merged


class _Shares:
    """The latest progress of each shard of a search over processes, and
    who is told their sum (:mod:`blanket.exploration.reporting`), if anyone."""

    def __init__(self, progress: Report | None, strategy: str, max_schedules: int,
                 count: int, started: float) -> None:
        self.reporter = None if progress is None else Reporter(progress)
        self.started = started
        self.latest: dict[int, Progress] = {}
        for index in range(1, count + 1):  # (nothing run yet)
            share = budget(strategy, max_schedules, index, count)
            self.latest[index] = Progress(0, 0, 0.0, 0, 0, share, share)

    def note(self, index: int, progress: Progress) -> None:
        """Shard *index* went as far as *progress*: say the sum when due."""
        self.latest[index] = progress
        if self.reporter is not None and self.reporter.due():
            self.reporter.report(total(self.latest.values(), time.monotonic() - self.started))

    def finish(self, merged: Exploration) -> None:
        """The last report: the search over, *merged* its result."""
        if self.reporter is not None:
            whole = total(self.latest.values(), merged.elapsed)
            self.reporter.report(Progress(
                len(merged.schedules), merged.runs, merged.elapsed, len(merged.races),
                len(merged.unseen), whole.max_schedules, whole.left, done=True))


def start(context: SpawnContext, args: tuple[Any, ...]) -> tuple[BaseProcess, Connection]:
    """A process started on the shard *args* describes (*explore*,
    *setup*, its number, their count, its CPU, the options), and the end of
    the pipe it sends its answer on (its own end closed here, so that the
    pipe ends when the process does)."""
    index, count = args[2:4]
    results, answer = context.Pipe(duplex=False)
    try:
        process = context.Process(target=_worker, args=(answer, *args),
                                  name=f"blanket shard {index}/{count}")
        process.start()
    except BaseException:
        results.close()
        raise
    finally:
        answer.close()
    return process, results


def collect(workers: Sequence[tuple[BaseProcess, Connection]], shares: _Shares
            ) -> list[Exploration]:
    """The results of *workers* (their shards 1, 2, ... in order), as they
    come, their progress noted in *shares*; what a shard raised, raised here."""
    from multiprocessing.connection import wait

    count = len(workers)
    parts: dict[int, Exploration] = {}
    left = {results: index for index, (_, results) in enumerate(workers, 1)}
    while left:
        for ready in wait(list(left)):
            results = cast("Connection", ready)
            index = left[results]
            answer = _answer(workers[index - 1][0], results, index, count)
            if isinstance(answer, Progress):
                shares.note(index, answer)
            else:
                del left[results]
                parts[index] = answer
    return [parts[index] for index in sorted(parts)]


def _answer(process: BaseProcess, results: Connection, index: int, count: int
            ) -> Exploration | Progress:
    """The answer of shard *index* of *count*, run by *process*, or its
    progress so far."""
    try:
        answer = results.recv()
    except EOFError:
        process.join(GRACE)
        raise RuntimeError(f"processes={count}: the process of shard {index}/{count} "
                           f"ended without its result (exit code {process.exitcode})"
                           ) from None
    if answer[0] == RAISED:
        error, trace = answer[1], answer[2]
        error.add_note(f"(raised in the process of shard {index}/{count}:)\n{trace}")
        raise error
    return cast("Exploration | Progress", answer[1])


def stop(processes: Sequence[BaseProcess], grace: float = 0.0) -> None:
    """End and reap the started *processes*: given *grace* seconds in all
    to end by themselves, then terminated, then killed if they outlive
    :data:`GRACE` more (and reaped within :data:`REAPED`). Ctrl-C meanwhile
    comes once they are reaped."""
    with interrupts_held_back():
        for bound, end in ((grace, None), (GRACE, "terminate"), (REAPED, "kill")):
            alive = [process for process in processes if process.exitcode is None]
            if end is not None:
                for process in alive:
                    getattr(process, end)()
            deadline = time.monotonic() + bound
            for process in alive:
                process.join(max(0.0, deadline - time.monotonic()))


def _worker(answer: Connection, explore: Callable[..., Exploration], setup: Setup,
            index: int, count: int, cpu: int | None, options: dict[str, Any]) -> None:
    """A process's life: its shard run and its answer sent on *answer*;
    it leaves at once if its caller ends first."""
    import multiprocessing

    # Ctrl-C is the caller's: it ends the processes itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The caller tries the written tests of the merged result, once.
    os.environ[TRYING] = "1"
    leave_with(multiprocessing.parent_process())
    _work(answer, explore, setup, index, count, cpu, options)


def leave_with(parent: BaseProcess | None) -> None:
    """End this process at once (``os._exit``) when *parent*, the process
    that started it, ends: a daemon thread joins it. Joining the parent
    ``multiprocessing.parent_process()`` gives waits for the end of a pipe
    only the parent holds open (on Windows, for its process handle), which
    the system closes however the parent ends, killed too."""
    if parent is not None:
        threading.Thread(target=_orphaned, args=(parent,), name="blanket: the caller's end",
                         daemon=True).start()


def _orphaned(parent: BaseProcess) -> None:
    parent.join()
    os._exit(ORPHANED)  # nothing to clean up: its caller, who wanted it, is gone


def _work(answer: Connection, explore: Callable[..., Exploration], setup: Setup, index: int,
          count: int, cpu: int | None, options: dict[str, Any]) -> None:
    """Run the shard and send *answer* the result, or what it raised (and
    its progress before, when *options* ask for it)."""
    if options.get("progress"):
        options = {**options, "progress": partial(_send_progress, answer)}
    try:
        sent: tuple[object, ...] = (DONE, _shard(explore, setup, index, count, cpu, options))
    except BaseException as error:  # noqa: BLE001 - raised again by the caller
        trace = "".join(traceback.format_exception(error)).rstrip()
        try:
            pickle.loads(pickle.dumps(error))
        except Exception:  # noqa: BLE001 - whatever pickling refuses
            # The caller could not make it again: what it said, in one it can.
            error = RuntimeError(f"{type(error).__qualname__}: {error}")
        sent = (RAISED, error, trace)
    answer.send(sent)


def _send_progress(answer: Connection, progress: Progress) -> None:
    answer.send((PROGRESS, progress))


def _shard(explore: Callable[..., Exploration], setup: Setup, index: int, count: int,
           cpu: int | None, options: dict[str, Any]) -> Exploration:
    """One shard, in its process, on *cpu* when given."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    # The caller's clock is this process's (time.monotonic is the system's).
    deadline = Deadline(options["max_seconds"], options.pop("deadline"))
    result = explore(setup, shard=(index, count), **{**options, "max_seconds": deadline.left()})
    if result.stopped.startswith("max_seconds="):
        result.stopped = deadline.label  # the budget as the user gave it
    return result


def merge(parts: list[Exploration]) -> Exploration:
    """The result of the whole search, from the results of its shards in order."""
    first = parts[0]
    merged = Exploration(first.strategy, max_preemptions=first.max_preemptions)
    merged.exhausted = all(part.exhausted for part in parts)
    merged.failure = next((part.failure for part in parts if part.failure is not None), None)
    # Each shard ran the setup: what one could not check, none could.
    merged.unchecked = first.unchecked
    merged.stopped = next((part.stopped for part in parts if part.stopped), "")
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

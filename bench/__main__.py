"""Run blanket's benchmarks: ``python -m bench [--scale S] [--repeats N] [--blanket10 PYTHON]``.

Prints, measured in one run, each figure of issue #7 with its target and
whether it is met. The compared things are measured side by side: their
repetitions are interleaved and each figure is the best of its repetitions,
so a noisy, shared machine shifts both sides of a ratio alike.

With ``--blanket10 PYTHON`` (an interpreter whose environment has blanket
1.0 installed, see ``make bench10``) the same measurements run there too, in
a subprocess, and are printed side by side. ``--scale`` multiplies every
iteration count (the test suite runs it tiny, to check it runs and prints
every figure; it never looks at the numbers).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from . import exploration, linearizability, measure


class Figure(NamedTuple):
    """One printed figure: how to compute it from the measurements, its
    unit, and its target (the figure must not exceed it)."""

    label: str
    compute: Callable[[dict[str, Any]], float]
    unit: str
    target: float | None


def _ratio(top: str, bottom: str) -> Callable[[dict[str, Any]], float]:
    return lambda m: float(m[top]) / float(m[bottom])


def _value(name: str, scale: float = 1.0) -> Callable[[dict[str, Any]], float]:
    return lambda m: float(m[name]) * scale


#: What is printed, in order; a figure without a target is context.
#: Whether this interpreter runs without the GIL (3.13t).
_FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))

FIGURES = [
    Figure("bare round trip: main -> partner -> main, two threading.Locks",
           _value("bare_round_trip", 1e-3), "us", None),
    Figure("scripted transaction: skip(t, acquire, release), 2 threads",
           _value("tx_2", 1e-3), "us", None),
    Figure("  transaction / bare round trip (each is scheduler -> thread -> scheduler)",
           _ratio("tx_2", "bare_round_trip"), "x", 2.0),
    Figure("  context: bare round trip through two queue.SimpleQueues (blanket parks on them)",
           _value("bare_queue_round_trip", 1e-3), "us", None),
    Figure("  context: transaction / that round trip",
           _ratio("tx_2", "bare_queue_round_trip"), "x", None),
    Figure("scripted transaction, 64 threads round robin",
           _value("tx_64", 1e-3), "us", None),
    Figure("  per hand-off, 64 threads / 2 threads",
           _ratio("tx_64", "tx_2"), "x", 1.3),
    Figure("  context: bare SimpleQueue round trip, 64 partners / 1 (the machine's own)",
           _ratio("bare_queue_64", "bare_queue_round_trip"), "x", None),
    Figure("  context: Python calls per transaction, 2 threads (counted, not timed)",
           _value("calls_2"), "calls", None),
    Figure("  context: Python calls per transaction, 64 threads / 2 threads",
           _ratio("calls_64", "calls_2"), "x", None),
    Figure("outside a scenario: lock.acquire(); lock.release(), threading.Lock",
           _value("bare_call"), "ns", None),
    Figure("outside a scenario: lock.acquire(); lock.release(), blanket Lock",
           _value("outside_call"), "ns", None),
    Figure("  blanket / threading, acquire + release",
           _ratio("outside_call", "bare_call"), "x", 3.0),
    Figure("outside a scenario: with lock: pass, threading.Lock",
           _value("bare_with"), "ns", None),
    Figure("outside a scenario: with lock: pass, blanket Lock",
           _value("outside_with"), "ns", None),
    Figure("  blanket / threading, with lock",
           _ratio("outside_with", "bare_with"), "x", 3.0),
    # Less than a byte per call: nothing grows with the number of calls.
    Figure("bytes retained per acquire + release outside a scenario",
           _value("retained_per_call"), "B", 0.99),
    Figure("bytes held per logged transaction",
           _value("bytes_per_tx"), "B", 600.0),
    # Issues 15 and 21: exploration (measured for this checkout only); the
    # free-threaded build's targets are issue 21's for it.
    Figure("watched access, not a scheduling point (recorded, as in explore)",
           _value("watched_access"), "ns", 2000.0 if _FREE_THREADED else 1000.0),
    Figure("explore: 2 threads x 6 locked sections, exhausted (924 orders)",
           _value("sections_seconds"), "s", 3.0 if _FREE_THREADED else 2.0),
    # Issue 30: the witness of "the whole space" (blanket.exploration.witness).
    Figure("  the same without the witness",
           _value("sections_unwitnessed_seconds"), "s", None),
    Figure("  with the witness / without it",
           _ratio("sections_seconds", "sections_unwitnessed_seconds"), "x", 1.25),
    Figure("  context: schedules per second, 2 x 6 locked sections (dfs)",
           _value("sections_per_second"), "/s", None),
    Figure("  context: schedules per second, 3 racing increments (dfs)",
           _value("racy_per_second"), "/s", None),
    Figure("  context: schedules per second, 3 racing increments (random)",
           _value("random_per_second"), "/s", None),
    # Issue 23: reaching a line, and one search over two processes.
    Figure("explore(reach=...): the retry of an optimistic update, 3 threads",
           _value("reach_seconds"), "s", 1.0),
    Figure("explore(reach=...): runs to reach the 10 lines of tests/reach_cases.py, guided",
           _value("reach_runs_guided"), "runs", None),
    Figure("  the same, plain dfs (guided=False)",
           _value("reach_runs_plain"), "runs", None),
    Figure("  guided / plain dfs (blanket.exploration.guided)",
           _ratio("reach_runs_guided", "reach_runs_plain"), "x", 0.75),
    Figure("explore: 2 threads x 7 locked sections (3432 orders), 1 process",
           _value("one_process_seconds"), "s", None),
    Figure("  the same, processes=2",
           _value("two_processes_seconds"), "s", None),
    Figure("  processes=2 / 1 process (faster on two free cores)",
           _ratio("two_processes_seconds", "one_process_seconds"), "x", 0.9),
    # Issue 32: a wall-clock budget on a search (max_seconds=).
    Figure("explore(max_seconds=5), 3 threads x 6 locked sections: seconds to its verdict",
           _value("budget_seconds"), "s", 6.0),
    Figure("  seconds past the budget",
           lambda m: float(m["budget_seconds"]) - float(m["budget_given"]), "s", 1.0),
    Figure("explore: 3 threads asking an actor the setup starts, seconds per 100 runs",
           lambda m: 100 * float(m["actor_seconds"]) / float(m["actor_runs"]), "s", 5.0),
    Figure("  context: the runs of its 100 schedules",
           _value("actor_runs"), "runs", None),
    Figure("explore: a process-wide logger's handlers removed while it logs (loguru's "
           "shape, fixed): seconds to the whole space", _value("logger_seconds"), "s", 60.0),
    Figure("  seconds per 50 of its schedules",
           lambda m: 50 * float(m["logger_seconds"]) / float(m["logger_count"]), "s",
           None if _FREE_THREADED else 1.0),
    # Issue 30: a failure's written test run as its user runs it.
    Figure("a failure's written test tried (python -m unittest, a fresh interpreter)",
           _value("trying_seconds"), "s", 2.0),
    # Issue 22: linearizability checking.
    Figure("check_linearizable: scenarios per second, queue.Queue, 2 x 2 (every order)",
           _value("lin_scenarios_per_second"), "/s", None),
    Figure("history checks per second, 2 x 3 operations (memoized specification)",
           _value("lin_checks_per_second"), "/s", None),
    Figure("one history check, 2 x 3 operations (memoized specification)",
           _value("lin_check"), "us", 1000.0),
    Figure("one history check, 2 x 3 operations, nothing memoized (the model run too)",
           _value("lin_cold_check"), "us", 1000.0),
    Figure("the slowest of 8 buggy structures found, minimized, its test written",
           _value("lin_slowest_buggy"), "s", 2.0),
    # Issue 32: checks of locked LRU caches written as two libraries write theirs.
    Figure("check_linearizable, an LRU in boltons' shape, 2 threads x 2 operations: seconds",
           _value("lru_linked_2"), "s", 5.0 if _FREE_THREADED else 2.0),
    Figure("  boltons' shape, 2 threads x 3 operations",
           _value("lru_linked_3"), "s", 45.0 if _FREE_THREADED else 20.0),
    Figure("check_linearizable, an LRU in cachetools' shape, 2 threads x 2 operations: seconds",
           _value("lru_cached_2"), "s", 5.0 if _FREE_THREADED else 2.0),
    Figure("  cachetools' shape, 2 threads x 3 operations",
           _value("lru_cached_3"), "s", 45.0 if _FREE_THREADED else 20.0),
]


def _format(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "B":
        return f"{value:.1f} B"
    return f"{value:.1f} {unit}"


def _target(figure: Figure) -> str:
    if figure.target is None:
        return ""
    if figure.unit == "B" and figure.target < 1:
        return "0 B"
    if figure.unit not in ("x", "B"):  # one word: "<= 2s"
        return f"<= {figure.target:g}{figure.unit}"
    return "<= " + _format(figure.target, figure.unit)


def report(ours: dict[str, Any], theirs: dict[str, Any] | None,
           theirs_note: str | None) -> list[str]:
    """The printed lines: every figure with its target and verdict."""
    lines = [f"measured: {ours['version']}"]
    if theirs is not None:
        lines.append(f"side by side: {theirs['version']}")
    elif theirs_note:
        lines.append(f"blanket 1.0: {theirs_note}")
    width = max(len(f.label) for f in FIGURES)
    header = f"{'figure':<{width}}  {'measured':>11}  {'target':>10}  {'met':>3}"
    if theirs is not None:
        header += f"  {'blanket 1.0':>11}"
    lines += [header, "-" * len(header)]
    all_met = True
    for figure in FIGURES:
        value = figure.compute(ours)
        met = "" if figure.target is None else ("yes" if value <= figure.target else "NO")
        all_met = all_met and met != "NO"
        line = (f"{figure.label:<{width}}  {_format(value, figure.unit):>11}  "
                f"{_target(figure):>10}  {met:>3}")
        if theirs is not None:
            try:
                their_value: float | None = figure.compute(theirs)
            except KeyError:  # a figure blanket 1.0 has nothing for
                their_value = None
            line += f"  {_format(their_value, figure.unit):>11}"
        lines.append(line)
    lines.append("every target met" if all_met else "some targets NOT met")
    return lines


def run_blanket10(python: str, scale: float, repeats: int, timeout: float
                  ) -> tuple[dict[str, Any] | None, str]:
    """The figures of blanket 1.0, measured by *python* in a subprocess."""
    script = Path(measure.__file__).resolve()
    # -P: this checkout's directory stays off sys.path, so ``import blanket``
    # finds the environment's blanket 1.0.
    command = [python, "-P", str(script), str(scale), str(repeats)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        return None, f"did not finish within {timeout:.0f} s"
    except OSError as exc:
        return None, f"could not run {python}: {exc}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"failed ({last})"
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures, ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply every iteration count (default 1)")
    parser.add_argument("--repeats", type=int, default=9,
                        help="interleaved repetitions of each measurement (default 9)")
    parser.add_argument("--blanket10", metavar="PYTHON",
                        help="an interpreter with blanket 1.0 installed, measured alongside")
    parser.add_argument("--blanket10-scale", type=float, default=0.1,
                        help="iteration scale for blanket 1.0, which is slow (default 0.1)")
    parser.add_argument("--blanket10-timeout", type=float, default=120.0,
                        help="seconds blanket 1.0's run may take (default 120)")
    args = parser.parse_args(argv)
    print("blanket benchmarks: each figure is the best of "
          f"{args.repeats} interleaved repetitions (scale {args.scale:g})", flush=True)
    ours = measure.collect(args.scale, args.repeats)
    ours.update(exploration.collect(args.scale, min(args.repeats, 3)))
    ours.update(linearizability.collect(args.scale, min(args.repeats, 3)))
    theirs, note = None, ""
    if args.blanket10:
        theirs, note = run_blanket10(args.blanket10, args.scale * args.blanket10_scale,
                                     args.repeats, args.blanket10_timeout)
    for line in report(ours, theirs, note):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

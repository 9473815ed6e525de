"""Run scripted scenarios many times and fail on the first run whose order differs.

``python -m stress [--runs N] [--load] [NAME ...]``: each scenario is a
function returning the order of events it saw (what the workers did, and
where the script fully decides it, the log); every run must return the same
order as the documented one. The README's scripts and the tutorial's pages
(stress/docs.py) return their output and the log of every scenario they ran,
and every run must return what the first one did. (An exploration, many runs in one, is
repeated ``COST`` times fewer.) ``--load`` keeps the other cores busy with
spinning processes meanwhile, as ``make stress`` does.
"""

from __future__ import annotations

import argparse
import difflib
import multiprocessing
import sys
import time

from stress.docs import DOC_SCENARIOS
from stress.scenarios import COST, SCENARIOS


def _spin(stop: multiprocessing.synchronize.Event) -> None:  # pragma: no cover
    while not stop.is_set():
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stress", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--load", action="store_true", help="keep the other cores busy")
    parser.add_argument("--keep-going", action="store_true",
                        help="after a deviation, go on and count them")
    parser.add_argument("names", nargs="*", help="scenarios to run (default: all)")
    args = parser.parse_args(argv)
    known = {**{name: (scenario, expected) for name, (scenario, expected) in SCENARIOS.items()},
             **{name: (scenario, None) for name, scenario in DOC_SCENARIOS.items()}}
    chosen = args.names or list(known)
    unknown = [name for name in chosen if name not in known]
    if unknown:
        parser.error(f"no scenario {', '.join(map(repr, unknown))}; "
                     f"choose from {', '.join(known)}")
    stop = multiprocessing.Event()
    spinners = []
    if args.load:
        for _ in range(max(1, multiprocessing.cpu_count() - 1)):
            spinner = multiprocessing.Process(target=_spin, args=(stop,), daemon=True)
            spinner.start()
            spinners.append(spinner)
    deviations = 0
    try:
        for name in chosen:
            scenario, expected = known[name]
            runs = max(1, args.runs // COST.get(name, 1))
            started = time.perf_counter()
            deviated = 0
            for run in range(1, runs + 1):
                try:
                    got = scenario()
                except Exception as error:  # noqa: BLE001 - a run that failed deviates
                    got = [f"raised {type(error).__name__}: {error}"]
                if expected is None and run == 1 and not got[0].startswith("raised "):
                    expected = got  # the first run is the reference
                if got != expected:
                    deviated += 1
                    if deviated == 1:  # the first deviation in full; then count them
                        print(f"{name}: run {run} deviated:")
                        print("\n".join(difflib.unified_diff(
                            expected or [], got, "expected", "got", lineterm="")))
                        if not args.keep_going:
                            break
            deviations += bool(deviated)
            print(f"{name}: {run} runs, {deviated} deviation(s) "
                  f"({time.perf_counter() - started:.1f} s)")
    finally:
        stop.set()
        for spinner in spinners:
            spinner.join()
    print(f"python {sys.version.split()[0]} gil={getattr(sys, '_is_gil_enabled', lambda: True)()}: "
          f"{deviations} scenario(s) deviated")
    return 1 if deviations else 0


if __name__ == "__main__":
    sys.exit(main())

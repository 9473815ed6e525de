"""Memory held across many scenarios: ``python -m stress.memory [--scenarios N]``.

Each round builds a fresh scenario, makes one primitive of each of the seven
kinds, and lets a managed thread use every one of them inside the scenario
(``scenario.finish``) and a plain thread use them outside it. Once a warm-up
has filled the interpreter's caches, the resident set size (``VmRSS`` from
``/proc/self/status``, so Linux only) is read before and after the rounds.
Nothing a scenario makes should outlive it: on the free-threaded build a
class made per scenario is made immortal as soon as a thread uses it, which
is what this catches.

Prints the RSS before and after and the growth, and exits non-zero when the
growth reaches ``--limit`` MB (5 by default).
"""

from __future__ import annotations

import argparse
import gc
import sys
import sysconfig
import threading
import time

import blanket


def rss_kb() -> int:
    """The resident set size of this process, in KB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")  # pragma: no cover


def _use(lock: object, rlock: object, condition: object, semaphore: object,
         bounded: object, event: object, barrier: object) -> None:
    """One call or two on each primitive (the primitives typed loosely:
    the scenario's own kinds)."""
    for primitive in (lock, rlock, condition, semaphore, bounded):
        with primitive:  # type: ignore[attr-defined]
            pass
    with condition:  # type: ignore[attr-defined]
        condition.notify_all()  # type: ignore[attr-defined]
    event.set()  # type: ignore[attr-defined]
    event.wait()  # type: ignore[attr-defined]
    barrier.wait()  # type: ignore[attr-defined]


def one_scenario() -> None:
    """A scenario, its seven primitives, and threads using them in and out of it."""
    scenario = blanket.Scenario("memory", timeout=10.0)
    primitives = (scenario.Lock(), scenario.RLock(), scenario.Condition(),
                  scenario.Semaphore(), scenario.BoundedSemaphore(), scenario.Event(),
                  scenario.Barrier(1))
    plain = threading.Thread(target=_use, args=primitives)
    plain.start()
    plain.join(10.0)
    worker = scenario.thread(_use, *primitives)
    with scenario:
        scenario.finish(worker)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stress.memory",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=5000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--limit", type=float, default=5.0, help="MB of growth that fails")
    args = parser.parse_args(argv)
    for _ in range(args.warmup):
        one_scenario()
    gc.collect()
    before = rss_kb()
    started = time.perf_counter()
    for _ in range(args.scenarios):
        one_scenario()
    gc.collect()
    after = rss_kb()
    elapsed = time.perf_counter() - started
    growth = (after - before) / 1024
    build = "free-threaded" if sysconfig.get_config_var("Py_GIL_DISABLED") else "GIL"
    print(f"python {sys.version.split()[0]} ({build}): {args.scenarios} scenarios in "
          f"{elapsed:.1f} s; RSS {before / 1024:.1f} MB -> {after / 1024:.1f} MB, "
          f"growth {growth:.2f} MB (limit {args.limit:g} MB)")
    return 0 if growth < args.limit else 1


if __name__ == "__main__":
    sys.exit(main())

"""Interrupt the scheduler at random points and check that nothing is lost.

``python -m stress.interrupts [--runs N] [--mode trace|signal] [--seed S]``

Each run builds a small scenario, picks one of a few scripts (relay, skip,
a Driver, finish, a condition cycle, low-level waits) and raises one
``KeyboardInterrupt`` in the scheduler (the main thread) while the script
runs:

- ``trace`` (the default): a trace function counts the points of blanket's
  own code the main thread goes through -- its lines, and the starts of its
  calls (where the interpreter also runs signal handlers) -- and calls
  ``SIGINT``'s handler (which raises, unless blanket holds it back) at a
  point chosen at random among those a run of that script goes through
  (calibrated by an uninterrupted run first), leaving out the few line
  events no real interrupt can land on (see ``_unreachable``);
- ``signal``: a ``SIGALRM`` timer, set to a random moment within the
  script's usual duration, whose handler sends the process a ``SIGINT``,
  as Ctrl-C does (Python's default handler raises ``KeyboardInterrupt``;
  blanket holds it back where it would leave threads behind, see
  blanket.holdback).

A run passes when the exception that leaves ``with scenario:`` is the
``KeyboardInterrupt`` itself, it arrives within one second of being raised,
no thread but the main thread is left alive, the scenario is exited, its
lock is free and ``SIGINT``'s handler is the one in place before. A run the
interrupt missed (the script ended first) is counted apart.

One more outcome is counted apart, not as a failure: a signal whose handler
CPython ran inside a callback of its own making -- a weakref callback (every
``threading.Thread`` is in ``threading._dangling``, a ``WeakSet``; its
``_remove`` runs wherever the garbage collector or a last reference frees a
thread object), a ``__del__`` -- where CPython prints the
``KeyboardInterrupt`` as "Exception ignored in ..." and drops it (as in any
Python program: CPython gh-95959). The run still must leave nothing behind;
a callback of blanket's own swallowing it is a failure.

Not part of ``make test``.
"""

from __future__ import annotations

import argparse
import collections
import dis
import faulthandler
import functools
import gc
import linecache
import os
import random
import signal
import statistics
import sys
import threading
import time
import traceback
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

import blanket
from blanket.core import ScenarioCore
from blanket.holdback import first_offset

#: How long the interrupt may take to reach the caller.
PROMPT = 1.0

_BLANKET_DIR = os.path.dirname(blanket.__file__)


def _locked_workers(scenario: blanket.Scenario, count: int = 3
                    ) -> tuple[Any, list[threading.Thread]]:
    lock = scenario.Lock()

    def worker() -> None:
        with lock:
            pass
        with lock:
            pass

    threads = [scenario.thread(worker) for _ in range(count)]
    for thread, name in zip(threads, "ABC", strict=False):
        thread.name = name
    return lock, threads


def relay(scenario: blanket.Scenario) -> None:
    lock, (A, B, C) = _locked_workers(scenario)
    with scenario:
        list(scenario.api(lock).relay(B, A, C))
        list(scenario.api(lock).relay(C, A, B))


def skip(scenario: blanket.Scenario) -> None:
    lock, (A, B, C) = _locked_workers(scenario)
    with scenario:
        for thread in (B, A, C):
            scenario.skip(thread, lock.acquire, lock.release, lock.acquire, lock.release,
                          wait=True)


def driver(scenario: blanket.Scenario) -> None:
    _, (A, B, C) = _locked_workers(scenario)
    with scenario:
        for thread in (C, B, A):
            d = scenario.Driver(thread)
            d()
            d.skip()
            d()
            d.finish()
            d()


def finish(scenario: blanket.Scenario) -> None:
    _, threads = _locked_workers(scenario)
    with scenario:
        scenario.finish(*threads)


def low_level(scenario: blanket.Scenario) -> None:
    _, threads = _locked_workers(scenario, 2)
    with scenario:
        for thread in threads:
            for _ in range(4):
                scenario.wait(thread, timeout=5)
                tx = scenario.transaction(thread)
                assert tx is not None
                tx.unblock()
                scenario.wait(tx, timeout=5)


def condition(scenario: blanket.Scenario) -> None:
    cond = scenario.Condition()
    items: list[int] = []

    def consumer() -> None:
        with cond:
            while not items:
                cond.wait()
            items.pop()

    def producer() -> None:
        with cond:
            items.extend([1, 2])
            cond.notify_all()

    A = scenario.thread(consumer)
    B = scenario.thread(consumer)
    P = scenario.thread(producer)
    with scenario:
        with scenario.api(cond).cycle(B, A, P):
            pass


SCRIPTS: dict[str, Callable[[blanket.Scenario], None]] = {
    "relay": relay, "skip": skip, "driver": driver, "finish": finish,
    "low_level": low_level, "condition": condition,
}


def _unreachable(frame: FrameType) -> bool:
    """Whether *frame* is at a line event no real interrupt can land on.

    The interpreter runs a signal handler at a function's start, at a loop's
    jump back and after a call, never at a ``try`` statement's own line (a
    ``NOP``) nor between a ``with`` block's end and the call of its
    ``__exit__``. An exception a trace function raises there does what no
    Ctrl-C can: on 3.11 the ``NOP`` is outside every handler, so the
    enclosing ``with lock:`` never gives the lock back.
    """
    nops, with_starts = _landmarks(frame.f_code)
    if frame.f_lasti in nops:
        return True
    start = with_starts.get(frame.f_lineno)
    # Past the statement's BEFORE_WITH: the block is done, __exit__ is next.
    return start is not None and start < frame.f_lasti


@functools.cache
def _landmarks(code: CodeType) -> tuple[frozenset[int], dict[int, int]]:
    """The offsets of *code*'s NOPs, and each ``with`` line's BEFORE_WITH offset."""
    nops = set()
    with_starts: dict[int, int] = {}
    for instruction in dis.get_instructions(code):
        if instruction.opname == "NOP":
            nops.add(instruction.offset)
        elif instruction.opname == "BEFORE_WITH" and instruction.positions is not None \
                and instruction.positions.lineno is not None:
            line = linecache.getline(code.co_filename, instruction.positions.lineno)
            if line.strip().startswith("with "):
                with_starts[instruction.positions.lineno] = instruction.offset
    return frozenset(nops), with_starts


class _Injector:
    """A trace function for the main thread that raises at the *target*-th
    point of blanket's code it sees, a line or a call's start (never with
    *target* 0: it only counts)."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.lines = 0
        self.raised_at: float | None = None
        self.where = ""

    def global_trace(self, frame: FrameType, event: str, arg: object) -> Any:
        if frame.f_code.co_filename.startswith(_BLANKET_DIR):
            # A call's start (not a generator's resumption): where the
            # interpreter checks for signals before the body's first line.
            if event == "call" and frame.f_lasti <= first_offset(frame.f_code, "RESUME"):
                self._point(frame, "start of ")
            return self.local_trace
        return None

    def local_trace(self, frame: FrameType, event: str, arg: object) -> Any:
        if event == "line" and not _unreachable(frame):
            self._point(frame, "")
        return self.local_trace

    def _point(self, frame: FrameType, what: str) -> None:
        """One more point where an interrupt can land; at the target, one does."""
        if self.raised_at is not None:
            return
        self.lines += 1
        if self.lines == self.target:
            self.raised_at = time.monotonic()
            self.where = (f"{os.path.basename(frame.f_code.co_filename)}:"
                          f"{frame.f_lineno} ({what}{frame.f_code.co_name})")
            # As Ctrl-C would: through SIGINT's handler, which raises,
            # unless blanket holds it back there (see blanket.holdback).
            handler = signal.getsignal(signal.SIGINT)
            assert callable(handler)
            handler(signal.SIGINT, frame)


class Outcome:
    """What one run saw."""

    def __init__(self, script: str) -> None:
        self.script = script
        self.interrupted = False
        self.problem: str | None = None
        self.where = ""
        self.delay = 0.0
        #: The callback CPython swallowed the interrupt in, if it did.
        self.swallowed: str | None = None
        self.before: set[threading.Thread] = set(threading.enumerate())
        #: SIGINT's handler once the script is over (blanket's put back?).
        self.handler_left: object = None


def _free(lock: Any) -> bool:
    """Whether *lock* (the scenario's RLock) is free, tried from another thread."""
    got: list[bool] = []

    def attempt() -> None:
        got.append(lock.acquire(False))
        if got[0]:
            lock.release()

    helper = threading.Thread(target=attempt)
    helper.start()
    helper.join()
    return got[0]


def _check_after(scenario: blanket.Scenario, outcome: Outcome) -> None:
    left = [t for t in threading.enumerate() if t not in outcome.before]
    if left:
        outcome.problem = f"threads left alive: {[t.name for t in left]}"
    elif "not entered" not in repr(scenario):
        outcome.problem = "the scenario is left entered"
    elif outcome.handler_left is not signal.default_int_handler:
        outcome.problem = f"SIGINT's handler is left replaced by {outcome.handler_left!r}"
    elif not _free(scenario._core.lock):
        outcome.problem = "the scenario's lock is left held"


def run_traced(script: str, target: int) -> Outcome:
    """One run of *script* interrupted at the *target*-th blanket point."""
    outcome = Outcome(script)
    outcome.where = f"point {target}"
    scenario = blanket.Scenario(script, timeout=5)
    injector = _Injector(target)
    caught: BaseException | None = None
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.settrace(injector.global_trace)
    try:
        SCRIPTS[script](scenario)
    except BaseException as exc:  # noqa: BLE001 - every escape is judged below
        caught = exc
    finally:
        sys.settrace(None)
        outcome.handler_left = signal.signal(signal.SIGINT, previous)
    arrived = time.monotonic()
    if injector.raised_at is None:
        if caught is not None:
            outcome.problem = f"uninterrupted run raised {caught!r}"
        return outcome
    outcome.interrupted = True
    outcome.where += f", {injector.where}"
    outcome.delay = arrived - injector.raised_at
    _judge(scenario, outcome, caught)
    return outcome


def _judge(scenario: blanket.Scenario, outcome: Outcome, caught: BaseException | None) -> None:
    if type(caught) is not KeyboardInterrupt:
        text = "".join(traceback.format_exception(caught)) if caught else "nothing"
        outcome.problem = f"the caller got {caught!r} instead of KeyboardInterrupt:\n{text}"
    elif outcome.delay > PROMPT:
        outcome.problem = f"the KeyboardInterrupt took {outcome.delay:.2f} s to arrive"
    if outcome.problem is None:
        _check_after(scenario, outcome)


class _CtrlC:
    """SIGALRM's handler for one run: it notes when and where it landed, then
    raises SIGINT, whose handler (Python's default) raises
    ``KeyboardInterrupt`` there, as Ctrl-C does."""

    def __init__(self) -> None:
        self.fired_at: float | None = None
        self.where = ""

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.fired_at = time.monotonic()
        if frame is not None:
            self.where = (f"{os.path.basename(frame.f_code.co_filename)}:"
                          f"{frame.f_lineno} ({frame.f_code.co_name})")
        signal.raise_signal(signal.SIGINT)


def _callback_name(args: Any) -> str:
    """Who CPython ran when it swallowed an exception (``sys.unraisablehook``);
    for a ``WeakSet``'s callback, whose set it is (``blanket.`` if one of a
    scenario's)."""
    what = args.object
    name = getattr(what, "__qualname__", None) or type(what).__qualname__
    module = getattr(what, "__module__", None) or type(what).__module__
    if name == "WeakSet.__init__.<locals>._remove":
        weak_set = what.__defaults__[0]()  # its selfref=ref(self)
        if weak_set is threading._dangling:  # type: ignore[attr-defined]
            return "threading._dangling (WeakSet._remove)"
        if any(isinstance(ref, ScenarioCore) for ref in gc.get_referrers(weak_set)):
            return "blanket.ScenarioCore.primitives (WeakSet._remove)"
    return f"{module}.{name}"


def run_signalled(script: str, delay: float) -> Outcome:
    """One run of *script* with SIGALRM raising after *delay* seconds."""
    outcome = Outcome(script)
    scenario = blanket.Scenario(script, timeout=5)
    caught: BaseException | None = None
    ctrl_c = _CtrlC()
    # An exception a callback raises (a weakref callback, __del__) is only
    # printed: CPython swallows it, a KeyboardInterrupt included.
    swallowed: list[str] = []
    previous_hook = sys.unraisablehook

    def unraisable(args: Any) -> None:
        if isinstance(args.exc_value, KeyboardInterrupt):
            swallowed.append(_callback_name(args))
        else:
            previous_hook(args)

    sys.unraisablehook = unraisable
    previous = signal.signal(signal.SIGALRM, ctrl_c)
    previous_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        try:
            signal.setitimer(signal.ITIMER_REAL, delay)
            SCRIPTS[script](scenario)
            signal.setitimer(signal.ITIMER_REAL, 0)
        except BaseException as exc:  # noqa: BLE001 - every escape is judged below
            signal.setitimer(signal.ITIMER_REAL, 0)
            caught = exc
    except KeyboardInterrupt as exc:  # it fired between the script's end and the cancel
        caught = exc
    finally:
        signal.signal(signal.SIGALRM, previous)
        outcome.handler_left = signal.signal(signal.SIGINT, previous_int)
        sys.unraisablehook = previous_hook
    if ctrl_c.fired_at is None:
        if caught is not None:
            outcome.problem = f"uninterrupted run raised {caught!r}"
        return outcome
    outcome.interrupted = True
    outcome.delay = time.monotonic() - ctrl_c.fired_at
    outcome.where = f"a signal at {ctrl_c.where}"
    if caught is None and swallowed:
        outcome.swallowed = swallowed[0]
        if swallowed[0].startswith("blanket."):
            outcome.problem = f"swallowed in blanket's callback {swallowed[0]}"
        else:  # CPython's doing, whoever's code it runs (see the module)
            _check_after(scenario, outcome)
        return outcome
    _judge(scenario, outcome, caught)
    return outcome


def _calibrate(script: str) -> tuple[int, float]:
    """The number of blanket points, and the time, an uninterrupted run takes."""
    injector = _Injector(0)
    scenario = blanket.Scenario(script, timeout=5)
    sys.settrace(injector.global_trace)
    try:
        SCRIPTS[script](scenario)
    finally:
        sys.settrace(None)
    # The median of a few runs: one run alone is often several times slower
    # (the first, or one the other core's load delays), and most signals
    # would then come after the script's end.
    durations = []
    for _ in range(5):
        started = time.monotonic()
        SCRIPTS[script](blanket.Scenario(script, timeout=5))
        durations.append(time.monotonic() - started)
    return injector.lines, statistics.median(durations)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stress.interrupts",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3000)
    parser.add_argument("--mode", choices=("trace", "signal"), default="trace")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--scripts", nargs="*", default=list(SCRIPTS), choices=list(SCRIPTS))
    parser.add_argument("--line", type=int, default=None,
                        help="trace mode: always interrupt at this point, a line or a call's "
                             "start (to replay a failure)")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    sizes = {name: _calibrate(name) for name in args.scripts}
    interrupted = missed = failures = 0
    swallowed: collections.Counter[str] = collections.Counter()
    worst = 0.0
    started = time.monotonic()
    for run in range(1, args.runs + 1):
        script = rng.choice(args.scripts)
        lines, duration = sizes[script]
        # A run that hangs is a failure too: dump every thread's stack and stop.
        faulthandler.dump_traceback_later(30, exit=True)
        if args.mode == "trace":
            outcome = run_traced(script, args.line or rng.randint(1, lines))
        else:
            outcome = run_signalled(script, rng.uniform(0, duration * 1.2) + 1e-6)
        faulthandler.cancel_dump_traceback_later()
        if not outcome.interrupted:
            missed += 1
        else:
            interrupted += 1
            if outcome.swallowed is not None:
                swallowed[outcome.swallowed] += 1
            else:
                worst = max(worst, outcome.delay)
        if outcome.problem is not None:
            failures += 1
            print(f"run {run} ({script}, interrupted at {outcome.where}): "
                  f"{outcome.problem}", flush=True)
    print(f"python {sys.version.split()[0]} "
          f"gil={getattr(sys, '_is_gil_enabled', lambda: True)()} mode={args.mode} "
          f"seed={seed}: {args.runs} runs, {interrupted} interrupted, {missed} missed, "
          f"{failures} failed; slowest interrupt arrived in {worst * 1000:.1f} ms "
          f"({time.monotonic() - started:.1f} s)")
    if swallowed:
        where = ", ".join(f"{count} in {name}" for name, count in swallowed.most_common())
        print(f"{swallowed.total()} interrupts swallowed by CPython in a callback "
              f"(not failures, see the module): {where}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

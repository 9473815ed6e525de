"""The measurements ``python -m bench`` makes, one function per figure.

This module imports nothing but the standard library and ``blanket``, and
uses only blanket 1.0's documented API (``Scenario``, ``scenario.Lock``,
``scenario.thread``, ``scenario.skip``, ``scenario.finish``,
``scenario.log``), so the same code measures blanket 1.0 when it runs in an
environment where ``blanket`` is 1.0: ``python -P bench/measure.py`` prints
the figures as JSON (``-P`` keeps this checkout's blanket off ``sys.path``).

Times are in nanoseconds, memory in bytes. Every timing function returns the
cost of one unit of what it measures; the caller repeats and interleaves
them (see :mod:`bench.__main__`).
"""

from __future__ import annotations

import gc
import json
import queue
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import blanket

#: Calls per timing of a call outside a scenario, in groups of ten.
OUTSIDE_CALLS = 20_000


def bare_round_trip(n: int) -> float:
    """One bare round trip between two threads: the main thread hands
    control to a partner and gets it back, through two ``threading.Lock``
    objects used as binary semaphores. Nanoseconds per round trip."""
    ping, pong = threading.Lock(), threading.Lock()
    ping.acquire()
    pong.acquire()

    def partner() -> None:
        for _ in range(n + 1):
            ping.acquire()
            pong.release()

    thread = threading.Thread(target=partner, daemon=True)
    thread.start()
    ping.release()  # one warm-up round trip: the partner is running
    pong.acquire()
    start = time.perf_counter_ns()
    for _ in range(n):
        ping.release()
        pong.acquire()
    elapsed = time.perf_counter_ns() - start
    thread.join()
    return elapsed / n


def bare_queue_round_trip(n: int, partners: int = 1) -> float:
    """:func:`bare_round_trip` through ``queue.SimpleQueue`` objects, the
    hand-off blanket's own parked threads sleep on (context: on the
    free-threaded build it is faster than the one through locks), with the
    main thread going round robin over *partners* threads, each parked on a
    queue of its own between its turns (context for the 64-thread figure)."""
    pings: list[queue.SimpleQueue[None]] = [queue.SimpleQueue() for _ in range(partners)]
    pong: queue.SimpleQueue[None] = queue.SimpleQueue()
    rounds = max(1, n // partners)

    def partner(ping: queue.SimpleQueue[None]) -> None:
        for _ in range(rounds + 1):
            ping.get()
            pong.put(None)

    threads = [threading.Thread(target=partner, args=(ping,), daemon=True) for ping in pings]
    for thread in threads:
        thread.start()
    for ping in pings:  # one warm-up round trip each: the partners are running
        ping.put(None)
        pong.get()
    start = time.perf_counter_ns()
    for _ in range(rounds):
        for ping in pings:
            ping.put(None)
            pong.get()
    elapsed = time.perf_counter_ns() - start
    for thread in threads:
        thread.join()
    return elapsed / (rounds * partners)


def _round_robin(threads: int, rounds: int,
                 measure: Callable[[Callable[[], None]], float]) -> float:
    """The script the transaction figures measure: *threads* workers each
    call ``lock.acquire(); lock.release()`` *rounds* + 1 times, and the
    scheduler lets them through round robin with ``scenario.skip(t,
    lock.acquire, lock.release)``. The first round (thread start-up) goes
    unmeasured; ``measure(rounds_left)`` runs the others and returns what
    it measured."""
    scenario = blanket.Scenario()
    lock = scenario.Lock()

    def worker() -> None:
        for _ in range(rounds + 1):
            lock.acquire()
            lock.release()

    def rounds_left() -> None:
        for _ in range(rounds):
            for thread in workers:
                scenario.skip(thread, lock.acquire, lock.release)

    workers = [scenario.thread(worker) for _ in range(threads)]
    with scenario:
        for thread in workers:
            scenario.skip(thread, lock.acquire, lock.release)
        measured = measure(rounds_left)
        scenario.finish(*workers)
    return measured


def scripted_transaction(threads: int, rounds: int) -> float:
    """One scripted transaction of :func:`_round_robin`: nanoseconds per
    transaction (an acquire or a release)."""
    def timed(run: Callable[[], None]) -> float:
        start = time.perf_counter_ns()
        run()
        return time.perf_counter_ns() - start

    return _round_robin(threads, rounds, timed) / (2 * rounds * threads)


def calls_per_transaction(threads: int, rounds: int) -> float:
    """The work :func:`scripted_transaction` does per transaction, counted
    instead of timed: Python function calls in every thread (the script's
    and blanket's), the first round not counted. Unlike a time, the count
    does not depend on where the operating system runs the threads."""
    counting = [False]
    counts: dict[int, int] = {}  # per thread: no two threads update one entry

    class Count:
        """The profile function. An object, not a function: on 3.11 blanket
        turns a Python function off in its bookkeeping (see
        blanket.core._unwatched), and the count is of that too."""

        def __call__(self, frame: object, event: str, arg: object) -> None:
            if event == "call" and counting[0]:
                ident = threading.get_ident()
                counts[ident] = counts.get(ident, 0) + 1

    count = Count()

    def counted(run: Callable[[], None]) -> float:
        sys.setprofile(count)
        counting[0] = True
        run()
        counting[0] = False
        sys.setprofile(None)
        return sum(counts.values())

    threading.setprofile(count)  # the workers, started by ``with scenario``
    try:
        calls = _round_robin(threads, rounds, counted)
    finally:
        threading.setprofile(None)
    return calls / (2 * rounds * threads)


def _pairs(lock: Any, groups: int) -> float:
    acquire_release_ten_times = _unrolled(lock)
    start = time.perf_counter_ns()
    for _ in range(groups):
        acquire_release_ten_times()
    return (time.perf_counter_ns() - start) / (10 * groups)


def _unrolled(lock: Any) -> Callable[[], None]:
    # Ten pairs per loop turn, so the loop itself costs little per pair.
    def ten() -> None:
        lock.acquire(); lock.release(); lock.acquire(); lock.release()  # noqa: E702
        lock.acquire(); lock.release(); lock.acquire(); lock.release()  # noqa: E702
        lock.acquire(); lock.release(); lock.acquire(); lock.release()  # noqa: E702
        lock.acquire(); lock.release(); lock.acquire(); lock.release()  # noqa: E702
        lock.acquire(); lock.release(); lock.acquire(); lock.release()  # noqa: E702
    return ten


def _withs(lock: Any, groups: int) -> float:
    def ten() -> None:
        with lock: pass  # noqa: E701
        with lock: pass  # noqa: E701
        with lock: pass  # noqa: E701
        with lock: pass  # noqa: E701
        with lock: pass  # noqa: E701
        with lock: pass  # noqa: E701
        with lock: pass  # noqa: E701
        with lock: pass  # noqa: E701
        with lock: pass  # noqa: E701
        with lock: pass  # noqa: E701
    start = time.perf_counter_ns()
    for _ in range(groups):
        ten()
    return (time.perf_counter_ns() - start) / (10 * groups)


def outside_locks() -> tuple[Any, Any]:
    """A blanket Lock of a scenario entered and exited once, and a bare
    ``threading.Lock``."""
    scenario = blanket.Scenario()
    lock = scenario.Lock()
    with scenario:
        pass
    return lock, threading.Lock()


def outside_call(lock: Any, calls: int = OUTSIDE_CALLS) -> float:
    """``lock.acquire(); lock.release()`` outside a scenario: nanoseconds per pair."""
    return _pairs(lock, calls // 10)


def outside_with(lock: Any, calls: int = OUTSIDE_CALLS) -> float:
    """``with lock: pass`` outside a scenario: nanoseconds per statement."""
    return _withs(lock, calls // 10)


def _traced(action: Callable[[], object]) -> int:
    """Bytes still allocated after *action* (and a collection) that were not
    before it."""
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    action()
    gc.collect()
    return tracemalloc.get_traced_memory()[0] - before


def retained_outside(calls: int) -> float:
    """Bytes retained per ``acquire``/``release`` pair on a blanket Lock
    outside a scenario, after *calls* pairs."""
    lock, _ = outside_locks()
    tracemalloc.start()
    try:
        _pairs(lock, 10)  # warm-up: anything allocated once happens here
        retained = _traced(lambda: _pairs(lock, calls // 10))
    finally:
        tracemalloc.stop()
    return max(retained, 0) / calls


def logged_transaction(rounds: int) -> float:
    """Bytes held per logged transaction: inside one scenario, the growth of
    traced memory between two points *rounds* rounds of two workers apart,
    divided by the transactions logged in between (so per-thread and
    per-scenario costs cancel out)."""
    scenario = blanket.Scenario()
    lock = scenario.Lock()

    def worker() -> None:
        for _ in range(2 * rounds + 1):
            lock.acquire()
            lock.release()

    workers = [scenario.thread(worker) for _ in range(2)]
    tracemalloc.start()
    try:
        with scenario:
            def run() -> None:
                for _ in range(rounds):
                    for thread in workers:
                        scenario.skip(thread, lock.acquire, lock.release)
            run()
            gc.collect()
            logged, before = len(scenario.log), tracemalloc.get_traced_memory()[0]
            run()
            gc.collect()
            grown = tracemalloc.get_traced_memory()[0] - before
            logged = len(scenario.log) - logged
            scenario.finish(*workers)
    finally:
        tracemalloc.stop()
    return grown / logged


def collect(scale: float = 1.0, repeats: int = 9) -> dict[str, Any]:
    """Every figure, measured in one run: the compared things are repeated
    *repeats* times, interleaved, and each figure is the best repetition.
    *scale* multiplies every iteration count (1.0 for ``make bench``; tiny
    for a quick check)."""
    def count(n: int) -> int:
        return max(2, int(n * scale))

    best: dict[str, float] = {}

    def keep(name: str, value: float) -> None:
        best[name] = min(value, best.get(name, value))

    lock, bare_lock = outside_locks()
    for _ in range(repeats):
        # Short runs, many of them: on a shared machine the best of many
        # short runs finds the quiet moments.
        keep("bare_round_trip", bare_round_trip(count(1500)))
        keep("bare_queue_round_trip", bare_queue_round_trip(count(1500)))
        keep("bare_queue_64", bare_queue_round_trip(count(1536), partners=64))
        keep("tx_2", scripted_transaction(2, count(400)))
        keep("tx_64", scripted_transaction(64, count(12)))
        keep("bare_round_trip", bare_round_trip(count(1500)))
        calls = 10 * count(OUTSIDE_CALLS // 10)
        keep("outside_call", outside_call(lock, calls))
        keep("bare_call", outside_call(bare_lock, calls))
        keep("outside_with", outside_with(lock, calls))
        keep("bare_with", outside_with(bare_lock, calls))
    return {
        "version": version(),
        **best,
        "retained_per_call": retained_outside(10 * count(1000)),
        "bytes_per_tx": logged_transaction(count(500)),
        "calls_2": calls_per_transaction(2, count(200)),
        "calls_64": calls_per_transaction(64, count(12)),
    }


def version() -> str:
    """The measured blanket's version and the interpreter's."""
    from importlib import metadata
    try:
        ours = metadata.version("blanket")
    except metadata.PackageNotFoundError:  # pragma: no cover - a bare checkout
        ours = "unknown"
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    return (f"blanket {ours} on Python {sys.version.split()[0]}"
            f" ({'GIL on' if gil else 'GIL off'})")


if __name__ == "__main__":
    # Run by ``python -m bench`` in another environment (blanket 1.0's):
    # ``python -P bench/measure.py SCALE REPEATS`` prints the figures as JSON.
    print(json.dumps(collect(float(sys.argv[1]), int(sys.argv[2]))))

"""More lines only some interleavings run, written to check the order of
blanket.exploration.guided on cases it was not first chosen on: more
threads, and threads that do something else meanwhile (tests/test_guided.py).
Each line to reach ends with a comment ``# REACH name``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from blanket import Scenario

from . import reach_cases

#: What the branches ran.
noted: list[str] = []


def place(name: str) -> str:
    """``tests/reach_more.py:<line>`` of the line marked ``# REACH name``."""
    return reach_cases.place(name, Path(__file__))


# -- double-checked locking, three threads ----------------------------------------

def three_getters(scenario: Scenario) -> None:
    lazy = reach_cases.Lazy(scenario)
    for _ in range(3):
        scenario.thread(lazy.get)


# -- an optimistic update, three threads -----------------------------------------------

def three_adders(scenario: Scenario) -> None:
    versioned = reach_cases.Versioned(scenario)
    for amount in (1, 2, 3):
        scenario.thread(versioned.add, amount)


# -- a look between two locked steps, another thread busy elsewhere --------------------

def window(scenario: Scenario) -> None:
    lock, other = scenario.Lock(), scenario.Lock()
    state = {"phase": 0}

    def two_steps() -> None:
        with lock:
            state["phase"] = 1
        with lock:
            state["phase"] = 2

    def peek() -> None:
        with other:
            pass
        with other:
            pass
        with lock:
            if state["phase"] == 1:
                noted.append("between")  # REACH window

    def busy() -> None:
        for _ in range(3):
            with other:
                pass

    scenario.thread(two_steps)
    scenario.thread(busy)
    scenario.thread(peek)


# -- a bounded buffer found full -------------------------------------------------------

def bounded(scenario: Scenario) -> None:
    changed = scenario.Condition()
    items: list[int] = []

    def produce() -> None:
        for item in range(2):
            with changed:
                while items:
                    noted.append("full")  # REACH full
                    changed.wait()
                items.append(item)
                changed.notify_all()

    def consume() -> None:
        for _ in range(2):
            with changed:
                while not items:
                    changed.wait()
                items.pop()
                changed.notify_all()

    scenario.thread(consume)
    scenario.thread(produce)


# -- a lock acquire that times out, two other holders ------------------------------------

def impatient(scenario: Scenario) -> None:
    lock = scenario.Lock()

    def work() -> None:
        with lock:
            pass

    def try_it() -> None:
        if not lock.acquire(timeout=1):
            noted.append("gave up")  # REACH gave-up
        else:
            lock.release()

    scenario.thread(work)
    scenario.thread(work)
    scenario.thread(try_it)


# -- a cached answer gone stale, another thread busy on the same lock ----------------------

def stale(scenario: Scenario) -> None:
    lock = scenario.Lock()
    cache = {"key": 1}

    def read() -> None:
        with lock:
            present = "key" in cache
        with lock:
            if present and "key" not in cache:
                noted.append("stale")  # REACH stale

    def invalidate() -> None:
        with lock:
            cache.pop("key", None)

    def busy() -> None:
        with lock:
            pass
        with lock:
            pass

    scenario.thread(busy)
    scenario.thread(read)
    scenario.thread(invalidate)


# -- a semaphore acquire that times out -------------------------------------------------

def semaphore_wait(scenario: Scenario) -> None:
    slots = scenario.Semaphore(1)
    other = scenario.Lock()

    def hold() -> None:
        with slots, other:
            pass

    def wait() -> None:
        with other:
            pass
        if not slots.acquire(timeout=1):
            noted.append("no slot in time")  # REACH semaphore-wait
        else:
            slots.release()

    scenario.thread(wait)
    scenario.thread(hold)


# -- an Event already set ----------------------------------------------------------------

def set_early(scenario: Scenario) -> None:
    started = scenario.Event()
    lock = scenario.Lock()

    def wait() -> None:
        with lock:
            pass
        if started.is_set():
            noted.append("already set")  # REACH early
        started.wait(timeout=1)

    def set_it() -> None:
        with lock:
            pass
        started.set()

    scenario.thread(wait)
    scenario.thread(set_it)


# -- two counters seen half-way ---------------------------------------------------------------

def half_way(scenario: Scenario) -> None:
    a, b = scenario.Lock(), scenario.Lock()
    # (A list: its items are one piece of state, as a dict's two keys' are
    # not; the two counts under two locks race.)
    state = [0, 0]

    def count(lock: Any, index: int) -> None:
        for _ in range(2):
            with lock:
                state[index] += 1

    def check() -> None:
        with a:
            x = state[0]
        with b:
            y = state[1]
        if x == 1 and y == 1:
            noted.append("half way")  # REACH half-way

    scenario.thread(count, a, 0)
    scenario.thread(count, b, 1)
    scenario.thread(check)


#: Each case's setup and the place of its line, by name.
CASES: dict[str, tuple[Callable[[Scenario], Any], str]] = {
    "three-getters": (three_getters, reach_cases.place("dcl")),
    "three-adders": (three_adders, reach_cases.place("retry")),
    "window": (window, place("window")), "full": (bounded, place("full")),
    "gave-up": (impatient, place("gave-up")), "stale": (stale, place("stale")),
    "semaphore-wait": (semaphore_wait, place("semaphore-wait")),
    "early": (set_early, place("early")), "half-way": (half_way, place("half-way")),
}

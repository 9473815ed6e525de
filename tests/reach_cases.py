"""Lines that only some interleavings run: the cases of tests/test_reach.py
(and of the tests the searches write, which import them from here). Each
line to reach ends with a comment ``# REACH name``; :func:`place` finds it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from blanket import Scenario

from . import reach_other

Invariant = Callable[[], None]

#: What the branches ran, for the cases whose branch has nothing else to do.
noted: list[str] = []


def place(name: str, path: Path = Path(__file__)) -> str:
    """``tests/<file>.py:<line>`` of the line marked ``# REACH name``."""
    for number, text in enumerate(path.read_text().splitlines(), 1):
        if text.endswith(f"# REACH {name}"):
            return f"tests/{path.name}:{number}"
    raise LookupError(name)


# -- double-checked locking: someone else filled it ---------------------------------

class Lazy:
    def __init__(self, scenario: Scenario) -> None:
        self.lock = scenario.Lock()
        self.value: object = None

    def get(self) -> object:
        if self.value is None:
            with self.lock:
                if self.value is None:
                    self.value = object()
                else:
                    noted.append("someone else filled it")  # REACH dcl
        return self.value


def double_checked(scenario: Scenario) -> None:
    lazy = Lazy(scenario)
    scenario.thread(lazy.get)
    scenario.thread(lazy.get)


# -- an optimistic update: its retry ------------------------------------------------

class Versioned:
    def __init__(self, scenario: Scenario) -> None:
        self.lock = scenario.Lock()
        self.version = 0
        self.value = 0

    def add(self, amount: int) -> None:
        while True:
            with self.lock:
                seen, value = self.version, self.value
            new = value + amount
            with self.lock:
                if self.version == seen:
                    self.value, self.version = new, seen + 1
                    return
            noted.append("retry")  # REACH retry


def optimistic(scenario: Scenario) -> Invariant:
    versioned = Versioned(scenario)
    scenario.thread(versioned.add, 1)
    scenario.thread(versioned.add, 2)

    def both_added() -> None:
        assert versioned.value == 3
    return both_added


# -- a trylock drain: the holder will process it ------------------------------------

class Drain:
    def __init__(self, scenario: Scenario) -> None:
        self.lock = scenario.Lock()
        self.queue_lock = scenario.Lock()
        self.queue: list[int] = []
        self.done: list[int] = []

    def submit(self, item: int) -> None:
        with self.queue_lock:
            self.queue.append(item)
        while True:
            if not self.lock.acquire(blocking=False):
                noted.append("the holder will process it")  # REACH trylock
                return
            with self.queue_lock:
                work, self.queue[:] = list(self.queue), []
            self.done += work
            self.lock.release()
            with self.queue_lock:
                if not self.queue:
                    return


def trylock_drain(scenario: Scenario) -> Invariant:
    drain = Drain(scenario)
    scenario.thread(drain.submit, 1)
    scenario.thread(drain.submit, 2)

    def all_done() -> None:
        assert sorted(drain.done) == [1, 2], drain.done
    return all_done


# -- a Condition wait that times out ------------------------------------------------

def condition_timeout(scenario: Scenario) -> None:
    ready = scenario.Condition()
    box: list[int] = []

    def consume() -> None:
        with ready:
            if not ready.wait_for(lambda: box, timeout=5):
                noted.append("gave up waiting")  # REACH condition-timeout

    def produce() -> None:
        with ready:
            box.append(1)
            ready.notify()

    scenario.thread(consume)
    scenario.thread(produce)


# -- a barrier that breaks ----------------------------------------------------------

def barrier_broken(scenario: Scenario) -> None:
    barrier = scenario.Barrier(2)

    def party() -> None:
        try:
            barrier.wait(timeout=5)
        except threading.BrokenBarrierError:
            noted.append("broken")  # REACH barrier

    scenario.thread(party)
    scenario.thread(party)


# -- a transfer rolled back ---------------------------------------------------------

class Account:
    def __init__(self, scenario: Scenario, balance: int) -> None:
        self.lock = scenario.Lock()
        self.balance = balance
        self.open = True


def transfer(source: Account, target: Account, amount: int) -> None:
    with source.lock:
        source.balance -= amount  # REACH withdrawn
    with target.lock:
        if target.open:
            target.balance += amount
            return
    with source.lock:
        source.balance += amount  # REACH rollback


def close(account: Account) -> None:
    with account.lock:
        account.open = False


def rollback(scenario: Scenario) -> Invariant:
    source, target = Account(scenario, 10), Account(scenario, 0)
    scenario.thread(transfer, source, target, 5)
    scenario.thread(close, target)

    def kept() -> None:
        assert source.balance + target.balance == 10
    return kept


# -- a branch in another module -----------------------------------------------------

class Box:
    def __init__(self, scenario: Scenario) -> None:
        self.lock = scenario.Lock()
        self.items: list[int] = []


def other_module(scenario: Scenario) -> None:
    box = Box(scenario)

    def put() -> None:
        with box.lock:
            box.items.append(1)

    scenario.thread(reach_other.take, box)
    scenario.thread(put)


# -- an Event wait that times out ---------------------------------------------------

def event_timeout(scenario: Scenario) -> None:
    started = scenario.Event()

    def wait() -> None:
        if not started.wait(timeout=5):
            noted.append("not started in time")  # REACH event-timeout

    scenario.thread(wait)
    scenario.thread(started.set)


# -- a semaphore full at once -------------------------------------------------------

def semaphore_busy(scenario: Scenario) -> None:
    slots = scenario.Semaphore(1)
    gate = scenario.Lock()

    def use() -> None:
        with gate:
            pass
        if slots.acquire(blocking=False):
            with gate:
                pass
            slots.release()
        else:
            noted.append("busy")  # REACH semaphore

    scenario.thread(use)
    scenario.thread(use)


# -- a consumer that waited -----------------------------------------------------------

def consumer_waited(scenario: Scenario) -> None:
    ready = scenario.Condition()
    items: list[int] = []

    def consume() -> None:
        with ready:
            while not items:
                ready.wait()
                noted.append("woken")  # REACH waited
            items.pop()

    def produce() -> None:
        with ready:
            items.append(1)
            ready.notify()

    scenario.thread(produce)
    scenario.thread(consume)


# -- a line no order runs -------------------------------------------------------------

class Counter:
    def __init__(self, scenario: Scenario) -> None:
        self.lock = scenario.Lock()
        self.count = 0

    def bump(self) -> None:
        with self.lock:
            self.count += 1
            if self.count > 2:
                noted.append("three")  # REACH never


def never(scenario: Scenario) -> None:
    counter = Counter(scenario)
    scenario.thread(counter.bump)
    scenario.thread(counter.bump)


def two_sections(scenario: Scenario) -> None:
    """Two threads, each taking one lock twice to add to one list: several
    orders, several of them with preemptions (the tests of explore use it
    too)."""
    lock, log = scenario.Lock(), []

    def twice() -> None:
        for n in range(2):
            with lock:
                log.append(n)

    scenario.thread(twice)
    scenario.thread(twice)


def never_beside(scenario: Scenario) -> None:
    """:func:`never`, beside two threads taking another lock twice each:
    their orders need preemptions, which a bound of 0 leaves out."""
    never(scenario)
    two_sections(scenario)


#: Each case's setup, by the name of the line it must reach.
CASES: dict[str, Callable[[Scenario], Any]] = {
    "dcl": double_checked, "retry": optimistic, "trylock": trylock_drain,
    "condition-timeout": condition_timeout, "barrier": barrier_broken, "rollback": rollback,
    "other-module": other_module, "event-timeout": event_timeout, "semaphore": semaphore_busy,
    "waited": consumer_waited,
}

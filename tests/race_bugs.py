"""Data races on plain shared state, each beside its locked fix: setups for
:func:`blanket.explore` (the bugs of issue 15, as users write them). The
buggy versions take a lock that does nothing."""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Callable
from typing import Any

from blanket import Scenario

Invariant = Callable[[], None]


def _lock(scenario: Scenario, locked: bool) -> Any:
    """The scenario's lock for a fix, a context that does nothing for a bug."""
    return scenario.Lock() if locked else contextlib.nullcontext()


# -- a counter: self.count += 1 ------------------------------------------------------

class Counter:
    def __init__(self, lock: Any) -> None:
        self.count = 0
        self.lock = lock

    def increment(self) -> None:
        with self.lock:
            self.count += 1


def _counter(scenario: Scenario, locked: bool) -> Invariant:
    counter = Counter(_lock(scenario, locked))
    scenario.thread(counter.increment)
    scenario.thread(counter.increment)

    def both_counted() -> None:
        assert counter.count == 2, f"count is {counter.count}"
    return both_counted


# -- a cache: if key not in d: d[key] = make() ---------------------------------------

def _cache(scenario: Scenario, locked: bool) -> Invariant:
    cache: dict[str, object] = {}
    made: list[object] = []
    lock = _lock(scenario, locked)

    def get() -> object:
        with lock:
            if "key" not in cache:
                value = object()
                made.append(value)
                cache["key"] = value
            return cache["key"]

    scenario.thread(get)
    scenario.thread(get)

    def made_once() -> None:
        assert len(made) == 1, f"made {len(made)} values"
    return made_once


# -- a stack: if len(stack): stack.pop() -----------------------------------------------

class Stack:
    def __init__(self, lock: Any) -> None:
        self.items = [1]
        self.lock = lock

    def take(self) -> object:
        with self.lock:
            if len(self.items):
                return self.items.pop()
            return None


def _stack(scenario: Scenario, locked: bool) -> Invariant:
    stack = Stack(_lock(scenario, locked))
    scenario.thread(stack.take)
    scenario.thread(stack.take)
    return lambda: None  # the race shows as an IndexError in a thread


# -- publish before init -------------------------------------------------------------

class Config:
    def __init__(self) -> None:
        self.ready = False
        self.value = 0


class Holder:
    def __init__(self, lock: Any) -> None:
        self.config: Config | None = None
        self.lock = lock
        self.seen: list[int] = []

    def publish(self) -> None:
        with self.lock:
            config = Config()
            self.config = config  # published before its value is set
            config.value = 42

    def read(self) -> None:
        with self.lock:
            config = self.config
            if config is not None:
                self.seen.append(config.value)


def _publish(scenario: Scenario, locked: bool) -> Invariant:
    holder = Holder(_lock(scenario, locked))
    scenario.instrument(Holder)
    scenario.thread(holder.publish)
    scenario.thread(holder.read)

    def only_whole_configs() -> None:
        assert all(value == 42 for value in holder.seen), f"read {holder.seen}"
    return only_whole_configs


# -- a bank transfer -----------------------------------------------------------------

class Bank:
    def __init__(self, lock: Any) -> None:
        self.accounts = {"a": 100, "b": 100}
        self.lock = lock

    def transfer(self, source: str, target: str, amount: int) -> None:
        with self.lock:
            balance = self.accounts[source]
            self.accounts[source] = balance - amount
            self.accounts[target] = self.accounts[target] + amount


def _bank(scenario: Scenario, locked: bool) -> Invariant:
    bank = Bank(_lock(scenario, locked))
    scenario.thread(bank.transfer, "a", "b", 30)
    scenario.thread(bank.transfer, "b", "a", 10)

    def money_kept() -> None:
        total = sum(bank.accounts.values())
        assert total == 200, f"the accounts hold {total}"
    return money_kept


# -- a flag set after deque.append (the trylock-drain shape) -------------------------

class Mailbox:
    def __init__(self, lock: Any) -> None:
        self.queue: collections.deque[int] = collections.deque()
        self.full = False
        self.lock = lock
        self.got: list[int] = []

    def send(self) -> None:
        with self.lock:
            self.queue.append(1)
            self.full = True

    def drain(self) -> None:
        with self.lock:
            if self.full:
                self.got.append(self.queue.popleft())
                self.full = False
            elif self.queue:  # the flag says empty: the queue must be
                raise AssertionError("an item is queued but the flag is not set")


def _mailbox(scenario: Scenario, locked: bool) -> Invariant:
    box = Mailbox(_lock(scenario, locked))
    scenario.thread(box.send)
    scenario.thread(box.drain)
    return lambda: None


Setup = Callable[[Scenario], Invariant]


def _versions(make: Callable[[Scenario, bool], Invariant]) -> tuple[Setup, Setup]:
    """The bug's setup and its fix's, named after *make*."""
    def bug(scenario: Scenario) -> Invariant:
        return make(scenario, False)

    def fixed(scenario: Scenario) -> Invariant:
        return make(scenario, True)

    bug.__qualname__ = bug.__name__ = make.__name__.strip("_")
    fixed.__qualname__ = fixed.__name__ = f"{bug.__name__}_fixed"
    return bug, fixed


counter, counter_fixed = _versions(_counter)
cache, cache_fixed = _versions(_cache)
stack, stack_fixed = _versions(_stack)
publish, publish_fixed = _versions(_publish)
bank, bank_fixed = _versions(_bank)
mailbox, mailbox_fixed = _versions(_mailbox)

#: Each bug's setup, its locked fix, and what its failure says.
BUGS: dict[str, tuple[Setup, Setup, str]] = {
    "counter": (counter, counter_fixed, "count is 1"),
    "cache": (cache, cache_fixed, "made 2 values"),
    "stack": (stack, stack_fixed, "IndexError"),
    "publish": (publish, publish_fixed, "read [0]"),
    "bank": (bank, bank_fixed, "the accounts hold"),
    "mailbox": (mailbox, mailbox_fixed, "the flag is not set"),
}

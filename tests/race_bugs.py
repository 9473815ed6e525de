"""Data races on plain shared state, each beside its locked fix: setups for
:func:`blanket.explore` (the bugs of issue 15, as users write them)."""

from __future__ import annotations

import collections
from collections.abc import Callable

from blanket import Scenario

Invariant = Callable[[], None]


# -- a counter: self.count += 1 ------------------------------------------------------

class Counter:
    def __init__(self, lock: object = None) -> None:
        self.count = 0
        self.lock = lock

    def increment(self) -> None:
        if self.lock is None:
            self.count += 1
        else:
            with self.lock:  # type: ignore[attr-defined]
                self.count += 1


def _counter(scenario: Scenario, locked: bool) -> Invariant:
    counter = Counter(scenario.Lock() if locked else None)
    scenario.thread(counter.increment)
    scenario.thread(counter.increment)

    def both_counted() -> None:
        assert counter.count == 2, f"count is {counter.count}"
    return both_counted


def counter(scenario: Scenario) -> Invariant:
    return _counter(scenario, locked=False)


def counter_fixed(scenario: Scenario) -> Invariant:
    return _counter(scenario, locked=True)


# -- a cache: if key not in d: d[key] = make() ---------------------------------------

def _cache(scenario: Scenario, locked: bool) -> Invariant:
    cache: dict[str, object] = {}
    made: list[object] = []
    lock = scenario.Lock()

    def get() -> object:
        if locked:
            lock.acquire()
        if "key" not in cache:
            value = object()
            made.append(value)
            cache["key"] = value
        result = cache["key"]
        if locked:
            lock.release()
        return result

    scenario.thread(get)
    scenario.thread(get)

    def made_once() -> None:
        assert len(made) == 1, f"made {len(made)} values"
    return made_once


def cache(scenario: Scenario) -> Invariant:
    return _cache(scenario, locked=False)


def cache_fixed(scenario: Scenario) -> Invariant:
    return _cache(scenario, locked=True)


# -- a stack: if len(stack): stack.pop() -----------------------------------------------

class Stack:
    def __init__(self, lock: object = None) -> None:
        self.items = [1]
        self.lock = lock

    def take(self) -> object:
        if self.lock is not None:
            self.lock.acquire()  # type: ignore[attr-defined]
        try:
            if len(self.items):
                return self.items.pop()
            return None
        finally:
            if self.lock is not None:
                self.lock.release()  # type: ignore[attr-defined]


def _stack(scenario: Scenario, locked: bool) -> Invariant:
    stack = Stack(scenario.Lock() if locked else None)
    scenario.thread(stack.take)
    scenario.thread(stack.take)
    return lambda: None  # the race shows as an IndexError in a thread


def stack(scenario: Scenario) -> Invariant:
    return _stack(scenario, locked=False)


def stack_fixed(scenario: Scenario) -> Invariant:
    return _stack(scenario, locked=True)


# -- publish before init -------------------------------------------------------------

class Config:
    def __init__(self) -> None:
        self.ready = False
        self.value = 0


class Holder:
    def __init__(self, lock: object = None) -> None:
        self.config: Config | None = None
        self.lock = lock
        self.seen: list[int] = []

    def publish(self) -> None:
        if self.lock is not None:
            self.lock.acquire()  # type: ignore[attr-defined]
        config = Config()
        self.config = config  # published before its value is set
        config.value = 42
        if self.lock is not None:
            self.lock.release()  # type: ignore[attr-defined]

    def read(self) -> None:
        if self.lock is not None:
            self.lock.acquire()  # type: ignore[attr-defined]
        config = self.config
        if config is not None:
            self.seen.append(config.value)
        if self.lock is not None:
            self.lock.release()  # type: ignore[attr-defined]


def _publish(scenario: Scenario, locked: bool) -> Invariant:
    holder = Holder(scenario.Lock() if locked else None)
    scenario.instrument(Holder)
    scenario.thread(holder.publish)
    scenario.thread(holder.read)

    def only_whole_configs() -> None:
        assert all(value == 42 for value in holder.seen), f"read {holder.seen}"
    return only_whole_configs


def publish(scenario: Scenario) -> Invariant:
    return _publish(scenario, locked=False)


def publish_fixed(scenario: Scenario) -> Invariant:
    return _publish(scenario, locked=True)


# -- a bank transfer -----------------------------------------------------------------

class Bank:
    def __init__(self, lock: object = None) -> None:
        self.accounts = {"a": 100, "b": 100}
        self.lock = lock

    def transfer(self, source: str, target: str, amount: int) -> None:
        if self.lock is not None:
            self.lock.acquire()  # type: ignore[attr-defined]
        balance = self.accounts[source]
        self.accounts[source] = balance - amount
        self.accounts[target] = self.accounts[target] + amount
        if self.lock is not None:
            self.lock.release()  # type: ignore[attr-defined]


def _bank(scenario: Scenario, locked: bool) -> Invariant:
    bank = Bank(scenario.Lock() if locked else None)
    scenario.thread(bank.transfer, "a", "b", 30)
    scenario.thread(bank.transfer, "b", "a", 10)

    def money_kept() -> None:
        total = sum(bank.accounts.values())
        assert total == 200, f"the accounts hold {total}"
    return money_kept


def bank(scenario: Scenario) -> Invariant:
    return _bank(scenario, locked=False)


def bank_fixed(scenario: Scenario) -> Invariant:
    return _bank(scenario, locked=True)


# -- a flag set after deque.append (the trylock-drain shape) -------------------------

class Mailbox:
    def __init__(self, lock: object = None) -> None:
        self.queue: collections.deque[int] = collections.deque()
        self.full = False
        self.lock = lock
        self.got: list[int] = []

    def send(self) -> None:
        if self.lock is not None:
            self.lock.acquire()  # type: ignore[attr-defined]
        self.queue.append(1)
        self.full = True
        if self.lock is not None:
            self.lock.release()  # type: ignore[attr-defined]

    def drain(self) -> None:
        if self.lock is not None:
            self.lock.acquire()  # type: ignore[attr-defined]
        if self.full:
            self.got.append(self.queue.popleft())
            self.full = False
        elif self.queue:  # the flag says empty: the queue must be
            raise AssertionError("an item is queued but the flag is not set")
        if self.lock is not None:
            self.lock.release()  # type: ignore[attr-defined]


def _mailbox(scenario: Scenario, locked: bool) -> Invariant:
    box = Mailbox(scenario.Lock() if locked else None)
    scenario.thread(box.send)
    scenario.thread(box.drain)
    return lambda: None


def mailbox(scenario: Scenario) -> Invariant:
    return _mailbox(scenario, locked=False)


def mailbox_fixed(scenario: Scenario) -> Invariant:
    return _mailbox(scenario, locked=True)


#: Each bug's setup, its locked fix, and what its failure says.
BUGS: dict[str, tuple[Callable[[Scenario], Invariant], Callable[[Scenario], Invariant], str]] = {
    "counter": (counter, counter_fixed, "count is 1"),
    "cache": (cache, cache_fixed, "made 2 values"),
    "stack": (stack, stack_fixed, "IndexError"),
    "publish": (publish, publish_fixed, "read [0]"),
    "bank": (bank, bank_fixed, "the accounts hold"),
    "mailbox": (mailbox, mailbox_fixed, "the flag is not set"),
}

"""Concurrent structures for the linearizability tests: correct ones, and
buggy ones written the way people write them, each with its fix.

Each is named at module level, with its operations in a module-level list,
so that the tests blanket.check_linearizable writes can import them.
"""

from __future__ import annotations

import collections
import queue
import threading

import blanket

# -- correct: the standard library -----------------------------------------------------

QUEUE_OPERATIONS = [blanket.Operation("put", 1), blanket.Operation("put", 2),
                    blanket.Operation("get_nowait")]
DEQUE_OPERATIONS = [blanket.Operation("append", 1), blanket.Operation("append", 2),
                    blanket.Operation("popleft")]


# -- counters ---------------------------------------------------------------------------

class UnlockedCounter:
    """``self.count += 1`` with no lock: an update can be lost."""

    def __init__(self) -> None:
        self.count = 0

    def increment(self) -> int:
        self.count += 1
        return self.count

    def get(self) -> int:
        return self.count


class LockedCounter:
    """The counter with its update under a lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0

    def increment(self) -> int:
        with self.lock:
            self.count += 1
            return self.count

    def get(self) -> int:
        with self.lock:
            return self.count


COUNTER_OPERATIONS = [blanket.Operation("increment"), blanket.Operation("get")]


# -- caches -----------------------------------------------------------------------------

class _Values:
    """Makes a new value each time: "the expensive computation"."""

    def __init__(self) -> None:
        self.made = 0

    def make(self, key: str) -> str:
        self.made += 1
        return f"{key}#{self.made}"


class CheckThenActCache:
    """Looks the key up, and computes and stores it when missing: two
    threads can both miss, and return two different values for one key."""

    def __init__(self) -> None:
        self.values = _Values()
        self.entries: dict[str, str] = {}

    def get(self, key: str) -> str:
        if key not in self.entries:
            self.entries[key] = self.values.make(key)
        return self.entries[key]


class LockedCache:
    """The cache with the look-up and the store under one lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.values = _Values()
        self.entries: dict[str, str] = {}

    def get(self, key: str) -> str:
        with self.lock:
            if key not in self.entries:
                self.entries[key] = self.values.make(key)
            return self.entries[key]


CACHE_OPERATIONS = [blanket.Operation("get", "a"), blanket.Operation("get", "b")]


class Connection:
    """What a pool hands out: an object compared by identity."""

    def __init__(self, host: str) -> None:
        self.host = host


class CheckThenActPool:
    """One connection per host, made on first use: two threads can both
    make one, and hold two connections to one host."""

    def __init__(self) -> None:
        self.connections: dict[str, Connection] = {}

    def connect(self, host: str) -> Connection:
        if host not in self.connections:
            self.connections[host] = Connection(host)
        return self.connections[host]


class LockedPool(CheckThenActPool):
    """The pool with the look-up and the store under one lock."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def connect(self, host: str) -> Connection:
        with self.lock:
            return super().connect(host)


POOL_OPERATIONS = [blanket.Operation("connect", "db"), blanket.Operation("connect", "web")]


class LockedLRUCache:
    """A least-recently-used cache of two entries, under a lock."""

    def __init__(self, capacity: int = 2) -> None:
        self.lock = threading.Lock()
        self.capacity = capacity
        self.entries: collections.OrderedDict[str, int] = collections.OrderedDict()

    def put(self, key: str, value: int) -> None:
        with self.lock:
            self.entries[key] = value
            self.entries.move_to_end(key)
            while len(self.entries) > self.capacity:
                self.entries.popitem(last=False)

    def get(self, key: str) -> int | None:
        with self.lock:
            if key not in self.entries:
                return None
            self.entries.move_to_end(key)
            return self.entries[key]


LRU_OPERATIONS = [*blanket.Operation.choices("put", ["a", "b", "c"], [1]),
                  *blanket.Operation.choices("get", ["a", "b"])]


# -- a stack whose size is kept beside its list ----------------------------------------

class SizedStack:
    """``size`` is a counter kept beside the list: a reader can see the list
    and the counter disagree, and two pushes can lose a count."""

    def __init__(self) -> None:
        self.items: list[int] = []
        self.size = 0

    def push(self, item: int) -> None:
        self.items.append(item)
        self.size += 1

    def pop(self) -> int | None:
        if not self.size:
            return None
        self.size -= 1
        return self.items.pop()

    def length(self) -> int:
        return self.size


class LockedSizedStack(SizedStack):
    """The stack with the list and the counter changed under one lock."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def push(self, item: int) -> None:
        with self.lock:
            super().push(item)

    def pop(self) -> int | None:
        with self.lock:
            return super().pop()

    def length(self) -> int:
        with self.lock:
            return self.size


STACK_OPERATIONS = [blanket.Operation("push", 1), blanket.Operation("pop"),
                    blanket.Operation("length")]


# -- a bank whose total can see money in flight ----------------------------------------

class Bank:
    """Two accounts, each under its own lock: a transfer takes from one,
    then adds to the other, and ``total`` sums them one at a time, so it can
    see the money neither here nor there."""

    def __init__(self) -> None:
        self.locks = {"a": threading.Lock(), "b": threading.Lock()}
        self.balances = {"a": 100, "b": 0}

    def transfer(self, source: str, target: str, amount: int) -> bool:
        with self.locks[source]:
            if self.balances[source] < amount:
                return False
            self.balances[source] -= amount
        with self.locks[target]:
            self.balances[target] += amount
        return True

    def total(self) -> int:
        total = 0
        for name in ("a", "b"):
            with self.locks[name]:
                total += self.balances[name]
        return total


class LockedBank(Bank):
    """The bank with one lock over both accounts."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def transfer(self, source: str, target: str, amount: int) -> bool:
        with self.lock:
            if self.balances[source] < amount:
                return False
            self.balances[source] -= amount
            self.balances[target] += amount
            return True

    def total(self) -> int:
        with self.lock:
            return self.balances["a"] + self.balances["b"]


BANK_OPERATIONS = [blanket.Operation("transfer", "a", "b", 10), blanket.Operation("total")]


# -- a "lock-free" stack built on a racy compare ---------------------------------------

class _Node:
    def __init__(self, value: int, below: _Node | None) -> None:
        self.value = value
        self.below = below


class RacyCasStack:
    """A Treiber stack whose compare-and-set compares, then sets: two
    threads can both see the head they expect, and one push is lost."""

    def __init__(self) -> None:
        self.head: _Node | None = None

    def compare_and_set(self, expected: _Node | None, new: _Node | None) -> bool:
        if self.head is expected:
            self.head = new
            return True
        return False

    def push(self, value: int) -> None:
        while True:
            head = self.head
            if self.compare_and_set(head, _Node(value, head)):
                return

    def pop(self) -> int | None:
        while True:
            head = self.head
            if head is None:
                return None
            if self.compare_and_set(head, head.below):
                return head.value


class LockedCasStack(RacyCasStack):
    """The stack with a compare-and-set that holds a lock."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def compare_and_set(self, expected: _Node | None, new: _Node | None) -> bool:
        with self.lock:
            return super().compare_and_set(expected, new)


CAS_STACK_OPERATIONS = [blanket.Operation("push", 1), blanket.Operation("push", 2),
                        blanket.Operation("pop")]


# -- a double-checked singleton --------------------------------------------------------

class Settings:
    """What the singleton holds: loaded after it is made."""

    def __init__(self) -> None:
        self.port: int | None = None

    def load(self) -> None:
        self.port = 8080


class DoubleCheckedSettings:
    """Double-checked initialization that publishes the object before it is
    loaded: a thread that sees it made reads a port not yet set."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.settings: Settings | None = None

    def port(self) -> int | None:
        if self.settings is None:
            with self.lock:
                if self.settings is None:
                    self.settings = Settings()
                    self.settings.load()
        return self.settings.port


class LoadedSettings(DoubleCheckedSettings):
    """The fix: load first, publish after."""

    def port(self) -> int | None:
        if self.settings is None:
            with self.lock:
                if self.settings is None:
                    settings = Settings()
                    settings.load()
                    self.settings = settings
        return self.settings.port


SETTINGS_OPERATIONS = [blanket.Operation("port")]


# -- a blocking queue ------------------------------------------------------------------

class BlockingQueue:
    """``get`` waits for an item: a condition, waited for in a loop."""

    def __init__(self) -> None:
        self.ready = threading.Condition()
        self.items: collections.deque[int] = collections.deque()

    def put(self, item: int) -> None:
        with self.ready:
            self.items.append(item)
            self.ready.notify()

    def get(self) -> int:
        with self.ready:
            while not self.items:
                self.ready.wait()
            return self.items.popleft()


class LostWakeupQueue(BlockingQueue):
    """``put`` notifies only when a getter waits, and ``get`` looks for an
    item and waits under two holds of the lock: a put in between is missed,
    and the getter waits for ever."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = 0

    def put(self, item: int) -> None:
        with self.ready:
            self.items.append(item)
            if self.waiting:
                self.ready.notify()

    def get(self) -> int:
        while True:
            with self.ready:
                if self.items:
                    return self.items.popleft()
            with self.ready:  # no look again: an item put since is not seen
                self.waiting += 1
                self.ready.wait()
                self.waiting -= 1


QUEUE_WAIT_OPERATIONS = [blanket.Operation("put", 1), blanket.Operation("get")]

#: Each buggy structure, its fix and its operations.
BUGGY = {
    "unlocked counter": (UnlockedCounter, LockedCounter, COUNTER_OPERATIONS),
    "check-then-act cache": (CheckThenActCache, LockedCache, CACHE_OPERATIONS),
    "sized stack": (SizedStack, LockedSizedStack, STACK_OPERATIONS),
    "bank": (Bank, LockedBank, BANK_OPERATIONS),
    "racy compare-and-set stack": (RacyCasStack, LockedCasStack, CAS_STACK_OPERATIONS),
    "double-checked singleton": (DoubleCheckedSettings, LoadedSettings, SETTINGS_OPERATIONS),
    "lost wake-up queue": (LostWakeupQueue, BlockingQueue, QUEUE_WAIT_OPERATIONS),
    "check-then-act pool of objects": (CheckThenActPool, LockedPool, POOL_OPERATIONS),
}

#: Each correct structure and its operations.
CORRECT = {
    "queue.Queue": (queue.Queue, QUEUE_OPERATIONS),
    "collections.deque": (collections.deque, DEQUE_OPERATIONS),
    "locked counter": (LockedCounter, COUNTER_OPERATIONS),
    "locked LRU cache": (LockedLRUCache, LRU_OPERATIONS),
    "blocking queue": (BlockingQueue, QUEUE_WAIT_OPERATIONS),
}


def one_part(operation: object) -> int:
    """A partition of the operations into one part (for the tests of partition=)."""
    return 0

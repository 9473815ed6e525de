"""Data races through calls into C code and through builtins, each beside
its locked fix: library-like classes whose shared state is a C container
(``queue.SimpleQueue``, ``OrderedDict``, ``defaultdict``, ``Counter``,
``bytearray``, ``array.array``, a heap, a sorted list, an iterator, a bound
method kept, a list's truth), or reached through ``setattr``/``getattr``/``delattr``,
``__class__``, ``vars()``, an instance's ``__dict__``, ``exec`` and
``globals()``. The buggy versions take a lock that does nothing."""

from __future__ import annotations

import array
import bisect
import collections
import contextlib
import heapq
import queue
import types
from collections.abc import Callable
from typing import Any

from blanket import Scenario

Invariant = Callable[[], None]
Setup = Callable[[Scenario], "Invariant | None"]


def _lock(scenario: Scenario, locked: bool) -> Any:
    """The scenario's lock for a fix, a context that does nothing for a bug."""
    return scenario.Lock() if locked else contextlib.nullcontext()


class Guarded:
    """A library object: its state, and the lock its methods take."""

    def __init__(self, lock: Any) -> None:
        self.lock = lock
        self.seen: list[object] = []


# -- queue.SimpleQueue: put racing empty() and qsize() ---------------------------------

class Jobs(Guarded):
    def __init__(self, lock: Any, *items: int) -> None:
        super().__init__(lock)
        self.jobs: queue.SimpleQueue[int] = queue.SimpleQueue()
        for item in items:
            self.jobs.put(item)

    def take(self) -> None:
        with self.lock:
            if not self.jobs.empty():
                self.seen.append(self.jobs.get_nowait())

    def put_pair(self) -> None:
        with self.lock:
            self.jobs.put(1)
            self.jobs.put(2)

    def take_pair(self) -> None:
        with self.lock:
            if self.jobs.qsize():  # a pair is put at once: both are there
                self.seen.append((self.jobs.get_nowait(), self.jobs.get_nowait()))


def _queue_empty(scenario: Scenario, locked: bool) -> None:
    jobs = Jobs(_lock(scenario, locked), 1)
    scenario.thread(jobs.take)
    scenario.thread(jobs.take)


def _queue_qsize(scenario: Scenario, locked: bool) -> None:
    jobs = Jobs(_lock(scenario, locked))
    scenario.thread(jobs.put_pair)
    scenario.thread(jobs.take_pair)


# -- OrderedDict (a dict subclass): popitem, move_to_end, pop ---------------------------

class Recent(Guarded):
    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.entries: collections.OrderedDict[str, int] = collections.OrderedDict(a=1, b=2)

    def trim(self) -> None:
        with self.lock:
            while len(self.entries) > 1:
                self.entries.popitem(last=False)

    def refresh(self) -> None:
        with self.lock:
            if "a" in self.entries:
                self.entries.move_to_end("a")

    def drop(self) -> None:
        with self.lock:
            if "a" in self.entries:
                self.entries.pop("a")


def _ordered_trim(scenario: Scenario, locked: bool) -> Invariant:
    recent = Recent(_lock(scenario, locked))
    scenario.thread(recent.trim)
    scenario.thread(recent.trim)

    def one_kept() -> None:
        assert len(recent.entries) == 1, f"{len(recent.entries)} entries kept"
    return one_kept


def _ordered_refresh(scenario: Scenario, locked: bool) -> None:
    recent = Recent(_lock(scenario, locked))
    scenario.thread(recent.refresh)
    scenario.thread(recent.drop)


# -- defaultdict: a subscript that makes the item it misses -----------------------------

class Groups(Guarded):
    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.groups: collections.defaultdict[str, list[int]] = collections.defaultdict(list)

    def join(self, name: str) -> None:
        with self.lock:
            if len(self.groups) < 1:  # one group at most
                self.groups[name].append(1)


def _defaultdict(scenario: Scenario, locked: bool) -> Invariant:
    groups = Groups(_lock(scenario, locked))
    scenario.thread(groups.join, "a")
    scenario.thread(groups.join, "b")

    def one_group() -> None:
        assert len(groups.groups) <= 1, f"groups {sorted(groups.groups)}"
    return one_group


# -- Counter (a Python dict subclass): get, then pop ------------------------------------

class Tokens(Guarded):
    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.tokens = collections.Counter(a=1)

    def spend(self) -> None:
        with self.lock:
            if self.tokens.get("a", 0) > 0:
                self.tokens.pop("a")


def _counter(scenario: Scenario, locked: bool) -> None:
    tokens = Tokens(_lock(scenario, locked))
    scenario.thread(tokens.spend)
    scenario.thread(tokens.spend)


# -- bytearray: a buffer flushed while written ------------------------------------------

class Buffer(Guarded):
    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.buffer = bytearray(b"a")

    def write(self) -> None:
        with self.lock:
            self.buffer.extend(b"b")

    def flush(self) -> None:
        with self.lock:
            chunk = bytes(self.buffer)
            self.buffer.clear()
            self.seen.append(chunk)


def _bytearray(scenario: Scenario, locked: bool) -> Invariant:
    buffer = Buffer(_lock(scenario, locked))
    scenario.thread(buffer.write)
    scenario.thread(buffer.flush)

    def nothing_lost() -> None:
        kept = b"".join(buffer.seen) + bytes(buffer.buffer)  # type: ignore[arg-type]
        assert kept == b"ab", f"kept {kept!r}"
    return nothing_lost


# -- a list's truth: two looks that must agree ------------------------------------------

class Outbox(Guarded):
    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.queued: list[str] = []

    def send(self) -> None:
        queued = self.queued
        with self.lock:
            if queued:  # a truth test: a read of the list
                return
            idle = not queued  # another look, which must agree
        self.seen.append(idle)

    def post(self) -> None:
        with self.lock:
            self.queued.append("message")


def _truth(scenario: Scenario, locked: bool) -> Invariant:
    outbox = Outbox(_lock(scenario, locked))
    scenario.thread(outbox.send)
    scenario.thread(outbox.post)

    def the_looks_agreed() -> None:
        assert outbox.seen in ([], [True]), f"saw {outbox.seen}"
    return the_looks_agreed


# -- array.array: a bounded append ------------------------------------------------------

class Samples(Guarded):
    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.values = array.array("i")

    def add(self, value: int) -> None:
        with self.lock:
            if len(self.values) < 1:
                self.values.append(value)


def _array(scenario: Scenario, locked: bool) -> Invariant:
    samples = Samples(_lock(scenario, locked))
    scenario.thread(samples.add, 1)
    scenario.thread(samples.add, 2)

    def bounded() -> None:
        assert len(samples.values) <= 1, f"{len(samples.values)} values"
    return bounded


# -- heapq on a shared list ---------------------------------------------------------------

class Timers(Guarded):
    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.heap = [3]

    def fire(self) -> None:
        with self.lock:
            if len(self.heap):
                self.seen.append(heapq.heappop(self.heap))


def _heapq(scenario: Scenario, locked: bool) -> None:
    timers = Timers(_lock(scenario, locked))
    scenario.thread(timers.fire)
    scenario.thread(timers.fire)


# -- bisect.insort while another thread averages ----------------------------------------

class Sorted(Guarded):
    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.values = [2, 4]

    def add(self) -> None:
        with self.lock:
            bisect.insort(self.values, 6)

    def mean(self) -> None:
        with self.lock:
            self.seen.append(sum(self.values) / len(self.values))


def _insort(scenario: Scenario, locked: bool) -> Invariant:
    values = Sorted(_lock(scenario, locked))
    scenario.thread(values.add)
    scenario.thread(values.mean)

    def consistent() -> None:
        assert values.seen[0] in (3.0, 4.0), f"mean {values.seen[0]}"
    return consistent


# -- next() on a shared iterator -----------------------------------------------------------

class Numbers(Guarded):
    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.numbers = iter([1, 2])

    def issue(self) -> None:
        with self.lock:
            self.seen.append(next(self.numbers))


def _next(scenario: Scenario, locked: bool) -> None:
    numbers = Numbers(_lock(scenario, locked))
    scenario.thread(numbers.issue)
    scenario.thread(numbers.issue)


# -- a C method bound earlier: append = shared.append ----------------------------------------

class Log(Guarded):
    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.lines: collections.deque[str] = collections.deque()
        self._append = self.lines.append  # bound once, as fast code does

    def write(self) -> None:
        with self.lock:
            self._append("line")

    def start(self) -> None:
        with self.lock:
            if len(self.lines) == 0:
                self.lines.append("start")


def _bound(scenario: Scenario, locked: bool) -> Invariant:
    log = Log(_lock(scenario, locked))
    scenario.thread(log.write)
    scenario.thread(log.start)

    def started_first() -> None:
        assert "start" not in log.lines or log.lines[0] == "start", list(log.lines)
    return started_first


# -- setattr / getattr / delattr with a computed name ---------------------------------------

class Stats(Guarded):
    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.hits = 0

    def bump(self, name: str) -> None:
        with self.lock:
            setattr(self, name, getattr(self, name) + 1)

    def expire(self, name: str) -> None:
        with self.lock:
            if hasattr(self, name):
                delattr(self, name)


def _setattr(scenario: Scenario, locked: bool) -> Invariant:
    stats = Stats(_lock(scenario, locked))
    scenario.thread(stats.bump, "hits")
    scenario.thread(stats.bump, "hits")

    def both_counted() -> None:
        assert stats.hits == 2, f"hits {stats.hits}"
    return both_counted


def _delattr(scenario: Scenario, locked: bool) -> None:
    stats = Stats(_lock(scenario, locked))
    scenario.thread(stats.expire, "hits")
    scenario.thread(stats.expire, "hits")


# -- obj.__class__ = ... (a lazy object loading itself) ---------------------------------------

class Placeholder:
    def __init__(self, lock: Any) -> None:
        self.lock = lock

    def kind(self) -> str:
        return "placeholder"


class Loaded(Placeholder):
    def kind(self) -> str:
        return "loaded"


class Lazy(Guarded):
    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.box = Placeholder(lock)

    def load(self) -> None:
        box = self.box
        with self.lock:
            box.__class__ = Loaded

    def read(self) -> None:
        box = self.box
        with self.lock:
            self.seen.append(box.kind())


def _class(scenario: Scenario, locked: bool) -> None:
    lazy = Lazy(_lock(scenario, locked))
    scenario.thread(lazy.load)
    scenario.thread(lazy.read)


# -- an instance's __dict__: vars(obj)[k] = v, and the cached_property shape -----------------

class Settings:
    def __init__(self) -> None:
        self.debug = False
        self.level = 1


class Config(Guarded):
    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.settings = Settings()

    def apply(self) -> None:
        with self.lock:
            vars(self.settings)["debug"] = True
            vars(self.settings)["level"] = 2

    def read(self) -> None:
        settings = self.settings
        with self.lock:
            if settings.debug:
                self.seen.append(settings.level)


def _vars(scenario: Scenario, locked: bool) -> Invariant:
    config = Config(_lock(scenario, locked))
    scenario.thread(config.apply)
    scenario.thread(config.read)

    def whole() -> None:
        assert config.seen in ([], [2]), f"debug with level {config.seen}"
    return whole


_MISSING = object()


class cached:  # noqa: N801 - named as functools.cached_property, whose shape it has
    """A value computed once and kept in the instance's ``__dict__``."""

    def __init__(self, make: Callable[[Any], int]) -> None:
        self.make = make
        self.name = make.__name__

    def __get__(self, instance: Any, owner: type | None = None) -> int:
        namespace = instance.__dict__
        value = namespace.get(self.name, _MISSING)
        if value is _MISSING:
            value = self.make(instance)
            namespace[self.name] = value
        return value  # type: ignore[no-any-return]


class Report(Guarded):
    @cached
    def total(self) -> int:
        return 42

    def compute(self) -> None:
        with self.lock:
            self.seen.append(self.total)

    def reset(self) -> None:
        with self.lock:
            self.total = 0


def _cached(scenario: Scenario, locked: bool) -> Invariant:
    report = Report(_lock(scenario, locked))
    scenario.instrument(cached)
    scenario.thread(report.compute)
    scenario.thread(report.reset)

    def reset_last() -> None:
        assert report.total == 0, f"total {report.total} after its reset"
    return reset_last


# -- exec into a module's namespace, and globals()[name] = v ------------------------------------

class Plugins(Guarded):
    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.module = types.ModuleType("plugin")
        self.module.value = 0  # type: ignore[attr-defined]

    def load(self) -> None:
        with self.lock:
            exec("value = 42", self.module.__dict__)  # noqa: S102

    def read(self) -> None:
        with self.lock:
            self.seen.append(self.module.value)  # type: ignore[attr-defined]


def _exec(scenario: Scenario, locked: bool) -> None:
    plugins = Plugins(_lock(scenario, locked))
    scenario.thread(plugins.load)
    scenario.thread(plugins.read)


MODE = "slow"


class Modes(Guarded):
    def switch(self) -> None:
        with self.lock:
            globals()["MODE"] = "fast"

    def read(self) -> None:
        with self.lock:
            self.seen.append(MODE)


def _globals(scenario: Scenario, locked: bool) -> None:
    global MODE
    MODE = "slow"
    modes = Modes(_lock(scenario, locked))
    scenario.thread(modes.switch)
    scenario.thread(modes.read)


def _versions(make: Callable[[Scenario, bool], Invariant | None]) -> tuple[Setup, Setup]:
    """The bug's setup and its fix's, named after *make*."""
    def bug(scenario: Scenario) -> Invariant | None:
        return make(scenario, False)

    def fixed(scenario: Scenario) -> Invariant | None:
        return make(scenario, True)

    bug.__qualname__ = bug.__name__ = make.__name__.strip("_")
    fixed.__qualname__ = fixed.__name__ = f"{bug.__name__}_fixed"
    return bug, fixed


#: Each bug's setup, its locked fix, and what its failure says (a failure
#: of kind "race" when the bug is only the race: the outcome is right in
#: every order, or the rest of the bug is in code blanket does not watch).
BUGS: dict[str, tuple[Setup, Setup, str]] = {
    name: (*_versions(make), says) for name, make, says in (
    ("queue_empty", _queue_empty, "_queue.Empty"),
    ("queue_qsize", _queue_qsize, "_queue.Empty"),
    ("ordered_trim", _ordered_trim, "0 entries kept"),
    ("ordered_refresh", _ordered_refresh, "KeyError"),
    ("defaultdict", _defaultdict, "groups ['a', 'b']"),
    ("counter", _counter, "KeyError"),
    ("bytearray", _bytearray, "kept b'a'"),
    ("truth", _truth, "saw [False]"),
    ("array", _array, "2 values"),
    ("heappop", _heapq, "IndexError"),
    ("insort", _insort, "mean "),
    ("next", _next, "list_iterator: A writes at"),
    ("bound_method", _bound, "AssertionError: ['line', 'start']"),
    ("setattr", _setattr, "hits 1"),
    ("delattr", _delattr, "AttributeError"),
    ("class", _class, "Loaded.kind: A writes"),
    ("vars", _vars, "debug with level [1]"),
    ("cached_property", _cached, "total 42 after its reset"),
    ("exec", _exec, "plugin.value"),
    ("globals", _globals, "MODE"),
)}
#: The bugs that are only a race: explored with races="fail".
RACE_ONLY = frozenset({"next", "class", "exec", "globals"})

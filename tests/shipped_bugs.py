"""Setups for :func:`blanket.explore` over the library code of
:mod:`tests.shipped`, as a user writes them: only the library's public API is
called, and nothing in the library is named for blanket to watch. ``BUGS``
maps each case to its buggy setup, its fixed one, and what the failure of the
buggy one says."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from blanket import Scenario

from .shipped import (
    buffer,
    cached,
    drain,
    emitter,
    lazy_attr,
    lazy_module,
    mailbox,
    memo,
    registry,
    rwlock,
    tally,
    timers,
)

Invariant = Callable[[], None]
Setup = Callable[[Scenario], "Invariant | None"]


def _two(scenario: Scenario, target: Callable[..., Any], *args: Any) -> None:
    scenario.thread(target, *args)
    scenario.thread(target, *args)


def lazy_attribute(kind: type) -> Setup:
    """six #98: two first reads of a lazy attribute; the second ``delattr``
    of the descriptor fails."""
    def setup(scenario: Scenario) -> Invariant:
        moves = lazy_attr.namespace(kind, join=lambda: "joined")
        got: tuple[list[object], list[object]] = ([], [])

        def read(mine: list[object]) -> None:
            mine.append(moves.join)  # type: ignore[attr-defined]

        scenario.thread(read, got[0])
        scenario.thread(read, got[1])

        def both_read() -> None:
            assert got == (["joined"], ["joined"]), got
        return both_read
    return setup


def once_listener(kind: type) -> Setup:
    """pyee #76: two emits of an event with one ``once`` listener."""
    def setup(scenario: Scenario) -> Invariant:
        events = kind()
        calls: list[str] = []
        events.once("ping", lambda: calls.append("ping"))
        _two(scenario, events.emit, "ping")

        def called_once() -> None:
            assert calls == ["ping"], f"once-listener called {len(calls)} times"
        return called_once
    return setup


class Settings:
    computed: list[int] = []

    @cached.cached_prop
    def value(self) -> int:
        self.computed.append(1)
        return 42


class LockedSettings(Settings):
    @cached.locked_cached_prop
    def value(self) -> int:
        self.computed.append(1)
        return 42


def cached_property(kind: type) -> Setup:
    """gh-87634: two first reads of a cached property both compute it."""
    def setup(scenario: Scenario) -> Invariant:
        settings = kind()
        settings.computed = []

        def read() -> None:
            settings.value  # noqa: B018 - the first read computes it

        _two(scenario, read)

        def computed_once() -> None:
            assert len(settings.computed) == 1, f"computed {len(settings.computed)} times"
        return computed_once
    return setup


def memoized(decorate: Callable[..., Any]) -> Setup:
    """cachetools before 6.0: two callers of one missing key both compute."""
    def setup(scenario: Scenario) -> Invariant:
        calls: list[int] = []

        @decorate(maxsize=8)
        def square(x: int) -> int:
            calls.append(x)
            return x * x

        _two(scenario, square, 3)

        def computed_once() -> None:
            assert calls == [3], f"computed {len(calls)} times"
        return computed_once
    return setup


def _load(namespace: dict[str, object]) -> None:
    """The lazily loaded module's code."""
    namespace["VALUE"] = 42


def lazily_loaded(locked: bool) -> Setup:
    """gh-114763: two first reads of a lazily loaded module; one finds it
    empty."""
    def setup(scenario: Scenario) -> Invariant:
        module = lazy_module.lazy_module("payload", _load, locked=locked)
        got: tuple[list[object], list[object]] = ([], [])

        def read(mine: list[object]) -> None:
            mine.append(module.VALUE)

        scenario.thread(read, got[0])
        scenario.thread(read, got[1])

        def both_read() -> None:
            assert got == ([42], [42]), got
        return both_read
    return setup


def reader_writer(admit_writer: bool) -> Setup:
    """fasteners #86: the writer asks for a read lock while another writer
    waits: deadlock."""
    def setup(scenario: Scenario) -> None:
        rw = rwlock.ReaderWriterLock(admit_writer=admit_writer)

        def write_then_read() -> None:
            rw.acquire_write()
            rw.acquire_read()
            rw.release_read()
            rw.release_write()

        def write() -> None:
            rw.acquire_write()
            rw.release_write()

        scenario.thread(write_then_read)
        scenario.thread(write)
    return setup


def handlers(kind: type) -> Setup:
    """logging's callHandlers: a handler that stays is skipped while another
    is removed."""
    def setup(scenario: Scenario) -> Invariant:
        logger = kind()
        first: list[str] = []
        second: list[str] = []
        logger.add_handler(first)
        logger.add_handler(second)
        scenario.thread(logger.remove_handler, first)
        scenario.thread(logger.log, "message")

        def second_got_it() -> None:
            assert second == ["message"], f"the second handler got {second}"
        return second_got_it
    return setup


def wake_once(kind: type) -> Setup:
    """Two producers both see the queue empty and both put a wake-up."""
    def setup(scenario: Scenario) -> Invariant:
        waker = kind()
        _two(scenario, waker.wake)

        def one_wakeup() -> None:
            assert waker.wakeups.qsize() == 1, f"{waker.wakeups.qsize()} wake-ups"
        return one_wakeup
    return setup


def trylock_drain(submit: Callable[[object], None]) -> Setup:
    """An item left in the deque when its submitter's try fails just before
    the holder releases."""
    def setup(scenario: Scenario) -> Invariant:
        drain.pending.clear()
        drain.done.clear()
        scenario.thread(submit, "a")
        scenario.thread(submit, "b")

        def all_done() -> None:
            left = list(drain.pending)
            assert sorted(drain.done) == ["a", "b"], f"done {drain.done}, left {left}"
        return all_done
    return setup


def due_timers(kind: type) -> Setup:
    """Two threads see one due timer; both pop it."""
    def setup(scenario: Scenario) -> Invariant:
        timers_ = kind(1, 5)
        popped: tuple[list[object], list[object]] = ([], [])

        def pop(mine: list[object]) -> None:
            mine.append(timers_.pop_due(now=2))

        scenario.thread(pop, popped[0])
        scenario.thread(pop, popped[1])

        def one_popped() -> None:
            assert sorted(popped[0] + popped[1], key=str) == [1, None], f"popped {popped}"
        return one_popped
    return setup


def shared_generator(make: Callable[[dict[str, int]], Any]) -> Setup:
    """Two workers resume one generator: ``generator already executing``."""
    def setup(scenario: Scenario) -> Invariant:
        items = make({"a": 1, "b": 2})
        got: tuple[list[int], list[int]] = ([], [])

        def work(mine: list[int]) -> None:
            for item in items:
                mine.append(item)

        scenario.thread(work, got[0])
        scenario.thread(work, got[1])

        def each_once() -> None:
            assert sorted(got[0] + got[1]) == [1, 2], got
        return each_once
    return setup


def buffered(kind: type) -> Setup:
    """A flush between another thread's copy and clear drops its bytes."""
    def setup(scenario: Scenario) -> Invariant:
        out = kind(limit=2)
        scenario.thread(out.write, b"ab")
        scenario.thread(out.write, b"c")

        def nothing_lost() -> None:
            written = b"".join(out.sink) + bytes(out.data)
            assert sorted(written) == sorted(b"abc"), f"wrote {written!r}"
        return nothing_lost
    return setup


def counted(kind: type) -> Setup:
    """Two ``Counter.update`` calls of one word lose one."""
    def setup(scenario: Scenario) -> Invariant:
        words = kind()
        _two(scenario, words.add, {"word": 1})

        def counted_twice() -> None:
            assert words.counts["word"] == 2, f"counted {words.counts['word']}"
        return counted_twice
    return setup


#: Each case: the buggy setup, the fixed one, and a piece of the failure's message.
#: (``shared_generator`` is not among them: see tests/test_shipped_bugs.py.)
BUGS: dict[str, tuple[Setup, Setup, str]] = {
    "lazy attribute (six #98)": (
        lazy_attribute(lazy_attr.LazyAttr), lazy_attribute(lazy_attr.LockedLazyAttr),
        "AttributeError"),
    "once listener (pyee #76)": (
        once_listener(emitter.Emitter), once_listener(emitter.LockedEmitter), "KeyError"),
    "cached property (gh-87634)": (
        cached_property(Settings), cached_property(LockedSettings), "computed 2 times"),
    "memoized call (cachetools 5)": (
        memoized(memo.lru_cache), memoized(memo.lru_cache_waiting), "computed 2 times"),
    "lazy module (gh-114763)": (
        lazily_loaded(False), lazily_loaded(True), "AttributeError"),
    "reader-writer lock (fasteners #86)": (
        reader_writer(False), reader_writer(True), "waits in Condition.wait"),
    "handlers while one is removed (logging)": (
        handlers(registry.Logger), handlers(registry.LockedLogger), "the second handler got []"),
    "wake-up put twice (SimpleQueue)": (
        wake_once(mailbox.Waker), wake_once(mailbox.LockedWaker), "2 wake-ups"),
    "trylock drain (deque)": (
        trylock_drain(drain.submit), trylock_drain(drain.submit_fixed), "left ["),
    "due timer popped twice (heapq)": (
        due_timers(timers.Timers), due_timers(timers.LockedTimers), "popped"),
    "flush drops a write (bytearray)": (
        buffered(buffer.Buffer), buffered(buffer.LockedBuffer), "wrote"),
    "lost count (Counter.update)": (
        counted(tally.Tally), counted(tally.LockedTally), "counted 1"),
}


"""The witness (blanket.exploration.witness): "the whole space" is checked
by a second route, independent of the watch that produced it. Python code
a managed thread ran that the watch neither watched nor named is a gap in
``unseen``; a C callable blanket knows nothing of (``functools.lru_cache``'s
wrapper: its cache lookup and store are C code around the function's body)
is named where watched code calls it."""

from __future__ import annotations

import _thread
import copy
import ctypes
import functools
import json
import operator
import sys
import threading
import unittest
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import blanket
from blanket import Scenario, core
from blanket.exploration import monitor, namespaces, runners, sites, threadlocals, witness
from blanket.exploration.unseen import Unseen
from blanket.exploration.watch import Transitive

from . import wrapped
from .support import quiet_thread_errors
from .test_explore import BOUND, explore, failure_of

WITNESSED = "(seen by the witness: the watch neither watched nor named it)"


# -- (a) functools.lru_cache: C code around the function's body ------------------------

@functools.cache
def made(key: int) -> object:
    """One object per key (so lru_cache promises, and breaks with threads)."""
    return object()


def lru_callers(scenario: Scenario) -> Callable[[], None]:
    """Two threads ask for key 1: real threads can both miss the cache and
    get two objects; the runs, where the body has no step, never do."""
    made.cache_clear()
    got: list[object] = []

    def caller() -> None:
        got.append(made(1))
    scenario.thread(caller)
    scenario.thread(caller)

    def invariant() -> None:
        assert got[0] is got[1], "two objects for one key"
    return invariant


def lru_targets(scenario: Scenario) -> None:
    """The lru_cache wrapper is the threads' target itself."""
    made.cache_clear()
    scenario.thread(made, 1)
    scenario.thread(made, 1)


def made_of(obj: object) -> object:
    """An operation of the linearizability check: what ``made`` gives."""
    return made(1)


class Registry:
    """Methods cached by lru_cache, a static one and an instance's."""

    @staticmethod
    @functools.lru_cache
    def shared(key: int) -> list[int]:
        return [key]

    @functools.cache  # noqa: B019 - (the shape under test)
    def own(self, key: int) -> list[int]:
        return [key]


@functools.cache
def spun(key: int) -> int:
    """A cached function whose body is a loop from its first line (the loop
    jumps back there, past the hook its start runs)."""
    while key < 3:
        key += 1
    return key


#: What :func:`scanned` saw (once per thread).
SCANNED: list[int] = []


def scanned() -> None:
    SCANNED.append(1)


def scanning() -> None:
    """Runs :func:`scanned`, whose module name holds a C callable now."""
    called()


called = scanned
scanned = json.scanner.c_make_scanner(json.JSONDecoder())  # type: ignore[assignment]


def through_c(call: Callable[[], object]) -> Callable[[Scenario], None]:
    """A setup of two threads running *call*, the caches emptied first."""
    def setup(scenario: Scenario) -> None:
        for cached in (made, Registry.shared, Registry.own, spun):
            cached.cache_clear()
        scenario.thread(call)
        scenario.thread(call)
    return setup


class LruCache(unittest.TestCase):
    def assertNamedOnce(self, setup: Callable[[Scenario], None], wrapper: str,
                        line: int) -> None:
        """A search of *setup* names *wrapper*'s C code, called at *line* of
        this file, once, and says no "whole space"."""
        result = explore(setup)
        self.assertFalse(result.exhausted, result)
        self.assertEqual(result.unseen, [
            f"C callable functools._lru_cache_wrapper of {wrapper} called at "
            f"tests/test_witness.py:{line}: what its C code does (its own state, what it "
            "reads and changes, the Python code it calls back) is not watched"])

    # C code, not a watched call site, calls the wrapper: the wrapped
    # function's start names it (it passed for "the whole space" before).
    def test_a_wrapper_map_calls_is_named(self) -> None:
        def mapped() -> None:
            list(map(made, [1]))
        self.assertNamedOnce(through_c(mapped), "made", mapped.__code__.co_firstlineno + 1)

    def test_a_wrapper_sorted_calls_with_each_key_is_named_once(self) -> None:
        def keyed() -> None:
            sorted([1, 2, 1], key=made)
        self.assertNamedOnce(through_c(keyed), "made", keyed.__code__.co_firstlineno + 1)

    def test_a_cached_static_method_called_by_c_code_is_named(self) -> None:
        def mapped() -> None:
            list(map(Registry.shared, [1]))
        self.assertNamedOnce(through_c(mapped), "Registry.shared",
                             mapped.__code__.co_firstlineno + 1)

    def test_a_cached_method_called_by_c_code_is_named(self) -> None:
        registry = Registry()

        def mapped() -> None:
            list(map(registry.own, [1]))
        self.assertNamedOnce(through_c(mapped), "Registry.own",
                             mapped.__code__.co_firstlineno + 1)

    def test_instrumenting_a_module_watches_what_its_caches_keep(self) -> None:
        self.assertIn(wrapped.tallied.__wrapped__, list(namespaces.functions_in(wrapped)))

        def setup(scenario: Scenario) -> Callable[[], None]:
            wrapped.tallied.cache_clear()
            wrapped.COMPUTED.clear()
            scenario.instrument(wrapped)
            scenario.thread(wrapped.asks)
            scenario.thread(wrapped.asks)

            def invariant() -> None:
                assert wrapped.COMPUTED == [1], wrapped.COMPUTED
            return invariant
        result = explore(setup)
        self.assertFalse(result.exhausted, result)
        self.assertEqual([note.partition(":")[0] for note in result.unseen], [
            "C callable functools._lru_cache_wrapper of tallied called at tests/wrapped.py"])

    def test_the_wrapped_function_s_loop_runs_its_start_once(self) -> None:
        # (a loop back to the first line does not land on the hook: one
        # note, and the loop still counts)
        got: list[int] = []

        def mapped() -> None:
            got.extend(map(spun, [0]))
        self.assertNamedOnce(through_c(mapped), "spun", mapped.__code__.co_firstlineno + 1)
        self.assertEqual(set(got), {3})


    def test_an_lru_cached_function_is_a_named_gap_not_the_whole_space(self) -> None:
        result = explore(lru_callers)
        self.assertFalse(result.exhausted, result)
        self.assertNotIn("the whole space", str(result))
        (note,) = [note for note in result.unseen if "lru_cache" in note]
        self.assertIn("C callable functools._lru_cache_wrapper of made called at "
                      "tests/test_witness.py:", note)
        self.assertIn("is not watched", note)

    def test_an_lru_cached_target_is_named(self) -> None:
        result = explore(lru_targets)
        self.assertFalse(result.exhausted, result)
        # (named once: the wrapped function's start, called by blanket's
        # code, names nothing more)
        self.assertEqual(result.unseen, ["thread target made is C code: what it does itself "
                                         "is not watched (call it from a function)"])

    def test_the_wrapped_function_run_by_the_invariant_names_nothing(self) -> None:
        def setup(scenario: Scenario) -> Callable[[], None]:
            made.cache_clear()
            scenario.thread(made.__wrapped__, 1)  # type: ignore[attr-defined]

            def invariant() -> None:
                made(2)  # (a miss: the function starts in the scheduler's thread)
            return invariant
        result = explore(setup)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.unseen, [])

    def test_a_c_callable_with_no_dict_under_a_function_s_name_wraps_nothing(self) -> None:
        # (scanned's name holds a C callable with no instance dict, and no
        # __wrapped__: the function under it is no wrapper's)
        def setup(scenario: Scenario) -> None:
            SCANNED.clear()
            scenario.thread(scanning)
            scenario.thread(scanning)
        result = explore(setup)
        self.assertEqual(result.unseen, [])
        self.assertEqual(SCANNED, [1, 1])

    def test_check_linearizable_does_not_say_every_scenario_s_whole_space(self) -> None:
        made.cache_clear()
        with quiet_thread_errors():
            result = blanket.check_linearizable(lambda: None, [made_of], threads=2,
                                                operations_per_thread=1, scenarios=2,
                                                timeout=BOUND)
        self.assertNotIn("every one's whole space", str(result))
        self.assertFalse(any(result.exhausted), result)
        self.assertTrue(any("functools._lru_cache_wrapper of made" in note
                            for note in result.unseen), result.unseen)

    def test_any_c_callable_blanket_does_not_know_is_named(self) -> None:
        class Named:
            """What lru_cache wraps: its __qualname__ (copied) is no str."""

            def __init__(self) -> None:
                self.__qualname__ = 7

            def __call__(self) -> int:
                return 0
        cached = functools.lru_cache(Named())
        getpid = ctypes.CDLL(None).getpid  # (a C callable with no __qualname__ at all)

        def setup(scenario: Scenario) -> None:
            def worker() -> None:
                float.fromhex.__call__("1")  # (a method-wrapper: known)
                cached()
                getpid()
            scenario.thread(worker)
        result = explore(setup)
        self.assertFalse(result.exhausted, result)
        self.assertEqual([note.partition(" called at ")[0] for note in result.unseen],
                         ["C callable functools._lru_cache_wrapper",
                          "C callable ctypes.CDLL.__init__.<locals>._FuncPtr"])

    def test_operator_s_getters_access_their_argument(self) -> None:
        def setup(scenario: Scenario) -> Callable[[], None]:
            shared: list[int] = []

            def reader() -> None:
                if not operator.itemgetter(slice(None))(shared):
                    operator.methodcaller("append", 1)(shared)
            scenario.thread(reader)
            scenario.thread(reader)

            def invariant() -> None:
                assert shared == [1], f"shared is {shared}"
            return invariant
        result = explore(setup)
        self.assertEqual(result.unseen, [])
        self.assertIn("shared is [1, 1]", failure_of(result).message)

    def test_outside_an_exploration_nothing_is_named(self) -> None:
        self.assertIsNone(Scenario()._watch.opaque(made))  # (no exploration's rule)
        self.assertIs(sites._opaque(made), made)  # (a thread that records nothing)
        self.assertTrue(sites.opaque(made))
        self.assertFalse(sites.opaque(functools.partial(made)))

    def test_known_c_callables_are_no_gap(self) -> None:
        def setup(scenario: Scenario) -> None:
            counted = Counted()
            static = staticmethod(counted.key)
            held = weakref.ref(counted)
            keyed = functools.cmp_to_key(lambda a, b: 0)

            def worker() -> None:
                static(1)
                held()
                keyed(1)
            scenario.thread(worker)
        result = explore(setup)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.unseen, [])


# -- (b) Python code C code calls back: watched, and the witness agrees ---------------

class Counted:
    """Counts the calls of its callbacks (not thread-safe)."""

    def __init__(self) -> None:
        self.n = 0

    def key(self, x: int) -> int:
        self.n += 1
        return x

    def add(self, a: int, b: int) -> int:
        self.n += 1
        return a + b


class Hashed:
    """A dict key whose ``__hash__`` and ``__eq__`` count (from C code)."""

    def __init__(self, counted: Counted) -> None:
        self.counted = counted

    def __hash__(self) -> int:
        self.counted.n += 1
        return 1

    def __eq__(self, other: object) -> bool:
        self.counted.n += 1
        return True


class Described:
    """A descriptor whose ``__get__`` counts (``getattr`` calls it from C)."""

    def __init__(self, counted: Counted) -> None:
        self.counted = counted

    def __get__(self, obj: object, owner: type | None = None) -> int:
        self.counted.n += 1
        return 0


def _sorted(counted: Counted) -> None:
    sorted([2, 1], key=counted.key)


def _map(counted: Counted) -> None:
    list(map(counted.key, [1]))


def _reduce(counted: Counted) -> None:
    functools.reduce(counted.add, [1, 2])


def _dict(counted: Counted) -> None:
    table = {Hashed(counted): 1}
    table.get(Hashed(counted))


#: What a ``Dying`` counts with (the setup's): no attribute of its own,
#: for a record of an access to it would keep it alive to the end of the
#: run, and its ``__del__`` would run there.
DYING: list[Counted] = []


class Dying:
    """Counts its own end (``__del__``, called by the deallocation)."""

    def __del__(self) -> None:
        DYING[0].n += 1


def _deleted(counted: Counted) -> None:
    dying = Dying()
    del dying


def _counting(counted: Counted, ref: object) -> None:
    counted.n += 1


def _weakref_callback(counted: Counted) -> None:
    class Referent:
        pass
    referent = Referent()
    # (the callback called by C code only: a partial, which the weak
    # reference's end calls)
    held = weakref.ref(referent, functools.partial(_counting, counted))
    del referent
    assert held() is None


def _descriptor(counted: Counted) -> None:
    holder = type("Holder", (), {"value": Described(counted)})()
    getattr(holder, "value")  # noqa: B009 - C code calls the descriptor


#: Each way C code calls back into Python, with the calls it counts.
CALLBACKS: dict[str, tuple[Callable[[Counted], None], int]] = {
    "sorted": (_sorted, 2), "map": (_map, 1), "reduce": (_reduce, 1),
    "dict": (_dict, 3), "__del__": (_deleted, 1), "weakref": (_weakref_callback, 1),
    "descriptor": (_descriptor, 1)}


def callbacks(body: Callable[[Counted], None], count: int, *, locked: bool
              ) -> Callable[[Scenario], Callable[[], None]]:
    """Two threads run *body*, under a lock when *locked*: the count must be
    twice *count*."""
    def setup(scenario: Scenario) -> Callable[[], None]:
        counted = Counted()
        DYING[:] = [counted]
        lock = scenario.Lock()

        def worker() -> None:
            if locked:
                with lock:
                    body(counted)
            else:
                body(counted)
        scenario.thread(worker)
        scenario.thread(worker)

        def invariant() -> None:
            assert counted.n == 2 * count, f"counted {counted.n}"
        return invariant
    return setup


@contextmanager
def watch_blind_to_c_callers() -> Iterator[None]:
    """The watch broken on purpose: code C code calls is never met (so
    never watched, nor named); the witness is what is left to see it."""
    with mock.patch.object(Transitive, "met", lambda self, frame: None):
        yield


class Callbacks(unittest.TestCase):
    def test_racy_callbacks_from_c_are_watched(self) -> None:
        for name, (body, count) in CALLBACKS.items():
            with self.subTest(name):
                failure = failure_of(explore(callbacks(body, count, locked=False)))
                self.assertIn("counted", failure.message)

    def test_locked_callbacks_are_the_whole_space_with_the_witness_agreeing(self) -> None:
        for name, (body, count) in CALLBACKS.items():
            with self.subTest(name):
                result = explore(callbacks(body, count, locked=True))
                self.assertTrue(result.exhausted, result)
                self.assertIn("the whole space", str(result))
                self.assertEqual(result.unseen, [])

    def test_the_witness_names_what_a_blind_watch_missed(self) -> None:
        for name, (body, count) in CALLBACKS.items():
            with self.subTest(name), watch_blind_to_c_callers():
                result = explore(callbacks(body, count, locked=True))
                self.assertFalse(result.exhausted, result)
                self.assertNotIn("the whole space", str(result))
                self.assertTrue(any(note.endswith(WITNESSED) and "tests/test_witness.py:"
                                    in note for note in result.unseen), result.unseen)

    def test_the_gap_names_the_function_and_its_place(self) -> None:
        with watch_blind_to_c_callers():
            result = explore(callbacks(_sorted, 2, locked=True))
        line = Counted.key.__code__.co_firstlineno
        self.assertEqual(result.unseen, [f"function Counted.key at tests/test_witness.py:{line} "
                                         f"ran unwatched {WITNESSED}"])

    def test_the_witness_s_thread_local_data_keeps_no_runner_from_reuse(self) -> None:
        # (blanket's own, put back between two managed threads: were it the
        # code under test's, every run would start threads of its own)
        gained: list[bool] = []
        real = threadlocals.Locals.gained

        def spied(self: threadlocals.Locals) -> bool:
            gained.append(real(self))
            return gained[-1]
        with mock.patch.object(threadlocals.Locals, "gained", spied), \
                mock.patch.object(runners, "REUSED_FROM", 1):  # (a search of a few runs)
            result = explore(callbacks(_sorted, 2, locked=True))
        self.assertTrue(result.exhausted, result)
        self.assertGreater(len(gained), 1)
        self.assertNotIn(True, gained)

    def test_nothing_watched_nothing_witnessed(self) -> None:
        with watch_blind_to_c_callers():
            result = explore(callbacks(_sorted, 2, locked=True), races="off")
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.unseen, [])


# -- the witness's own parts ----------------------------------------------------------

def _frame_of_library_code_called_by(caller: Callable[..., Any]) -> Any:
    """The frame of ``copy.deepcopy`` (library code) called by *caller*."""
    class Copied:
        def __deepcopy__(self, memo: object) -> object:
            frames.append(sys._getframe(1))
            return self
    frames: list[Any] = []
    caller(copy.deepcopy, Copied())
    return frames[0]


class Parts(unittest.TestCase):
    def test_library_code_blanket_runs_is_not_the_thread_s(self) -> None:
        # (blanket.exploration.monitor.paused stands for blanket's code calling it)
        frame = _frame_of_library_code_called_by(monitor.paused)
        seen = witness.Witness()
        self.assertFalse(seen.saw(frame))
        self.assertEqual(seen.started, {})

    def test_library_code_at_the_bottom_of_a_thread_is_not_the_thread_s(self) -> None:
        frames: list[Any] = []
        done = threading.Event()

        class Copied:
            def __deepcopy__(self, memo: object) -> object:
                frames.append(sys._getframe(1))  # copy.deepcopy's, the thread's first
                done.set()
                return self
        _thread.start_new_thread(copy.deepcopy, (Copied(),))
        self.assertTrue(done.wait(BOUND))
        self.assertFalse(witness._own(frames[0]))

    def test_blanket_s_own_code_is_not_the_thread_s(self) -> None:
        frame = monitor.paused(sys._getframe, 0)  # (paused's frame)
        self.assertFalse(witness._own(frame))

    def test_a_code_is_recorded_once(self) -> None:
        seen = witness.Witness()
        frame = sys._getframe()
        self.assertTrue(seen.saw(frame))
        self.assertTrue(seen.saw(frame))
        self.assertEqual(list(seen.started), [id(frame.f_code)])

    def test_the_import_system_s_and_weakref_s_code_is_never_the_thread_s(self) -> None:
        seen = witness.Witness()
        frames: list[Any] = []
        weakref.finalize(Counted(), lambda: frames.append(sys._getframe(1)))
        self.assertEqual(len(frames), 1)
        self.assertTrue(seen.saw(frames[0]))  # (finalize's __call__: weakref's)
        self.assertEqual(seen.started, {})

    def test_forgetting_without_a_witness(self) -> None:
        unseen = Unseen()
        unseen.forget()
        self.assertEqual(unseen.notes, [])

    def test_blanket_s_code_is_ignored_once_met(self) -> None:
        seen = witness.Witness()
        frame = monitor.paused(sys._getframe, 0)  # (paused's frame: blanket's)
        self.assertTrue(seen.saw(frame))
        self.assertTrue(seen.saw(frame))
        self.assertEqual(seen.started, {})
        self.assertEqual(list(seen.ignored), [id(frame.f_code)])

    @unittest.skipIf(sys.version_info >= (3, 12), "a trace function alone: Python 3.11")
    def test_alone_the_trace_is_off_in_blanket_s_bookkeeping_only(self) -> None:
        # (in a thread threading did not start: no coverage's tracer there)
        traces: dict[str, object] = {}
        done = threading.Event()

        def thread_s() -> None:
            traces["own"] = sys.gettrace()
            traces["bookkeeping"] = core.unwatched(sys.getprofile(), sys.gettrace)
            traces["own again"] = sys.gettrace()

        def run() -> None:
            try:
                witness.Witness().witnessed(thread_s)
                traces["after"] = sys.gettrace()
            finally:
                done.set()
        _thread.start_new_thread(run, ())
        self.assertTrue(done.wait(BOUND))
        self.assertIsNotNone(traces["own"])
        self.assertIsNone(traces["bookkeeping"])
        self.assertIs(traces["own again"], traces["own"])
        self.assertIsNone(traces["after"])
        self.assertEqual(core.quiet_traces, set())

    def test_a_quiet_trace_is_off_in_blanket_s_bookkeeping(self) -> None:
        on = sys.gettrace()  # (coverage's, under coverage)
        with mock.patch.object(core, "quiet_traces", {on}):
            self.assertIsNone(core.unwatched(sys.getprofile(), sys.gettrace))
        self.assertIs(sys.gettrace(), on)

    def test_with_another_tracer_the_witness_s_stays_on(self) -> None:
        seen: list[object] = []

        def tracer(frame: Any, event: str, arg: Any) -> None:
            seen.append(frame.f_code)

        def run() -> object:
            return core.unwatched(sys.getprofile(), sys.gettrace)
        on = sys.gettrace()
        sys.settrace(tracer)
        try:
            inside = witness.Witness().witnessed(run)
        finally:
            sys.settrace(on)
        self.assertIsNotNone(inside)
        self.assertIn(core.unwatched.__code__, seen)  # (the tracer saw blanket's code)
        self.assertEqual(core.quiet_traces, set())

    def test_a_gap_is_named_once_per_place(self) -> None:
        seen = witness.Witness()
        seen.started = {1: (Counted.key.__code__, "here.py:1"),
                        2: (Counted.add.__code__, "here.py:1")}
        self.assertEqual(len(seen.gaps(Transitive())), 1)


if __name__ == "__main__":  # pragma: no cover
    unittest.main()

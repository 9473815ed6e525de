"""explore watches the code the threads run, transitively (issue 21): bugs in
helpers of another module, a library class, a closure made in the setup, a
property, a ``with`` block's context manager and a callback of ``sorted``
are found, their locked fixes exhausted with no race; what is excluded, or
cannot be watched, is named in the verdict, each gap once; and
``scenario.instrument`` walks a module without touching its lazy
attributes."""

from __future__ import annotations

import contextlib
import dis
import functools
import operator
import os
import random
import sys
import textwrap
import threading
import time
import types
import unittest
import unittest.mock
import weakref
from collections.abc import Callable
from typing import Any

import blanket
from blanket import Scenario
from blanket.exploration import reproduce, rewrite, sites
from blanket.exploration.unseen import Unseen
from blanket.exploration.watch import Transitive

from .support import quiet_thread_errors, unchecked
from .transitive import helpers, lazy, library

Invariant = Callable[[], None]


def _lock(scenario: Scenario, locked: bool) -> Any:
    """The scenario's lock for a fix, a context that does nothing for a bug."""
    return scenario.Lock() if locked else contextlib.nullcontext()


def helper_counter(scenario: Scenario, locked: bool) -> Invariant:
    tally, lock = helpers.Tally(), _lock(scenario, locked)

    def work() -> None:
        helpers.bump(tally, lock)

    scenario.thread(work)
    scenario.thread(work)

    def both_counted() -> None:
        assert tally.count == 2, f"count is {tally.count}"
    return both_counted


def library_cache(scenario: Scenario, locked: bool) -> Invariant:
    cache = library.Cache(_lock(scenario, locked))

    def work() -> None:
        cache.get("key", object)

    scenario.thread(work)
    scenario.thread(work)

    def made_once() -> None:
        assert cache.made == 1, f"made {cache.made} values"
    return made_once


def setup_closure(scenario: Scenario, locked: bool) -> Invariant:
    increment, total = helpers.counting(_lock(scenario, locked))

    def work() -> None:
        increment()

    scenario.thread(work)
    scenario.thread(work)

    def both_counted() -> None:
        assert total() == 2, f"count is {total()}"
    return both_counted


def through_a_property(scenario: Scenario, locked: bool) -> Invariant:
    numbers = library.Sequence(_lock(scenario, locked))
    first: list[int] = []
    second: list[int] = []

    def work(taken: list[int]) -> None:
        taken.append(numbers.next_number)

    scenario.thread(work, first)
    scenario.thread(work, second)

    def distinct() -> None:
        assert first != second, f"both took {first}"
    return distinct


def inside_a_with(scenario: Scenario, locked: bool) -> Invariant:
    room = library.Occupancy(_lock(scenario, locked))

    def work() -> None:
        with room:
            pass

    scenario.thread(work)
    scenario.thread(work)

    def left_empty() -> None:
        assert (room.inside, room.entered) == (0, 2), f"inside {room.inside}, " \
            f"entered {room.entered}"
    return left_empty


def a_sorted_key(scenario: Scenario, locked: bool) -> Invariant:
    tally, lock = helpers.Tally(), _lock(scenario, locked)
    items = [helpers.Item(1, tally, lock)]

    def work() -> None:
        sorted(items, key=helpers.counted_key)

    scenario.thread(work)
    scenario.thread(work)

    def both_counted() -> None:
        assert tally.count == 2, f"count is {tally.count}"
    return both_counted


def a_map_callback(scenario: Scenario, locked: bool) -> Invariant:
    tally, lock = helpers.Tally(), _lock(scenario, locked)
    items = [helpers.Item(1, tally, lock)]

    def work() -> None:
        list(map(helpers.counted_key, items))

    scenario.thread(work)
    scenario.thread(work)

    def both_counted() -> None:
        assert tally.count == 2, f"count is {tally.count}"
    return both_counted


Make = Callable[[Scenario, bool], Invariant]
#: Each bug, and what its failure says.
BUGS: dict[str, tuple[Make, str]] = {
    "helper": (helper_counter, "count is 1"),
    "library": (library_cache, "made 2 values"),
    "closure": (setup_closure, "count is 1"),
    "property": (through_a_property, "both took"),
    "with": (inside_a_with, "inside"),
    "sorted": (a_sorted_key, "count is 1"),
    "map": (a_map_callback, "count is 1"),
}


def version(make: Make, locked: bool) -> Callable[[Scenario], Invariant]:
    def setup(scenario: Scenario) -> Invariant:
        return make(scenario, locked)
    setup.__qualname__ = make.__name__ + ("_fixed" if locked else "")
    return setup


class CalledCode(unittest.TestCase):
    def test_each_bug_in_called_code_is_found_in_50_runs(self) -> None:
        # Before: only the threads' targets were watched: no race, and "the
        # whole space; no failure" for every one of them.
        for bug, (make, says) in BUGS.items():
            for strategy in ("dfs", "random", "pct"):
                with self.subTest(bug=bug, strategy=strategy), quiet_thread_errors():
                    result = blanket.explore(version(make, False), strategy=strategy,
                                             max_schedules=50)
                    self.assertLessEqual(result.runs, 50)
                    assert result.failure is not None, result
                    self.assertIn(says, result.failure.message)
                    self.assertTrue(result.races)

    def test_each_fix_is_explored_exhaustively_with_no_race(self) -> None:
        for bug, (make, _) in BUGS.items():
            with self.subTest(bug):
                result = blanket.explore(version(make, True))
                self.assertIsNone(result.failure, result)
                self.assertTrue(result.exhausted, result)
                self.assertEqual(result.races, [])
                self.assertEqual(result.unseen, [])

    def test_the_race_names_the_helpers_lines(self) -> None:
        with quiet_thread_errors():
            result = blanket.explore(version(helper_counter, False))
        line = helpers.bump.__code__.co_firstlineno + 3  # count += 1
        self.assertIn(f"Tally.count: A writes at tests/transitive/helpers.py:{line}",
                      [str(race).split(",")[0] for race in result.races])


class FirstMet(unittest.TestCase):
    def test_a_real_lock_taken_by_code_first_met_unwatched_leaves_no_gap(self) -> None:
        # Before: the first run, the property's code not watched yet, took the
        # real lock: "real Lock used", not exhaustive, though the search that
        # followed used its twin in every run.
        numbers = library.Sequence(threading.Lock())

        def setup(scenario: Scenario) -> None:
            def work() -> None:
                numbers.next_number  # noqa: B018 - a property

            scenario.thread(work)
            scenario.thread(work)

        result = blanket.explore(setup)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.unseen, [])


    def test_a_generator_started_unwatched_in_a_run_is_watched_from_the_next(self) -> None:
        # A contextmanager method: the first run starts its generator before
        # its code is watched, and resumes it at the with's exit. Before:
        # "ran unwatched: made anew in every run" (the resume met as a new
        # call), and "real Lock used" by threads given up on, unwinding.
        def setup(scenario: Scenario) -> Any:
            ledger = library.Ledger()

            def write(entry: str) -> None:
                with ledger.locked():
                    ledger.entries.append(entry)

            scenario.thread(write, "a")
            scenario.thread(write, "b")

            def both() -> None:
                assert sorted(ledger.entries) == ["a", "b"], ledger.entries
            return both

        result = blanket.explore(setup)
        self.assertEqual(result.unseen, [])
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.races, [])

class Replays(unittest.TestCase):
    def test_each_bug_replays_from_its_schedule(self) -> None:
        # Before: the replay watched only what calls from watched code transitive,
        # so a race in code C calls (a property, __enter__, a key of sorted;
        # a method on 3.11 and 3.12) never parked: "the threads ended before
        # step 1", and the regression test passed on the bug.
        for bug, (make, says) in BUGS.items():
            with self.subTest(bug), quiet_thread_errors():
                setup = version(make, False)
                failure = blanket.explore(setup).failure
                assert failure is not None
                replayed = reproduce.replay(setup, failure.schedule)
                self.assertIsNone(replayed.diverged, replayed)
                assert replayed.failure is not None, replayed
                self.assertIn(says, replayed.failure[1])


class Exclusions(unittest.TestCase):
    def test_excluded_code_is_not_watched_and_the_verdict_says_so(self) -> None:
        for exclude in ("tests.transitive", ["tests"], [helpers.bump], [helpers]):
            with self.subTest(exclude=exclude):
                result = blanket.explore(version(helper_counter, False), exclude=exclude)
                self.assertIsNone(result.failure, result)  # the bug is not seen
                self.assertFalse(result.exhausted, result)
                self.assertEqual(len(result.unseen), 1, result)
                self.assertRegex(result.unseen[0], r"^excluded from watching: tests.* \(first "
                                 r"bump at tests/transitive/helpers\.py:\d+\)$")
                self.assertNotIn("the whole space", str(result))

    def test_an_exclusion_of_another_kind_is_refused(self) -> None:
        for entry in (5, len):
            with self.subTest(entry), self.assertRaisesRegex(
                    TypeError, f"exclude={entry!r}: expected module names"):
                blanket.explore(version(helper_counter, True), exclude=[entry])

    def test_each_gap_is_named_once_whatever_its_lines(self) -> None:
        # An excluded function called on many lines, many times: one note.
        def setup(scenario: Scenario) -> None:
            tally, lock = helpers.Tally(), scenario.Lock()

            def work() -> None:
                for _ in range(3):
                    helpers.bump(tally, lock)
                helpers.bump(tally, lock)

            scenario.thread(work)

        result = blanket.explore(setup, exclude=[helpers.bump])
        self.assertEqual(len(result.unseen), 1, result)

    def test_a_function_compiled_in_every_run_and_called_by_c_is_a_gap(self) -> None:
        # Each run's new code was watched from the next run on, which
        # restarted the search: it never ended.
        def work() -> None:
            scope: dict[str, Any] = {}
            exec(compile("\n\ndef key(item):\n    return item\n", "<made>", "exec"), scope)  # noqa: S102
            sorted([2, 1], key=scope["key"])

        def setup(scenario: Scenario) -> None:
            scenario.thread(work)
            scenario.thread(work)

        result = blanket.explore(setup, max_schedules=50)
        self.assertLess(result.runs, 10, result)
        self.assertFalse(result.exhausted, result)
        self.assertEqual(result.unseen, [
            "code outside any function ran unwatched: <module> at <made>:1",
            "function key at <made>:3 ran unwatched: made anew in every run and called by "
            "code not watched (scenario.instrument it in the setup)"])

    def test_a_function_made_in_every_run_and_called_by_c_is_a_gap(self) -> None:
        def setup(scenario: Scenario) -> None:
            tally = helpers.Tally()

            def key(item: int) -> int:  # made anew in every run
                tally.count += 1
                return item

            def work() -> None:
                sorted([2, 1], key=key)

            scenario.thread(work)
            scenario.thread(work)

        result = blanket.explore(setup)
        self.assertFalse(result.exhausted, result)
        self.assertEqual(len(result.unseen), 1, result)
        self.assertRegex(result.unseen[0], r"^function .*key at tests/test_explore_transitive"
                         r"\.py:\d+ ran unwatched: made anew in every run")


def racing(call: Callable[[helpers.Tally], object]) -> Callable[[Scenario], Invariant]:
    """Two threads each making *call* once with one shared tally."""
    def setup(scenario: Scenario) -> Invariant:
        tally = helpers.Tally()
        scenario.thread(call, tally)
        scenario.thread(call, tally)

        def both_counted() -> None:
            assert tally.count == 2, f"count is {tally.count}"
        return both_counted
    return setup


class Callees(unittest.TestCase):
    def test_every_kind_of_python_callee_is_watched_before_it_runs(self) -> None:
        adder = helpers.Adder(helpers.Tally())
        calls: dict[str, Callable[[helpers.Tally], object]] = {
            "partial": functools.partial(helpers.add),
            "class": helpers.Adder, "class with a metaclass": library.Registered,
            "__new__": helpers.Made, "instance": helpers.CallableAdder(),
            "bound method": adder.again}
        for kind, call in calls.items():
            def work(tally: helpers.Tally, call: Any = call) -> None:
                call(tally)  # (through a variable: a callee of its own type on every Python)

            with self.subTest(kind), quiet_thread_errors():
                result = blanket.explore(racing(work))
                assert result.failure is not None, result
                self.assertIn("count is 1", result.failure.message)
                self.assertIn("tests/transitive/", str(result.races[0]))

    def test_callees_with_no_python_code_are_called_as_they_are(self) -> None:
        def work(tally: helpers.Tally) -> None:
            operator.itemgetter(0)([1])  # an instance whose __call__ is C code
            print.__call__  # noqa: B018 - (a method-wrapper is looked up, not called)
            len.__call__([])

        def setup(scenario: Scenario) -> None:
            scenario.thread(work, helpers.Tally())
            scenario.thread(work, helpers.Tally())

        result = blanket.explore(setup)
        self.assertTrue(result.ok and result.exhausted, result)

    def test_the_handlers_leave_what_they_cannot_watch(self) -> None:
        method = types.MethodType(len, [1])
        self.assertIs(sites._method(method), method)
        getter = operator.itemgetter(0)  # (its __call__ is not Python's)
        self.assertIs(sites._instance(getter), getter)
        self.assertIsNone(sites._lookup(int, "__call__"))
        # A thread that records nothing (this one) watches nothing more.
        self.assertIs(sites.watched_first(helpers.add), helpers.add)

    def test_outside_an_exploration_only_what_is_named_is_watched(self) -> None:
        original = helpers.bump.__code__
        seen: list[bool] = []
        scenario = Scenario()
        tally = helpers.Tally()

        def work() -> None:
            helpers.bump(tally, contextlib.nullcontext())
            seen.append(helpers.bump.__code__ is original)

        scenario.instrument(work)
        scenario.thread(work)
        with scenario:
            pass
        self.assertEqual(seen, [True])
        watch = Scenario()._watch
        watch.transitive = Transitive()
        watch.reached(helpers.bump)  # not entered: nothing to swap
        self.assertEqual(watch.functions, {})

    def test_a_callback_kept_where_no_frame_holds_it_is_watched_or_named(self) -> None:
        # Found by the garbage collector's referrers (3.11, 3.12), or named
        # as code that could not be watched (3.13t): never "the whole space".
        def work(tally: helpers.Tally) -> None:
            sorted([1], key=helpers.SHARED["key"])

        with quiet_thread_errors():
            result = blanket.explore(racing(work))
        self.assertFalse(result.exhausted and result.ok, result)
        self.assertTrue(result.races or result.unseen, result)

    def test_a_function_made_by_watched_code_and_called_by_c_is_watched(self) -> None:
        # Before: its code, rewritten with the code that makes it, was met as
        # code running unwatched: "made anew in every run", not exhaustive.
        def work(tally: helpers.Tally) -> None:
            def key(item: int) -> int:
                tally.count += 1
                return item
            sorted([1], key=key)

        with quiet_thread_errors():
            result = blanket.explore(racing(work))
        assert result.failure is not None, result
        self.assertIn("count is 1", result.failure.message)
        self.assertEqual(result.unseen, [])

    def test_a_function_not_found_is_named(self) -> None:
        module = compile("def lost():\n    pass\n", "lost.py", "exec")
        code = next(c for c in module.co_consts if isinstance(c, types.CodeType))
        transitive = Transitive()  # (no function of that code was ever made)
        met(transitive, frame(code, {"__name__": "lost"}))
        self.assertEqual(list(transitive.notes.values()), [
            "function lost at lost.py:1 ran unwatched: not found to be watched "
            "(scenario.instrument it in the setup)"])

    def test_code_in_no_function_is_named(self) -> None:
        def work(tally: helpers.Tally) -> None:
            exec(compile("y = 1", "<generated>", "exec"), {})  # noqa: S102

        result = blanket.explore(racing(work))
        self.assertFalse(result.exhausted, result)
        self.assertEqual(result.unseen, [
            "code outside any function ran unwatched: <module> at <generated>:1"])


def met(transitive: Transitive, frame: Any) -> None:
    """``transitive.met(frame)`` with a stand-in frame (not type-checked)."""
    with unchecked():
        transitive.met(frame)


def frame(code: types.CodeType, scope: dict[str, Any], back: Any = None) -> Any:
    """A stand-in for a frame running *code*."""
    return types.SimpleNamespace(f_code=code, f_globals=scope, f_back=back)


class Blankets(unittest.TestCase):
    def test_blanket_threading_and_the_import_system_are_never_watched(self) -> None:
        import _frozen_importlib  # the import system: importlib._bootstrap

        from blanket.exploration.result import Step

        transitive = Transitive()
        for function in (blanket.explore, threading.Event.set, _frozen_importlib._find_and_load,
                         Step.__init__):  # (made by exec, in blanket's namespace)
            with self.subTest(function.__qualname__):
                self.assertFalse(transitive.watches(function))
                self.assertIn(id(function.__code__), sites.SETTLED)
        self.assertEqual(transitive.notes, {})

    def test_the_standard_library_as_blanket_runs_it_is_not_watched_and_named(self) -> None:
        transitive = Transitive()
        randrange = random.Random.randrange
        blankets = frame(blanket.explore.__code__, vars(blanket))
        randint = frame(random.Random.randint.__code__, vars(random), blankets)
        for _ in range(2):  # met again as blanket runs it: nothing to say
            met(transitive, frame(randrange.__code__, vars(random), randint))
        self.assertEqual((transitive.found, transitive.notes), ({}, {}))
        note = (f"not watched: Random.randrange at random.py:"
                f"{randrange.__code__.co_firstlineno}, which blanket runs itself in the threads")
        self.assertFalse(transitive.watches(randrange))  # called by watched code
        self.assertEqual(list(transitive.notes.values()), [note])
        transitive.notes.clear()  # called by C code for the threads' own code
        met(transitive, frame(randrange.__code__, vars(random), frame(
            helpers.add.__code__, vars(helpers))))
        self.assertEqual(list(transitive.notes.values()), [note])

    def test_the_standard_library_as_watched_code_runs_it_is_watched(self) -> None:
        watched = rewrite.rewrite(helpers.add.__code__, vars(helpers))[0]
        sites.SETTLED[id(watched)] = watched  # (as a watch installs it)
        blankets = frame(blanket.explore.__code__, vars(blanket))
        for back in (None, frame(helpers.counted_key.__code__, vars(helpers)),
                     frame(watched, vars(helpers), blankets)):
            with self.subTest(back=back):
                transitive = Transitive()
                met(transitive, frame(textwrap.dedent.__code__, vars(textwrap), back))
                self.assertEqual(list(transitive.found), [textwrap.dedent])

    def test_weak_references_blanket_keeps_in_the_threads_are_no_gap(self) -> None:
        # blanket adds each primitive a thread makes to a WeakSet, in the
        # thread; logging's handlers add themselves to one too. Before: "not
        # watched: WeakSet.add ..., which blanket runs itself in the threads"
        # (weak references' code is never watched, whoever runs it).
        def setup(scenario: Scenario) -> None:
            registry: weakref.WeakSet[Any] = weakref.WeakSet()

            def make() -> None:
                registry.add(threading.Lock())

            scenario.thread(make)
            scenario.thread(make)

        result = blanket.explore(setup)
        self.assertEqual(result.unseen, [])
        self.assertTrue(result.exhausted, result)

    def test_code_never_watched_is_settled_when_met_whoever_runs_it(self) -> None:
        # (The profile's side of the test above, called by hand.)
        add = weakref.WeakSet.add.__code__
        blankets = frame(blanket.explore.__code__, vars(blanket))
        transitive = Transitive()
        met(transitive, frame(add, vars(sys.modules["_weakrefset"]), blankets))
        self.assertIn(id(add), sites.SETTLED)
        self.assertEqual((transitive.found, transitive.notes, transitive._theirs), ({}, {}, {}))

    def test_an_installed_checker_blanket_runs_is_judged_once(self) -> None:
        # typeguard's checks run at each of blanket's own calls: judged the
        # first time, never walked up the stack again (the typeguard-checked
        # suite ran many times slower).
        namespace: dict[str, Any] = {"__name__": "checker.checks"}
        exec(compile("def check(value):\n    return value\n",  # noqa: S102
                     os.path.join("venv", "lib", "site-packages", "checker", "checks.py"),
                     "exec"), namespace)
        code = namespace["check"].__code__
        transitive = Transitive()
        met(transitive, frame(code, namespace, frame(blanket.explore.__code__, vars(blanket))))
        self.assertIn(id(code), transitive.judged)
        self.assertEqual((transitive.found, transitive.notes), ({}, {}))


class Met(unittest.TestCase):
    """``Transitive.met`` and the profile's call to it, called by hand (coverage
    cannot see a profile function run)."""

    def test_the_profile_hands_code_not_watched_to_the_reach(self) -> None:
        unseen = Unseen()
        add = frame(helpers.add.__code__, vars(helpers))
        with unchecked():
            unseen._uses(add, "call", None)  # nothing watched: nothing met
            unseen.transitive = Transitive()
            unseen._uses(add, "call", None)
        self.assertEqual(list(unseen.transitive.found), [helpers.add])
        with unchecked():  # judged: not met again
            unseen.transitive.judged[id(helpers.add.__code__)] = helpers.add.__code__
            unseen._uses(add, "call", None)
        self.assertEqual(list(unseen.transitive.found), [helpers.add])

    def test_each_gap_is_noted_once_by_its_function(self) -> None:
        unseen = Unseen()
        for line in (3, 4, 3):  # one function, two lines, met again
            nap = types.SimpleNamespace(f_code=helpers.add.__code__, f_lineno=line)
            with unchecked():
                unseen._uses(nap, "c_call", time.sleep)
        self.assertEqual(unseen.notes, ["blocking call time.sleep at helpers.py:3"])

    def test_a_function_met_is_watched_in_the_run_going_on(self) -> None:
        reached: list[object] = []
        transitive = Transitive()
        transitive.entered = types.SimpleNamespace(reached=reached.append)  # type: ignore[assignment]
        met(transitive, frame(helpers.add.__code__, vars(helpers)))
        self.assertEqual(reached, [helpers.add])
        self.assertTrue(transitive.grown)

    def test_excluded_code_met_is_named(self) -> None:
        transitive = Transitive(["elsewhere", "tests.transitive"])
        met(transitive, frame(helpers.add.__code__, vars(helpers)))
        self.assertEqual((transitive.found, len(transitive.notes)), ({}, 1))

    def test_code_met_again_is_made_anew(self) -> None:
        transitive = Transitive()
        first = library.Cache.get.__code__
        met(transitive, frame(first, vars(library)))
        again = first.replace()  # the same source, another code object
        met(transitive, frame(again, vars(library)))
        self.assertEqual(list(transitive.found), [library.Cache.get])
        self.assertEqual(len(transitive.notes), 1)
        self.assertIn("made anew in every run", next(iter(transitive.notes.values())))

    def test_a_callback_is_found_among_the_callers_variables_or_every_object(self) -> None:
        key = helpers.key_for(helpers.Tally())  # (a closure: no name in its module)
        transitive = Transitive()
        met(transitive, frame(key.__code__, vars(helpers), types.SimpleNamespace(
            f_locals={"key": key})))
        self.assertEqual(list(transitive.found), [key])
        other = helpers.key_for(helpers.Tally())
        transitive = Transitive()
        met(transitive, frame(other.__code__, vars(helpers), types.SimpleNamespace(f_locals={})))
        self.assertIn(other, transitive.found)  # (3.11: by the garbage collector's referrers)


    def test_a_generator_resumed_in_the_run_that_met_it_is_not_met_again(self) -> None:
        # Its start was judged (watched from the next run); its resumes in
        # that run are no new call ("made anew in every run" before).
        code = helpers.countdown.__code__
        start, resumed = [i.offset for i in dis.get_instructions(code)
                          if i.opname == "RESUME"][:2]

        def at(offset: int) -> Any:
            return types.SimpleNamespace(f_code=code, f_globals=vars(helpers), f_back=None,
                                         f_lasti=offset)

        transitive = Transitive()
        transitive.entered = types.SimpleNamespace(reached=[].append)  # type: ignore[assignment]
        met(transitive, at(start))
        met(transitive, at(resumed))
        self.assertEqual((list(transitive.found), transitive.notes), ([helpers.countdown], {}))
        met(transitive, at(start))  # started again in the run: another function
        self.assertEqual(len(transitive.notes), 1)
        transitive = Transitive()
        transitive.entered = types.SimpleNamespace(reached=[].append)  # type: ignore[assignment]
        met(transitive, at(start))
        transitive.entered = types.SimpleNamespace(reached=[].append)  # type: ignore[assignment]
        transitive.entries += 1  # (as the next run's watch does as it is entered)
        met(transitive, at(resumed))  # the next run: one started before it (a gap)
        self.assertIn("ran unwatched", next(iter(transitive.notes.values())))

    def test_a_descriptor_s_function_is_found_by_its_class_s_namespace(self) -> None:
        # A cached property of a library's own (its function kept as
        # self.func) called from C: on 3.13t, whose garbage collector lists
        # no functions, it was "not found to be watched" (a gap that is none).
        class Cached:
            def __init__(self, func: Callable[[Any], Any]) -> None:
                self.func = func

            def __get__(self, instance: object, owner: type | None = None) -> Any:
                return self.func(instance)

        class Slotted:  # no instance dict: the descriptor alone is found
            __slots__ = ("func",)

            def __get__(self, instance: object, owner: type | None = None) -> Any:
                return None

        def value(self: object) -> int:
            return 1

        code = value.__code__.replace(co_qualname="Settings.value")
        function = types.FunctionType(code, vars(library))
        settings = type("Settings", (), {"value": Cached(function), "other": Slotted()})
        transitive = Transitive()
        with unittest.mock.patch("gc.get_referrers", return_value=[]):  # as on 3.13t
            met(transitive, frame(code, dict(vars(library), Settings=settings),
                                  types.SimpleNamespace(f_locals={})))
        self.assertEqual(list(transitive.found), [function])

    def test_a_private_method_is_found_by_its_mangled_name(self) -> None:
        # cachetools' LRUCache.__touch, called from C (3.13t, no referrers):
        # its class keeps it as _LRUCache__touch ("not found to be watched").
        class Cache:
            def __touch(self) -> None:
                pass

        class __:  # a name of underscores only: nothing mangled
            def __touch(self) -> None:
                pass

        for kind in (Cache, __):
            with self.subTest(kind.__name__):
                function = vars(kind)["_Cache__touch" if kind is Cache else "__touch"]
                code = function.__code__.replace(co_qualname=f"{kind.__name__}.__touch")
                function.__code__ = code
                transitive = Transitive()
                with unittest.mock.patch("gc.get_referrers", return_value=[]):
                    met(transitive, frame(code, dict(vars(library), **{kind.__name__: kind}),
                                          types.SimpleNamespace(f_locals={})))
                self.assertEqual(list(transitive.found), [function])

class LazyModules(unittest.TestCase):
    def test_instrument_reads_a_module_without_its_lazy_attributes(self) -> None:
        # Before: ModuleNotFoundError from inside blanket (the module's
        # __getattr__, then a lazy attribute of a class in it).
        scenario = Scenario()
        scenario.instrument(lazy)
        self.assertIn(lazy.helper, scenario._watch.functions)
        self.assertIn(lazy.Moves.first, scenario._watch.functions)


if __name__ == "__main__":
    unittest.main()

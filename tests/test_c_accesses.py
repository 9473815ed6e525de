"""Calls into C code and writes through builtins are accesses: each bug of
tests/c_access_bugs.py (a C container's methods, heapq and bisect on a shared
list, next() on a shared iterator, a bound C method kept, setattr/getattr/
delattr, __class__, an instance's __dict__, exec and globals()) is found in
under a second and 50 runs by every strategy, and its locked fix is
exhausted with no race. (Before calls into C were accesses none was found:
each search said "the whole space; no failure".)"""

from __future__ import annotations

import _collections
import collections
import datetime
import re
import threading
import types
import unittest

import blanket
from blanket.exploration import ccalls, sites

from . import c_access_bugs, test_races
from .support import quiet_thread_errors
from .test_watch import Recording, rewritten


class Found(test_races.SixBugs):
    """Those of the six bugs' checks, run on tests/c_access_bugs.py's."""

    bugs = c_access_bugs.BUGS

    def races(self, bug: str) -> str:
        return "fail" if bug in c_access_bugs.RACE_ONLY else "report"

    def test_each_fix_is_explored_exhaustively_with_no_race(self) -> None:
        for bug, (_, fixed, _) in self.bugs.items():
            with self.subTest(bug):
                result = blanket.explore(fixed, races=self.races(bug))
                self.assertIsNone(result.failure, result)
                self.assertEqual(result.races, [])
                if bug == "exec":
                    # The code exec runs is in no function: never watched, and
                    # said so (its write of the namespace is seen at the call).
                    self.assertFalse(result.exhausted)
                    self.assertEqual(len(result.unseen), 1)
                    self.assertIn("<module> at <string>:1", result.unseen[0])
                else:
                    self.assertTrue(result.exhausted, result)

    def test_the_races_name_both_sides(self) -> None:
        with quiet_thread_errors():
            result = blanket.explore(c_access_bugs.BUGS["heappop"][0])
        line = c_access_bugs.Timers.fire.__code__.co_firstlineno + 3  # heappop's
        self.assertIn(f"list: A writes at tests/c_access_bugs.py:{line}, "
                      f"B writes at tests/c_access_bugs.py:{line}",
                      [str(race) for race in result.races])


    def test_calls_on_a_shared_datetime_and_pattern_are_no_race(self) -> None:
        # Before: each call on a datetime (a C type blanket did not know) was
        # a write of it, so two threads computing from one date raced
        # (dateutil's tzical: every run's search space grew by the steps).
        when = datetime.datetime(2003, 7, 1, 12, 0)
        pattern = re.compile("[0-9]+")

        def setup(scenario: blanket.Scenario) -> None:
            got: list[object] = []

            def compute() -> None:
                local = when.replace(tzinfo=None) + datetime.timedelta(hours=1)
                found = pattern.match("2003")
                got.append((local.hour, found and found.group()))

            scenario.thread(compute)
            scenario.thread(compute)

        result = blanket.explore(setup)
        self.assertTrue(result.exhausted, result)
        self.assertEqual([str(race) for race in result.races if "list" not in str(race)], [])

    def test_calls_of_a_shared_descriptor_s_get_are_no_race(self) -> None:
        # inspect.getattr_static calls type.__dict__["__mro__"].__get__ (a
        # getset descriptor) at every isinstance() of a runtime-checkable
        # protocol from 3.12 on: each call was a write of an unknown C type,
        # and rich 9.12.0's deadlock was no longer found on 3.13 (nine races
        # of inspect.py made steps of every run).
        mro = vars(type)["__mro__"]
        slot = vars(Slotted)["value"]
        shared = Slotted()

        def setup(scenario: blanket.Scenario) -> None:
            got: list[object] = []

            def look() -> None:
                got.append((mro.__get__(Slotted), slot.__get__(shared)))

            scenario.thread(look)
            scenario.thread(look)

        result = blanket.explore(setup)
        self.assertTrue(result.exhausted, result)
        self.assertEqual([str(race) for race in result.races if "list" not in str(race)], [])

class Text(str):
    """A subclass of an immutable type: its C methods are never accesses."""


class Plain:
    pass


class Slotted:
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 1


class Stack(list[int]):
    def append(self, item: int) -> None:  # a Python override of a C method
        super().append(item)


def stored_calls(plain: Plain, table: dict[str, int]) -> object:
    describe, get = plain.__repr__, table.get  # C methods bound, called later
    try:
        getattr(plain, 5)  # type: ignore[call-overload]
    except TypeError:
        pass
    number = 3
    return describe(), get("a"), type("Made", (), {}), type(number)


class Table(unittest.TestCase):
    def test_a_method_is_a_read_a_write_or_no_access(self) -> None:
        kind = ccalls.method_kind
        self.assertIs(kind(list, "append"), True)
        self.assertIs(kind(collections.OrderedDict, "get"), False)  # dict's, inherited
        self.assertIs(kind(collections.OrderedDict, "move_to_end"), True)
        self.assertIs(kind(collections.defaultdict, "__getitem__"), True)  # makes missing items
        self.assertIs(kind(dict, "__getitem__"), False)
        self.assertIsNone(kind(Text, "upper"))  # str's: immutable
        self.assertIsNone(kind(datetime.datetime, "replace"))  # makes another
        self.assertIsNone(kind(type(re.compile("a")), "match"))
        self.assertIsNone(kind(Plain, "__repr__"))  # object's: reads no state
        self.assertIs(kind(Plain, "__setattr__"), True)
        self.assertIsNone(kind(Plain, "missing"))
        self.assertIsNone(kind(type, "mro"))
        self.assertIs(kind(type(iter([])), "__next__"), True)  # an unknown C type: a write
        self.assertIsNone(kind(Stack, "append"))  # Python code, watched or not
        self.assertIs(kind(Stack, "append", True), True)  # the C method it overrides

    def test_super_calls_the_c_method(self) -> None:
        stack = Stack()
        with Recording() as recording:
            rewritten(Stack.append)(stack, 1)
        self.assertEqual(stack, [1])
        self.assertIn(("Stack", None, True), recording.seen())

    def test_calls_of_stored_c_methods_and_builtins_that_access_nothing(self) -> None:
        plain, table = Plain(), {"a": 1}
        with Recording() as recording:
            rewritten(stored_calls)(plain, table)
        calls = [(type(target).__name__, name, write) for site, target, name, write, _
                 in recording.accesses if isinstance(site, ccalls.CallSite)]
        # Only the stored dict.get is an access: object.__repr__ reads nothing,
        # getattr with a name that is no str fails, type() of three
        # arguments makes a class, and an int never changes.
        self.assertEqual(calls, [("dict", None, False)])

    def test_a_primitives_calls_are_no_accesses(self) -> None:
        # A real lock's methods bound before the run (made the twin's by
        # call_target) and a real lock's methods called outside an adopting
        # scenario are steps or nothing, never writes of the lock: two
        # threads taking a lock do not race on it.
        self.assertIsNone(ccalls.method_kind(type(REAL_LOCK), "acquire"))
        self.assertFalse(ccalls.shared(REAL_LOCK))
        result = blanket.explore(_locked_by_bound_methods)
        self.assertEqual(result.races, [])
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.runs, 2)


REAL_LOCK = threading.Lock()
_acquire, _release = REAL_LOCK.acquire, REAL_LOCK.release


def _locked_by_bound_methods(scenario: blanket.Scenario) -> None:
    plain = Plain()
    plain.count = 0  # type: ignore[attr-defined]

    def bump() -> None:
        _acquire()
        plain.count += 1  # type: ignore[attr-defined]
        _release()

    scenario.thread(bump)
    scenario.thread(bump)


if __name__ == "__main__":
    unittest.main()


def looks_at(value: object) -> tuple[bool, bool]:
    """Two truth tests of *value*: ``not``, and ``if``."""
    empty = not value
    if value:
        return empty, True
    return empty, False


def loop_over(items: object) -> int:
    steps = 0
    for _ in items:  # type: ignore[attr-defined]
        steps += 1
    return steps


def count_into(table: dict[str, int], words: list[str]) -> None:
    _collections._count_elements(table, words)  # type: ignore[attr-defined]
    id(table), hash("a")


def set_on(module: types.ModuleType) -> None:
    module.value = 1


class LazyModule(types.ModuleType):
    """A module whose own attribute look-up is code under test (fails here)."""

    def __getattribute__(self, name: str) -> object:
        raise LookupError(name)


class Reaches(unittest.TestCase):
    def test_a_loop_over_a_mutable_container_reads_it_before_each_step(self) -> None:
        items = [1, 2]
        with Recording() as recording:
            self.assertEqual(rewritten(loop_over)(items), 2)
        reads = [access for access in recording.accesses if access[1] is items]
        self.assertEqual(len(reads), 3)  # two items, and the step that finds no more
        self.assertTrue(all(isinstance(site, ccalls.IterSite) and not write
                            for site, _, _, write, _ in reads))

    def test_a_truth_test_of_a_container_is_a_read_of_it(self) -> None:
        # Before, `if not items` was seen by nobody: a buggy class whose two
        # looks at a list disagreed was "the whole space" (c_access_bugs' truth).
        for items in ([], [1], {}, {1: 2}, set(), collections.deque(), bytearray()):
            with self.subTest(type(items).__name__), Recording() as recording:
                self.assertEqual(rewritten(looks_at)(items), (not items, bool(items)))
            self.assertEqual(recording.seen(), [(type(items).__name__, None, False)] * 2)

    def test_a_truth_test_of_anything_else_is_no_access(self) -> None:
        for value in (0, 1, None, "", "text", (), (1,), 1.5, Text("x"), Recording):
            with self.subTest(repr(value)), Recording() as recording:
                self.assertEqual(rewritten(looks_at)(value), (not value, bool(value)))
            self.assertEqual(recording.seen(), [])

    def test_a_loop_over_anything_else_reads_it_once(self) -> None:
        items = (1, 2)
        with Recording() as recording:
            self.assertEqual(rewritten(loop_over)(items), 2)
        self.assertEqual(recording.seen(), [("tuple", None, False)])

    def test_a_c_function_blanket_does_not_know_writes_what_it_is_given(self) -> None:
        table: dict[str, int] = {}
        with Recording() as recording:
            rewritten(count_into)(table, ["a", "a"])
        self.assertEqual(table, {"a": 2})
        calls = [(type(target).__name__, write) for site, target, _, write, _
                 in recording.accesses if isinstance(site, ccalls.CallSite)]
        # Both arguments written by _count_elements; id and hash look at nothing.
        self.assertEqual(calls, [("dict", True), ("list", True)])

    def test_setattr_on_a_module_is_a_write_of_its_attribute(self) -> None:
        module = types.ModuleType("made")
        with Recording() as recording:
            rewritten(set_on)(module)
        self.assertIn(("module", "value", True), recording.seen())

    def test_an_access_is_described_without_asking_the_object(self) -> None:
        lazy = types.ModuleType("payload")
        lazy.__class__ = LazyModule
        site = sites.Site(False, "VALUE", 1, "f", "f.py", 1, {})
        self.assertEqual(sites.describe(lazy, "VALUE", site), "payload.VALUE")
        self.assertEqual(sites.describe(Plain, "x", site), "Plain.x")

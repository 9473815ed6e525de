"""blanket.exploration.watch: the rewritten code reports each access to shared state with
the object it reaches, runs as the original did, and is put back when the
scenario exits; scenario.instrument takes functions, methods, classes and
modules."""

from __future__ import annotations

import collections
import functools
import sys
import threading
import types
import unittest
from typing import Any

import blanket
from blanket.exploration import ccalls, namespaces, rewrite, sites, watch
from blanket.exploration.sites import Site
from blanket.exploration.watch import Memory, Watch

from .support import unchecked

BOUND = 5.0

G = 0
ITEMS: list[int] = []


class Box:
    kind = "box"

    def __init__(self) -> None:
        self.value = 0
        self.items: list[int] = [1, 2]
        self.table: dict[str, int] = {}
        self.queue: collections.deque[int] = collections.deque()

    def bump(self) -> int:
        self.value += 1
        return self.value

    def fill(self) -> int:
        global G
        if "k" not in self.table:
            self.table["k"] = len(self.items)
        self.queue.append(sorted(self.items)[0])
        G = G + max(1, 2)
        ITEMS.append(len(ITEMS))
        del self.table["k"]
        for item in self.items:
            self.value += item
        self.items[0:1] = [5]
        del self.kind
        return sum(x for x in self.items) + len(self.items.copy())

    @property
    def size(self) -> int:
        return len(self.items)

    @staticmethod
    def static() -> int:
        return ITEMS.count(0)

    @classmethod
    def made(cls) -> str:
        return cls.kind


class Recording:
    """Makes the calling (main) thread record into a list, for a while."""

    def __init__(self) -> None:
        self.record: list[Any] = []
        self.parked: list[tuple[Any, ...]] = []
        self.epoch = 3

    @property
    def accesses(self) -> list[sites.Access]:
        return list(sites.accesses(self.record))

    def park(self, *args: Any) -> None:
        self.parked.append(args)

    def reached(self, function: Any) -> None:
        """A call into code not watched: it stays so (only what is named)."""

    def __enter__(self) -> Recording:
        self.before = sites._local.__dict__.copy()
        sites._local.state = (self.record, self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        sites._local.__dict__.clear()
        sites._local.__dict__.update(self.before)

    def seen(self) -> list[tuple[str, str | None, bool]]:
        return [(type(target).__name__, name, write)
                for _, target, name, write, _ in self.accesses]


def rewritten(function: Any) -> types.FunctionType:
    """A copy of *function* running its watched code."""
    code, _ = rewrite.rewrite(function.__code__, function.__globals__)
    return types.FunctionType(code, function.__globals__, function.__name__,
                              function.__defaults__, function.__closure__)


def counts_up(n: int) -> int:
    while True:  # (the loop starts the body: a jump back to its start)
        n += 1
        if n >= 3:
            return n


def yields_twice() -> Any:
    yield 1
    yield 2


class Prologue(unittest.TestCase):
    def test_the_hook_runs_once_per_call_not_at_each_loop(self) -> None:
        # (a jump back to the function's first instruction would run it
        # again: the interpreters here compile none)
        calls: list[None] = []

        def hook() -> None:
            calls.append(None)
        for original in (counts_up, yields_twice):
            with self.subTest(original.__name__):
                calls.clear()
                code = rewrite.prologue(original.__code__, hook)
                self.assertIs(rewrite.prologue(original.__code__, hook), code)  # (made once)
                function = types.FunctionType(code, globals())
                got = function(0) if original is counts_up else list(function())
                self.assertEqual(got, 3 if original is counts_up else [1, 2])
                self.assertEqual(len(calls), 1)


class Rewrite(unittest.TestCase):
    def test_each_access_reports_the_object_it_reaches(self) -> None:
        box = Box()
        with Recording() as recording:
            self.assertEqual(rewritten(Box.bump)(box), 1)
        self.assertEqual(box.value, 1)
        self.assertEqual(recording.seen(), [("Box", "value", False), ("Box", "value", True),
                                            ("Box", "value", False)])
        self.assertTrue(all(access[1] is box and access[4] == 3
                            for access in recording.accesses))

    def test_containers_globals_methods_and_builtins(self) -> None:
        global G
        box, G = Box(), 0
        del ITEMS[:]
        expected_box = Box()
        expected_box.__dict__["kind"] = "own"
        expected = Box.fill(expected_box)
        box.__dict__["kind"] = "own"  # what `del self.kind` deletes
        G = 0
        del ITEMS[:]
        with Recording() as recording:
            self.assertEqual(rewritten(Box.fill)(box), expected)
        self.assertEqual((box.value, box.items, list(box.queue), G), (
            expected_box.value, expected_box.items, list(expected_box.queue), 2))
        seen = recording.seen()
        for access in [("dict", "k", False),  # "k" not in self.table (the item's)
                       ("dict", "k", True),  # self.table["k"] = ... (a str key)
                       ("list", None, False),  # len(self.items), sorted(...)
                       ("deque", None, True),  # self.queue.append
                       ("dict", "G", True),  # global G = ...
                       ("dict", "max", False),  # a builtin read through the globals
                       ("list", None, True),  # ITEMS.append, a slice store
                       ("Box", "kind", True)]:  # del self.kind
            self.assertIn(access, seen)

    def test_nested_code_and_every_kind_of_function_of_a_class(self) -> None:
        box = Box()
        functions = list(namespaces.functions_in(Box))
        self.assertIn(Box.bump, functions)
        self.assertIn(Box.__dict__["size"].fget, functions)
        self.assertIn(Box.__dict__["static"].__func__, functions)
        self.assertIn(Box.__dict__["made"].__func__, functions)
        code, sites = rewrite.rewrite(Box.fill.__code__, Box.fill.__globals__)
        self.assertEqual(rewrite.rewrite(Box.fill.__code__, Box.fill.__globals__), (code, sites))
        _, nested = rewrite.rewrite(outer.__code__, outer.__globals__)
        self.assertEqual([site.function for site in nested], ["outer.<locals>.<lambda>"])
        first = next(site for site in sites if site.function == "Box.fill")
        self.assertTrue(repr(first).startswith("<Site read table at "))
        self.assertEqual(first.where, f"{__file__}:{first.line}")
        self.assertIn("<Site write item at ", repr([s for s in sites if s.write][0]))
        del box

    def test_a_call_of_a_builtin_reads_its_argument_only_when_it_is_mutable(self) -> None:
        items, table = [1, 2], {"a": 1}

        def calls(other: list[int]) -> object:
            return (len(items), len(str(items)), max(items, other), len(items.copy()),
                    len(ITEMS), len(Box.static.__name__), list(table), len("text"),
                    len({"a": 1}))

        with Recording() as recording:
            self.assertEqual(rewritten(calls)(items)[0], 2)
        reads = [type(access[1]).__name__ for access in recording.accesses
                 if isinstance(access[0], ccalls.CallSite)]
        self.assertEqual(reads, ["list"] * 5 + ["dict"] * 2)

    def test_a_closure_variable_is_its_cell(self) -> None:
        count = 0

        def increment() -> int:
            nonlocal count
            count += 1
            return count

        with Recording() as recording:
            self.assertEqual(rewritten(increment)(), 1)
        self.assertEqual(count, 1)
        self.assertEqual(recording.seen(), [("cell", "count", False), ("cell", "count", True),
                                            ("cell", "count", False)])
        site = recording.accesses[0][0]
        self.assertEqual(sites.describe(recording.accesses[0][1], "count", site), "count")

    def test_a_container_method_name_on_something_else_is_an_attribute(self) -> None:
        class Other:
            def append(self) -> int:
                return 1

        def use(other: Other, table: dict[str, int], items: list[int]) -> object:
            return other.append(), table.get("a"), items.index(1), getattr(table, "add", 0)

        with Recording() as recording:
            rewritten(use)(Other(), {"a": 1}, [1])
        self.assertEqual([a for a in recording.seen() if a[0] != "dict" or a[1] is None], [
            ("Other", "append", False), ("dict", None, False), ("list", None, False)])

    def test_accesses_outside_a_watching_scenario_record_nothing(self) -> None:
        box = Box()
        code, _ = rewrite.rewrite(Box.bump.__code__, Box.bump.__globals__)
        saved = sites._local.__dict__.copy()
        sites._local.__dict__.clear()
        try:
            function = types.FunctionType(code, Box.bump.__globals__)
            self.assertEqual(function(box), 1)  # the main thread: no scenario
            self.assertIsNone(sites._local.state)
        finally:
            sites._local.__dict__.clear()
            sites._local.__dict__.update(saved)

    def test_a_racy_site_parks(self) -> None:
        box = Box()
        _, bump_sites = rewrite.rewrite(Box.bump.__code__, Box.bump.__globals__)
        for site in bump_sites:
            site.racy = True
        try:
            with Recording() as recording:
                rewritten(Box.bump)(box)
        finally:
            for site in bump_sites:
                site.racy = False
        parked = recording.parked
        self.assertEqual(len(parked), 3)
        self.assertEqual([p[2:] for p in parked], [("value", False), ("value", True),
                                                    ("value", False)])
        # A container method at a racy site parks as a container access.
        site = ccalls.MethodSite("append", "f", "file", 1, {})
        site.racy = True
        with Recording() as recording:
            site.hit([])
        self.assertEqual(recording.parked[-1][2:], (None, True))


class Describe(unittest.TestCase):
    def test_what_an_access_reaches_is_named_by_meaning(self) -> None:
        attribute = Site(False, "value", 1, "f", "file", 1, {})
        global_site = Site(False, "G", 0, "f", "file", 1, {"__name__": "module"})
        self.assertEqual(sites.describe(Box(), "value", attribute), "Box.value")
        self.assertEqual(sites.describe(Box, "kind", attribute), "Box.kind")
        self.assertEqual(sites.describe(sys, "path", attribute), "sys.path")
        self.assertEqual(sites.describe({}, "G", global_site), "module.G")
        self.assertEqual(sites.describe({}, None, attribute), "dict")
        self.assertEqual(repr(Memory("Box.value", "box.py:3")),
                         "<blanket.Memory 'Box.value' at box.py:3>")
        self.assertIsNone(watch._nothing())


def outer() -> Any:
    return lambda box: box.value


def counted(box: Box) -> None:
    box.value += 1


class Instrument(unittest.TestCase):
    def test_the_code_is_swapped_while_entered_and_put_back_on_exit(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        original = Box.bump.__code__
        scenario.instrument(Box.bump)
        self.assertIs(Box.bump.__code__, original)
        box = Box()
        thread = scenario.thread(box.bump)
        with scenario:
            self.assertIsNot(Box.bump.__code__, original)
        self.assertIs(Box.bump.__code__, original)
        records = scenario._watch.records
        self.assertEqual([(t, [(a[2], a[3]) for a in sites.accesses(record)])
                          for t, record in records],
                         [(thread, [("value", False), ("value", True), ("value", False)])])

    def test_a_target_named_while_entered_is_watched_at_once(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        original = counted.__code__
        with scenario:
            scenario.instrument(counted, counted)
            self.assertIsNot(counted.__code__, original)
        self.assertIs(counted.__code__, original)

    def test_modules_and_bound_methods(self) -> None:
        module = types.ModuleType("watched")
        exec("class K:\n    def f(self):\n        return self\n"  # noqa: S102
             "def g():\n    return 1\nfrom threading import Lock\n", module.__dict__)
        self.assertEqual(sorted(f.__name__ for f in namespaces.functions_in(module)), ["f", "g"])
        self.assertEqual(list(namespaces.functions_in(Box().bump)), [Box.bump])
        partial = functools.partial(functools.partial(counted), Box())
        self.assertEqual(list(namespaces.functions_in(partial)), [counted])

    def test_a_target_without_python_code_is_refused(self) -> None:
        scenario = blanket.Scenario()
        with unchecked(), self.assertRaisesRegex(TypeError, "len.* has no Python function"):
            scenario.instrument(len)
        scenario._watch.follow(len)  # a thread's target: nothing to watch, no error
        # A primitive's method, threading's own: neither is watched.
        event = scenario.Event()
        scenario._watch.follow(event.wait)
        scenario._watch.follow(type(event).wait)
        scenario._watch.follow(threading.Event().wait)
        self.assertEqual(scenario._watch.functions, {})

    def test_a_thread_of_no_watching_scenario_records_nothing(self) -> None:
        # (Watched code run by such a thread, the scheduler, say: covered
        # before only when the timing of some test had such a thread add
        # a key.) Its record is None, looked up once, and nothing is kept.
        site = Site(True, None, 2, "f", "f.py", 1, {})
        seen: list[object] = []

        def accesses() -> None:
            target: dict[str, int] = {}
            sites.record(site, target, "k", True)
            sites.record_keys(site, target)
            sites.record_keys(site, Box(), "value")
            seen.append(sites._local.state)

        thread = threading.Thread(target=accesses)
        thread.start()
        thread.join(10)
        self.assertEqual(seen, [None])

    def test_each_thread_records_into_its_own_list(self) -> None:
        core = blanket.Scenario()._core
        watching = Watch(core)
        record, owner = watching.join(threading.current_thread())
        self.assertIs(owner, watching)
        self.assertEqual(watching.records, [(threading.current_thread(), record)])


if __name__ == "__main__":
    unittest.main()

"""Telling critical sections apart loses no outcome: on generated programs
(threads taking two locks around reads and writes of objects of three
classes, and reading and writing outside them too) the outcomes of
``explore`` are those of every interleaving of the accesses, enumerated by
brute force; and where sections touch nothing the other writes, the search
runs fewer orders than there are orders of the sections
(:mod:`blanket.exploration.sections`)."""

from __future__ import annotations

import random
import sys
import threading
import time
import types
import unittest
import weakref
from collections.abc import Callable
from typing import Any

import blanket
from blanket import Scenario
from blanket.exploration.run import ACQUIRE, RELEASE
from blanket.exploration.sections import Sections
from blanket.exploration.sites import Site

# One operation: ("read", v), ("write", v, k) (the last value read plus k),
# ("acquire", l), ("release", l); v one of VARIABLES, l one of LOCKS.
Op = tuple[Any, ...]
Program = list[list[Op]]
Outcome = tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]

VARIABLES = ("x", "y", "z")
LOCKS = ("a", "b")


class X:
    value = 0


class Y:
    value = 0


class Z:
    value = 0


def generate(rng: random.Random) -> Program:
    """2 or 3 threads of 1 to 3 parts, each a section under one of the two
    locks (1 to 3 accesses, a read first more often than not) or, now and
    then, one access outside any."""
    program = []
    for _ in range(rng.choice((2, 2, 3))):
        ops: list[Op] = []
        for _ in range(rng.randint(1, 3)):
            accesses: list[Op] = []
            for _ in range(rng.randint(1, 3)):
                variable = rng.choice(VARIABLES)
                accesses.append(("read", variable) if rng.random() < 0.6
                                else ("write", variable, rng.randint(1, 3)))
            if rng.random() < 0.2:
                ops.append(accesses[0])
            else:
                lock = rng.choice(LOCKS)
                ops += [("acquire", lock), *accesses, ("release", lock)]
        program.append(ops)
    return program


def interleavings(program: list[list[Op]], start: Any,
                  step: Callable[[Op, Any, int], tuple[Any, int, tuple[Any, ...]]]
                  ) -> set[tuple[Any, tuple[tuple[Any, ...], ...]]]:
    """The outcomes (the state, what each thread read) of every interleaving
    of *program*'s operations, each one step, from the state *start*: an
    acquire takes a lock (it waits while the lock is held), a release gives
    it back, and *step* does any other (given the state and the thread's
    last value read: the state, the last value and what it adds to the
    thread's reads after it)."""
    outcomes: set[tuple[Any, tuple[tuple[Any, ...], ...]]] = set()
    seen: set[tuple[object, ...]] = set()

    def search(pcs: tuple[int, ...], last: tuple[int, ...], state: Any,
               held: frozenset[str], reads: tuple[tuple[Any, ...], ...]) -> None:
        if (pcs, last, state, held, reads) in seen:
            return
        seen.add((pcs, last, state, held, reads))
        moved = False
        for thread, ops in enumerate(program):
            if pcs[thread] == len(ops):
                continue
            op = ops[pcs[thread]]
            if op[0] == "acquire" and op[1] in held:
                continue
            moved = True
            new_pcs = pcs[:thread] + (pcs[thread] + 1,) + pcs[thread + 1:]
            if op[0] == "acquire":
                search(new_pcs, last, state, held | {op[1]}, reads)
            elif op[0] == "release":
                search(new_pcs, last, state, held - {op[1]}, reads)
            else:
                new_state, value, read = step(op, state, last[thread])
                search(new_pcs, last[:thread] + (value,) + last[thread + 1:], new_state,
                       held, reads[:thread] + (reads[thread] + read,) + reads[thread + 1:])
        if not moved:
            outcomes.add((state, reads))

    count = len(program)
    search((0,) * count, (0,) * count, start, frozenset(), ((),) * count)
    return outcomes


def brute_force(program: Program) -> set[Outcome]:
    """The outcomes of every interleaving of the operations, each one step."""
    def step(op: Op, values: tuple[int, ...], last: int
             ) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
        at = VARIABLES.index(op[1])
        if op[0] == "read":
            return values, values[at], (values[at],)
        return values[:at] + (last + op[2],) + values[at + 1:], last, ()
    return interleavings(program, (0,) * len(VARIABLES), step)


def thread_source(name: str, ops: list[Op]) -> str:
    """A function *name* doing *ops*, what it read kept in its *seen* (an
    object of a class of its own: what it keeps there meets no other thread's)."""
    lines = [f"def {name}(x, y, z, a, b, seen):", "    last = 0"]
    for op in ops:
        if op[0] == "read":
            lines += [f"    last = {op[1]}.value", "    seen.reads += (last,)"]
        elif op[0] == "write":
            lines.append(f"    {op[1]}.value = last + {op[2]}")
        else:
            lines.append(f"    {op[1]}.{op[0]}()")
    return "\n".join(lines)


def explored(program: Program, reentrant: bool = False
             ) -> tuple[set[Outcome], blanket.Exploration]:
    """The outcomes of every run of ``explore`` over *program* (its locks
    ``RLock`` objects if *reentrant*)."""
    namespace: dict[str, Any] = {}
    for n, ops in enumerate(program):
        exec(compile(thread_source(f"t{n}", ops), f"<thread {n}>", "exec"),  # noqa: S102
             namespace)
    # Each thread keeps what it read in an object of a class of its own: no
    # section of another thread touches its kind.
    seen_kinds = [type(f"Seen{n}", (), {"reads": ()}) for n in range(len(program))]
    outcomes: set[Outcome] = set()

    def setup(scenario: Scenario) -> Callable[[], None]:
        objects = [X(), Y(), Z()]
        make = scenario.RLock if reentrant else scenario.Lock
        locks = [make(), make()]
        seen = [kind() for kind in seen_kinds]
        for n in range(len(program)):
            scenario.thread(namespace[f"t{n}"], *objects, *locks, seen[n])

        def record() -> None:
            outcomes.add((tuple(o.value for o in objects), tuple(s.reads for s in seen)))
        return record

    return outcomes, blanket.explore(setup, max_schedules=5_000)


class AgainstBruteForce(unittest.TestCase):
    def test_the_same_outcomes_on_40_generated_programs(self) -> None:
        rng = random.Random(32)
        fewer = 0
        for number in range(40):
            program = generate(rng)
            with self.subTest(number=number, program=program):
                outcomes, result = explored(program)
                self.assertTrue(result.exhausted, result)
                self.assertEqual(outcomes, brute_force(program))
                eager, _ = explored_eagerly(program)
                self.assertLessEqual(result.count, eager.count)
                fewer += result.count < eager.count
        self.assertGreaterEqual(fewer, 5)  # the reduction did something

    def test_the_same_outcomes_with_rlocks(self) -> None:
        # (An RLock's release is its owner's: read apart from another
        # thread's section, see blanket.exploration.dfs.OWNED.)
        rng = random.Random(33)
        for number in range(25):
            program = generate(rng)
            with self.subTest(number=number, program=program):
                outcomes, result = explored(program, reentrant=True)
                self.assertTrue(result.exhausted, result)
                self.assertEqual(outcomes, brute_force(program))


def explored_eagerly(program: Program) -> tuple[blanket.Exploration, None]:
    """*program* explored with sections never told apart."""
    return explored_eagerly_by(lambda: explored(program)[1]), None


def explored_eagerly_by(explore: Callable[[], blanket.Exploration]) -> blanket.Exploration:
    """What *explore* explores, with sections never told apart."""
    from blanket.exploration import searching
    original = searching.Searching.__init__

    def eager(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        self.lazy = False
    searching.Searching.__init__ = eager  # type: ignore[method-assign]
    try:
        return explore()
    finally:
        searching.Searching.__init__ = original  # type: ignore[method-assign]


if __name__ == "__main__":
    unittest.main()


class Box:
    """An object whose attribute the threads share."""


SHARED_GLOBAL = 0


def outcomes_of(make_threads: Callable[[Scenario], Callable[[], object]]
                ) -> tuple[set[object], blanket.Exploration]:
    """What the invariant *make_threads* returns saw, over every run."""
    seen: set[object] = set()

    def setup(scenario: Scenario) -> Callable[[], None]:
        outcome = make_threads(scenario)
        return lambda: seen.add(outcome())
    return seen, blanket.explore(setup, max_schedules=100)


class Conflicts(unittest.TestCase):
    """Sections that do conflict, in the ways an object can be reached, are
    run in both orders: each case has two outcomes, one per order."""

    def assert_both_orders(self, make_threads: Callable[[Scenario], Callable[[], object]],
                           expected: set[object]) -> None:
        seen, result = outcomes_of(make_threads)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(seen, expected)

    def test_an_attribute_and_the_instance_dict_handed_over(self) -> None:
        def threads(scenario: Scenario) -> Callable[[], object]:
            lock, box, got = scenario.Lock(), Box(), []
            namespace = vars(box)  # the threads never ask box for it

            def write() -> None:
                with lock:
                    namespace["value"] = 1

            def read() -> None:
                with lock:
                    got.append(getattr(box, "value", 0))
            scenario.thread(write)
            scenario.thread(read)
            return lambda: got[0]
        self.assert_both_orders(threads, {0, 1})

    def test_a_global(self) -> None:
        def threads(scenario: Scenario) -> Callable[[], object]:
            lock, got = scenario.Lock(), []
            global SHARED_GLOBAL
            SHARED_GLOBAL = 0

            def write() -> None:
                global SHARED_GLOBAL
                with lock:
                    SHARED_GLOBAL = 1

            def read() -> None:
                with lock:
                    got.append(SHARED_GLOBAL)
            scenario.thread(write)
            scenario.thread(read)
            return lambda: got[0]
        self.assert_both_orders(threads, {0, 1})

    def test_a_weak_value_dictionary_whose_methods_are_not_watched(self) -> None:
        def threads(scenario: Scenario) -> Callable[[], object]:
            lock, box, got = scenario.Lock(), Box(), []
            cache: weakref.WeakValueDictionary[str, Box] = weakref.WeakValueDictionary()
            cache["key"] = box

            def take(name: str) -> None:
                with lock:
                    if cache.pop("key", None) is not None:
                        got.append(name)
            scenario.thread(take, "A")
            scenario.thread(take, "B")
            return lambda: (got[0], box)[0]
        self.assert_both_orders(threads, {"A", "B"})


def each_sets_its_own(make: Callable[[int], Any]) -> tuple[set[object], blanket.Exploration]:
    """The outcomes and the search of two threads, each setting its own
    object (``make(n)`` for thread *n*) three times under one lock."""
    def setup(scenario: Scenario) -> Callable[[], object]:
        lock, boxes = scenario.Lock(), [make(n) for n in range(2)]

        def set_own(box: Any) -> None:
            for n in range(3):
                with lock:
                    box.value = n
        for box in boxes:
            scenario.thread(set_own, box)
        return lambda: tuple(box.value for box in boxes)
    return outcomes_of(setup)


class Apart(unittest.TestCase):
    def test_sections_that_touch_nothing_of_each_other_s_run_in_one_order(self) -> None:
        kinds = [type("Mine", (), {}), type("Yours", (), {})]
        seen, result = each_sets_its_own(lambda n: kinds[n]())
        self.assertTrue(result.exhausted, result)
        self.assertEqual(seen, {(2, 2)})
        self.assertEqual(result.count, 1)  # of the 20 orders of the sections

    def test_objects_of_one_class_are_told_apart_within_a_run_only(self) -> None:
        seen, result = each_sets_its_own(lambda _: Box())
        self.assertTrue(result.exhausted, result)
        self.assertEqual(seen, {(2, 2)})
        # Between runs two sections writing a Box each conflict: the first
        # choices (where every call not asleep is tried, see
        # DepthFirst.advance) run more orders; the races of a run do not.
        self.assertEqual(result.count, 4)

    def test_once_something_is_unseen_every_two_sections_conflict(self) -> None:
        def threads(scenario: Scenario) -> Callable[[], object]:
            lock = scenario.Lock()

            def work() -> None:
                with lock:
                    pass
                time.sleep(0)  # real time: unseen
            scenario.thread(work)
            scenario.thread(work)
            return lambda: None
        _, result = outcomes_of(threads)
        self.assertFalse(result.exhausted)
        self.assertIn("time.sleep", " ".join(result.unseen))
        self.assertEqual(result.count, 2)  # both orders of the empty sections


def two_sections(first: list[tuple[object, str | None, bool]],
                 second: list[tuple[object, str | None, bool]]) -> Sections:
    """The sections of a run where threads 0, 1 and 2 take a lock once in
    turn, the first two reaching their list's (target, attribute or ``None``
    for an item, write)."""
    def record(accesses: list[tuple[object, str | None, bool]], epoch: int) -> list[Any]:
        flat: list[Any] = []
        for target, name, write in accesses:
            site = Site(write, name, 1 if name is not None else 2, "f", "f.py", 1, {})
            flat += [site, target, name, write, epoch]
        return flat
    # (A third thread's section reaches nothing: it conflicts with neither,
    # so the lock is one whose sections are told apart, see Sections.keys.)
    trace = [(0, "Lock 1", ()), (0, "Lock 1", ()), (1, "Lock 1", ()), (1, "Lock 1", ()),
             (2, "Lock 1", ()), (2, "Lock 1", ())]
    return Sections(trace, [ACQUIRE, RELEASE] * 3,
                    [(0, record(first, 0)), (1, record(second, 2))])


class Kinds(unittest.TestCase):
    """What two sections reached, by object within a run and by kind between
    runs (:meth:`Section.conflicts`, :meth:`Section.meets`)."""

    def assert_meet(self, first: list[tuple[object, str | None, bool]],
                    second: list[tuple[object, str | None, bool]], within: bool,
                    between: bool) -> None:
        sections = two_sections(first, second)
        one, other = sections.of[0], sections.of[2]
        self.assertEqual((one.conflicts(other), one.meets(other)), (within, between))
        self.assertEqual((other.conflicts(one), other.meets(one)), (within, between))

    def test_two_objects_of_one_class_meet_between_runs_only(self) -> None:
        self.assert_meet([(Box(), "value", True)], [(Box(), "value", False)], False, True)
        self.assert_meet([(X(), "value", True)], [(Y(), "value", True)], False, False)
        self.assert_meet([(X(), "value", False)], [(X(), "value", False)], False, False)

    def test_an_object_whose_methods_are_not_watched_is_written(self) -> None:
        cache: weakref.WeakValueDictionary[str, Box] = weakref.WeakValueDictionary()
        self.assert_meet([(cache, "pop", False)], [(cache, "pop", False)], True, True)

    def test_a_primitive_is_no_access(self) -> None:
        lock = threading.Lock()
        self.assert_meet([(lock, "release", True)], [(lock, "release", True)], False, False)

    def test_a_dict_may_be_an_instance_s_namespace(self) -> None:
        box, other = Box(), Box()
        # Within a run an attribute meets its own __dict__ only.
        self.assert_meet([(vars(box), None, True)], [(box, "value", False)], True, True)
        self.assert_meet([(vars(box), None, True)], [(other, "value", False)], False, True)
        self.assert_meet([({}, None, False)], [(other, "value", False)], False, False)

    def test_a_module_s_globals_are_the_module_s(self) -> None:
        namespace = sys.modules[__name__].__dict__
        self.assert_meet([(namespace, "SHARED_GLOBAL", True)], [(Box(), "value", False)],
                         False, False)
        self.assert_meet([(namespace, "SHARED_GLOBAL", True)],
                         [(namespace, "SHARED_GLOBAL", False)], True, True)

    def test_a_class_s_attribute_meets_its_instances_reads(self) -> None:
        self.assert_meet([(Box, "limit", True)], [(Box(), "limit", False)], True, True)


#: The name a module whose class answers its attribute lookups is put under.
LAZY_NAME = "blanket_test_sections_lazy"


class LazyModule(types.ModuleType):
    """A module whose class answers every attribute lookup itself, under
    *lock*, as a lazy module's does (importlib.util's, from 3.13): with a
    lock of the run's, asking the module anything parks there."""

    asked: list[str] = []  # what was asked of any of them, in order

    def __init__(self, name: str, lock: Any) -> None:
        super().__init__(name)
        object.__setattr__(self, "_lock", lock)

    def __getattribute__(self, name: str) -> Any:
        LazyModule.asked.append(name)
        with object.__getattribute__(self, "_lock"):
            return object.__getattribute__(self, name)


class LazyModules(unittest.TestCase):
    """Telling whose globals a dict is asks nothing of the module holding
    it: its class's own ``__getattribute__`` is program code, which parks at
    the run's primitives (lazy_loader 0.4 on 3.13t: the search hung in its
    first run, ``max_seconds`` and ``timeout`` past)."""

    def tearDown(self) -> None:
        sys.modules.pop(LAZY_NAME, None)
        LazyModule.asked.clear()

    def test_its_globals_are_the_module_s_named_without_asking_it(self) -> None:
        module = sys.modules[LAZY_NAME] = LazyModule(LAZY_NAME, threading.Lock())
        namespace = object.__getattribute__(module, "__dict__")
        LazyModule.asked.clear()
        sections = two_sections([(namespace, "SHARED", True)], [(namespace, "SHARED", False)])
        one, other = sections.of[0], sections.of[2]
        self.assertEqual((one.conflicts(other), one.meets(other)), (True, True))
        self.assertEqual(LazyModule.asked, [])

    def test_sections_writing_its_globals_are_searched(self) -> None:
        def setup(scenario: Scenario) -> Callable[[], None]:
            module = sys.modules[LAZY_NAME] = LazyModule(LAZY_NAME, scenario.Lock())
            namespace = object.__getattribute__(module, "__dict__")
            namespace["count"] = 0
            lock = scenario.Lock()

            def bump() -> None:
                with lock:
                    namespace["count"] += 1

            scenario.thread(bump)
            scenario.thread(bump)

            def both_counted() -> None:
                assert namespace["count"] == 2, namespace["count"]
            return both_counted

        result = blanket.explore(setup, timeout=5, max_seconds=60)
        self.assertTrue(result.exhausted, result)
        self.assertIsNone(result.failure, result)
        self.assertEqual(result.count, 2)


class HandedOver(unittest.TestCase):
    def test_a_release_with_no_acquire_of_its_thread_s_before_it(self) -> None:
        # The setup takes the lock; A's first step gives it back; B's
        # section can only follow: one order, and A's release closes no
        # section of A's.
        def threads(scenario: Scenario) -> Callable[[], object]:
            lock, log = scenario.Lock(), []
            lock.acquire()
            scenario.thread(lock.release)

            def take() -> None:
                with lock:
                    log.append("B")
            scenario.thread(take)
            return lambda: tuple(log)
        seen, result = outcomes_of(threads)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(seen, {("B",)})
        self.assertEqual(result.count, 1)


class Locks(unittest.TestCase):
    """Which locks' sections the search tells apart (:attr:`Sections.keys`):
    only those where two threads' sections do not conflict."""

    def keys(self, first: list[tuple[object, str | None, bool]],
             second: list[tuple[object, str | None, bool]]) -> set[str]:
        sections = two_sections(first, second)
        del sections.of[4], sections.of[5]  # (the helper's third: checked below)
        found = [one for index, one in sections.of.items() if index == one.first]
        return {one.key for one in found} if Sections.apart_somewhere(found) else set()

    def test_every_section_bumping_one_counter(self) -> None:
        box = Box()
        self.assertEqual(self.keys([(box, "n", True)], [(box, "n", True)]), set())

    def test_a_write_and_a_read_of_one_object(self) -> None:
        box = Box()
        self.assertEqual(self.keys([(box, "n", True)], [(box, "n", False)]), set())

    def test_two_sections_apart(self) -> None:
        self.assertEqual(self.keys([(Box(), "n", True)], [(Box(), "n", True)]), {"Lock 1"})
        self.assertEqual(two_sections([], []).keys, {"Lock 1"})

"""A dict's items are its keys' (issue 32): two keys' reads and writes
commute; a write that adds or removes a key commutes with no other such
write, nor with a look at the whole dict (its iteration sees the keys and
their order). On generated programs (threads reading, writing, deleting and
popping a shared dict's items under two locks and outside them, asking
whether a key is there, iterating it, and, where the dict is an object's
``__dict__``, reading and writing the object's attribute too) the outcomes
of ``explore`` are those of every interleaving of the accesses, enumerated
by brute force, the order of the keys included (an attribute added is a
key added to the object's ``__dict__``); and a section that reads other keys than another writes
runs in one order only (:mod:`blanket.exploration.sections`,
:func:`blanket.exploration.races.find`)."""

from __future__ import annotations

import random
import unittest
from collections.abc import Callable
from typing import Any

import blanket
from blanket import Scenario
from blanket.exploration.races import Race
from tests.test_sections import explored_eagerly_by, interleavings

# One operation: ("get", k), ("put", k, n) (the last value read plus n),
# ("del", k), ("pop", k), ("in", k), ("iter",), ("attr-get",), ("attr-put", n) (the
# attribute ``p``: the holder's only), ("acquire", l), ("release", l).
Op = tuple[Any, ...]
Program = list[list[Op]]
Items = tuple[tuple[object, int], ...]
Outcome = tuple[Items, tuple[tuple[object, ...], ...]]

KEYS = ("p", "q", 1)
LOCKS = ("a", "b")
#: What the dict holds when the threads start.
START: Items = (("p", 0),)


class Holder:
    """An object whose ``__dict__`` is the shared dict, ``p`` its attribute."""


def generate(rng: random.Random, holder: bool) -> Program:
    """2 or 3 threads of 1 or 2 parts, each a section under one of the two
    locks (1 to 3 accesses, reads more often than not) or, now and then,
    one access outside any."""
    kinds = ["get"] * 7 + ["put"] * 4 + ["del", "pop", "in", "iter"]
    if holder:
        kinds += ["attr-get", "attr-put"]
    program = []
    for _ in range(rng.choice((2, 2, 3))):
        ops: list[Op] = []
        for _ in range(rng.randint(1, 2)):
            accesses: list[Op] = []
            for _ in range(rng.randint(1, 3)):
                kind, key = rng.choice(kinds), rng.choice(KEYS)
                accesses.append(
                    (kind, key, rng.randint(1, 3)) if kind == "put" else
                    (kind, rng.randint(1, 3)) if kind == "attr-put" else
                    (kind,) if kind in ("iter", "attr-get") else (kind, key))
            if rng.random() < 0.2:
                ops.append(accesses[0])
            else:
                lock = rng.choice(LOCKS)
                ops += [("acquire", lock), *accesses, ("release", lock)]
        program.append(ops)
    return program


def _put(items: Items, key: object, value: int) -> Items:
    """*items* with *key*'s value set: in its place, or last if new."""
    if any(k == key for k, _ in items):
        return tuple((k, value if k == key else v) for k, v in items)
    return (*items, (key, value))


def _step(op: Op, items: Items, last: int) -> tuple[Items, int, tuple[object, ...]]:
    """What one access does: the dict's items and the thread's last value
    after it, and what it adds to the thread's reads."""
    kind = op[0]
    if kind in ("get", "attr-get"):
        value = dict(items).get("p" if kind == "attr-get" else op[1], -1)
        return items, value, (value,)
    if kind in ("put", "attr-put"):
        return _put(items, "p" if kind == "attr-put" else op[1], last + op[-1]), last, ()
    if kind == "iter":
        return items, last, (tuple(k for k, _ in items),)
    if kind == "in":
        return items, last, (any(k == op[1] for k, _ in items),)
    value = dict(items).get(op[1], -1)
    items = tuple((k, v) for k, v in items if k != op[1])
    return (items, last, ()) if kind == "del" else (items, value, (value,))


def brute_force(program: Program) -> set[Outcome]:
    """The outcomes of every interleaving of the operations, each one step."""
    return interleavings(program, START, _step)


def _source(op: Op) -> list[str]:
    """The lines of one operation."""
    kind = op[0]
    if kind == "get":
        return ["try:", f"    last = d[{op[1]!r}]", "except KeyError:", "    last = -1",
                "seen.reads += (last,)"]
    if kind == "attr-get":
        return ["try:", "    last = h.p", "except AttributeError:", "    last = -1",
                "seen.reads += (last,)"]
    if kind == "put":
        return [f"d[{op[1]!r}] = last + {op[2]}"]
    if kind == "attr-put":
        return [f"h.p = last + {op[1]}"]
    if kind == "del":
        return ["try:", f"    del d[{op[1]!r}]", "except KeyError:", "    pass"]
    if kind == "pop":
        return [f"last = d.pop({op[1]!r}, -1)", "seen.reads += (last,)"]
    if kind == "iter":
        return ["seen.reads += (tuple(d),)"]
    if kind == "in":
        return [f"seen.reads += ({op[1]!r} in d,)"]
    return [f"{op[1]}.{kind}()"]


def thread_source(name: str, ops: list[Op]) -> str:
    """A function *name* doing *ops* on the dict *d* (the ``__dict__`` of
    *h*, if it has one), what it read kept in its *seen*."""
    lines = [f"def {name}(d, h, a, b, seen):", "    last = 0"]
    for op in ops:
        lines += ["    " + line for line in _source(op)]
    return "\n".join(lines)


def explored(program: Program, holder: bool) -> tuple[set[Outcome], blanket.Exploration]:
    """The outcomes of every run of ``explore`` over *program*, the dict a
    plain one or (*holder*) a :class:`Holder`'s ``__dict__``."""
    namespace: dict[str, Any] = {}
    for n, ops in enumerate(program):
        exec(compile(thread_source(f"t{n}", ops), f"<dict thread {n}>", "exec"),  # noqa: S102
             namespace)
    # Each thread keeps what it read in an object of a class of its own: no
    # section of another thread touches its kind.
    seen_kinds = [type(f"Seen{n}", (), {"reads": ()}) for n in range(len(program))]
    outcomes: set[Outcome] = set()

    def setup(scenario: Scenario) -> Callable[[], None]:
        h = Holder()
        if holder:
            h.p = 0  # type: ignore[attr-defined]
            d = vars(h)
        else:
            d = dict(START)
        locks = [scenario.Lock(), scenario.Lock()]
        seen = [kind() for kind in seen_kinds]
        for n in range(len(program)):
            scenario.thread(namespace[f"t{n}"], d, h, *locks, seen[n])

        def record() -> None:
            outcomes.add((tuple(d.items()), tuple(s.reads for s in seen)))
        return record

    return outcomes, blanket.explore(setup, max_schedules=5_000)


class AgainstBruteForce(unittest.TestCase):
    def check(self, holder: bool, seed: int) -> None:
        rng = random.Random(seed)
        for number in range(16):  # (more by hand: seeds 1000-1299 gave no mismatch)
            program = generate(rng, holder)
            with self.subTest(number=number, program=program):
                outcomes, result = explored(program, holder)
                self.assertTrue(result.exhausted, result)
                self.assertEqual(outcomes, brute_force(program))

    def test_a_plain_dict(self) -> None:
        self.check(holder=False, seed=7)

    def test_an_objects_dict_and_its_attribute(self) -> None:
        self.check(holder=True, seed=8)


class Hidden:
    """An object whose ``__dict__`` attribute raises."""

    @property
    def __dict__(self) -> dict[str, Any]:  # type: ignore[override]
        raise AttributeError("hidden")


class Shown:
    """An object whose ``__dict__`` attribute is no dict."""

    @property
    def __dict__(self) -> Any:  # type: ignore[override]
        return "a namespace of its own"


def q_first(scenario: Scenario) -> Callable[[], None]:
    """Two threads add an attribute each (by ``setattr``, a C call), then
    write it through ``vars()``; ``q`` must come first."""
    holder = Holder()

    def add(name: str) -> None:
        setattr(holder, name, 1)
        vars(holder)[name] = 2
    scenario.thread(add, "q")
    scenario.thread(add, "r")

    def first_q() -> None:
        assert list(vars(holder)) == ["q", "r"], list(vars(holder))
    return first_q


class Reads:
    got: object = None


class Looks:
    got: object = None


def outcomes_of(make_threads: Callable[[Scenario, dict[Any, int]], None],
                ) -> tuple[set[tuple[tuple[Any, int], ...]], blanket.Exploration]:
    """The dict's items after each run of the threads *make_threads* makes."""
    seen: set[tuple[tuple[Any, int], ...]] = set()

    def setup(scenario: Scenario) -> Callable[[], None]:
        shared: dict[Any, int] = {"p": 0}
        make_threads(scenario, shared)
        return lambda: seen.add(tuple(shared.items()))
    return seen, blanket.explore(setup, max_schedules=100)


def look_while_adding(look: Callable[[dict[Any, int]], object]
                      ) -> tuple[set[object], blanket.Exploration]:
    """What *look* got of the dict, in a thread beside one that adds the
    key ``"q"``, in every run; and the exploration."""
    got: list[object] = []

    def threads(scenario: Scenario, shared: dict[Any, int]) -> None:
        def looking() -> None:
            got.append(look(shared))

        def add() -> None:
            shared["q"] = 1
        scenario.thread(looking)
        scenario.thread(add)
    _, result = outcomes_of(threads)
    return set(got), result


class Keys(unittest.TestCase):
    """What two threads' accesses of one dict's items meet."""

    def test_two_new_keys_are_added_in_either_order(self) -> None:
        # No lock: the two writes race on the dict's keys, and run both ways.
        def threads(scenario: Scenario, shared: dict[Any, int]) -> None:
            def add(key: object) -> None:
                shared[key] = 1
            scenario.thread(add, "q")
            scenario.thread(add, 2)
        seen, result = outcomes_of(threads)
        self.assertTrue(result.exhausted, result)
        self.assertIn((("p", 0), ("q", 1), (2, 1)), seen)
        self.assertIn((("p", 0), (2, 1), ("q", 1)), seen)
        self.assertTrue(any(race.what == "dict" for race in result.races), result.races)

    def test_reading_one_key_and_writing_another_is_no_race(self) -> None:
        got, result = look_while_adding(lambda shared: shared["p"])
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.races, [], result)
        self.assertEqual((result.count, got), (1, {0}))

    def test_asking_for_one_key_while_another_is_added_is_no_race(self) -> None:
        got, result = look_while_adding(lambda shared: "p" in shared)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.races, [], result)
        self.assertEqual((result.count, got), (1, {True}))

    def test_asking_for_a_key_another_adds_is_a_race(self) -> None:
        got, result = look_while_adding(lambda shared: "q" not in shared)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(got, {True, False})
        self.assertEqual([race.what for race in result.races], ["dict"])

    def test_sections_on_two_keys_run_in_one_order(self) -> None:
        got: list[tuple[object, object]] = []  # what read and look got, each run

        def threads(scenario: Scenario, shared: dict[Any, int]) -> None:
            lock = scenario.Lock()
            # What each thread got, in an object of a class of its own (two
            # runs' sections are compared by the kinds of what they wrote).
            reads, looks = Reads(), Looks()
            got.append((reads, looks))

            def read() -> None:
                with lock:
                    reads.got = shared["p"]

            def write() -> None:
                with lock:
                    shared["p"] = shared["p"] + 1  # (a key it holds: no key added)

            def look() -> None:
                with lock:
                    try:
                        looks.got = shared[1]
                    except KeyError:  # (shared.get(1) would read the whole dict: a C method)
                        looks.got = -1
            scenario.thread(read)
            scenario.thread(write)
            scenario.thread(look)
        seen, result = outcomes_of(threads)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(seen, {(("p", 1),)})
        ended = {(reads.got, looks.got) for reads, looks in got} - {(None, -1), (None, None)}
        self.assertEqual(ended, {(0, -1), (1, -1)})  # (less the runs cut short)
        # read's and write's sections meet, look's meets neither: two orders.
        eager = explored_eagerly_by(lambda: outcomes_of(threads)[1])
        self.assertEqual((result.count, eager.count), (2, 6))

    def test_the_order_two_threads_add_attributes_in(self) -> None:
        # Two attributes are two pieces of state, but which is added first to
        # the object's __dict__ shows in iterating it: both orders run, and
        # no data race is reported.
        def threads(scenario: Scenario, shared: dict[Any, int]) -> None:
            holder = Holder()

            def add() -> None:
                holder.r = 1  # type: ignore[attr-defined]

            def add_q() -> None:
                holder.q = 1  # type: ignore[attr-defined]
            scenario.thread(add)
            scenario.thread(add_q)
            orders.append(holder)
        orders: list[Holder] = []
        _, result = outcomes_of(threads)
        self.assertTrue(result.exhausted, result)
        self.assertEqual({tuple(vars(holder)) for holder in orders}, {("q", "r"), ("r", "q")})
        self.assertEqual(result.races, [])

    def test_an_order_of_added_attributes_that_fails_is_replayed(self) -> None:
        result = blanket.explore(q_first)
        assert result.failure is not None, result
        self.assertIn("AssertionError: ['r', 'q']", result.failure.message)
        # (its written test, run as its user runs it, fails the same way)
        self.assertTrue(result.failure.checked.startswith("tried: the test fails"),
                        result.failure.checked)
        # An attribute added is a step, named by its attribute (the shrunk
        # schedule keeps the ones it needs).
        writes = {step.primitive for step in result.failure.schedule
                  if step.call == "Memory.write"}
        self.assertTrue(writes and writes <= {"Holder.q", "Holder.r"}, writes)

    def test_the_order_two_threads_add_globals_in(self) -> None:
        # A module's globals: which of two new ones comes first shows in
        # iterating its __dict__. Both orders run; no data race is reported.
        namespace: dict[str, Any] = {"__name__": "two_globals"}
        exec(compile("def add_a():\n    global a\n    a = 1\n\n"  # noqa: S102
                     "def remove_b():\n    global b\n    del b\n    b = 2\n",
                     "<two globals>", "exec"), namespace)
        orders: list[tuple[str, ...]] = []

        def setup(scenario: Scenario) -> Callable[[], None]:
            namespace.pop("a", None)
            namespace["b"] = 0
            scenario.thread(namespace["add_a"])
            scenario.thread(namespace["remove_b"])
            return lambda: orders.append(tuple(k for k in namespace if k in ("a", "b")))
        result = blanket.explore(setup)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(set(orders), {("a", "b"), ("b", "a")})
        self.assertEqual(result.races, [])

    def test_an_attribute_removed_and_another_added_as_a_third_looks(self) -> None:
        snapshots: list[tuple[str, ...]] = []

        def threads(scenario: Scenario, shared: dict[Any, int]) -> None:
            holder = Holder()
            holder.p = 0  # type: ignore[attr-defined]

            def remove() -> None:
                del holder.p  # type: ignore[attr-defined]

            def add() -> None:
                holder.q = 1  # type: ignore[attr-defined]

            def look() -> None:
                snapshots.append(tuple(holder.__dict__.copy()))
            scenario.thread(remove)
            scenario.thread(add)
            scenario.thread(look)
        _, result = outcomes_of(threads)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(set(snapshots), {("p",), ("p", "q"), (), ("q",)})

    def test_an_object_whose_dict_cannot_be_read_is_written_as_ever(self) -> None:
        # Its class's own __dict__ hides the namespace: the write is the
        # attribute's (whether it adds a key is not known), and nothing fails.
        for kind in (Hidden, Shown):
            with self.subTest(kind.__name__):
                def threads(scenario: Scenario, shared: dict[Any, int]) -> None:
                    target = kind()  # noqa: B023

                    def write() -> None:
                        target.x = 1  # type: ignore[attr-defined]
                    scenario.thread(write)
                    scenario.thread(write)
                _, result = outcomes_of(threads)
                self.assertTrue(result.ok and result.exhausted, result)
                self.assertEqual([race.what for race in result.races], [f"{kind.__name__}.x"])

    def test_reading_a_key_another_adds_is_a_race(self) -> None:
        got: list[int] = []

        def threads(scenario: Scenario, shared: dict[Any, int]) -> None:
            def read() -> None:
                got.append(shared.get("q", -1))

            def write() -> None:
                shared["q"] = 1
            scenario.thread(read)
            scenario.thread(write)
        _, result = outcomes_of(threads)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(sorted(set(got)), [-1, 1])
        self.assertIsInstance(result.races[0], Race)


if __name__ == "__main__":
    unittest.main()

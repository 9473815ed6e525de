"""The depth-first search over data races reaches every outcome: on small
generated programs (threads reading and writing attributes of one shared
object, calling into C code on shared containers, and calling helper
functions of another module that do the same, some of it under one lock)
the outcomes of ``explore`` are those of every interleaving of the
accesses, enumerated by brute force at bytecode granularity (each C call
is one step, as it is one instruction; a helper's accesses are steps of
their own). The C calls cover ``list``, ``heapq`` on a list, ``dict``,
``deque``, ``OrderedDict``, ``defaultdict``, ``bytearray``,
``queue.SimpleQueue``, ``next()`` on a shared iterator, and attributes
reached through ``setattr``/``getattr``, ``vars()`` and ``__dict__``.

The same holds when the threads' operations run in other shapes (SHAPES,
class ``Shapes``): a thread's target that is no plain function (an
instance of a class with ``__call__``, a ``unittest.mock.Mock`` whose
side effect is the function, a ``functools.partial`` of it, a bound
method); operations that C code calls back (``map``, the keys of
``sorted``, ``functools.reduce``, an ``lru_cache``'s wrapper, a cache of
its own each call); some of a thread's operations run by the worker of a
``ThreadPoolExecutor(1)`` the thread makes, waits for and shuts down
(they interleave with the other threads' as the worker's); helpers that
are a library's, taking a lock its module made with it or one its class
made in ``__init__`` (the instance made in the setup). Where blanket
cannot see something (the wrapper's C code, the worker's wait for work)
the result must say so: not "the whole space", the gap named. A cache two
threads share, called through ``map``, is a known miss (an expected
failure where it is one)."""

from __future__ import annotations

import collections
import concurrent.futures.thread
import copy
import functools
import heapq
import operator
import queue
import random
import types
import unittest
from collections.abc import Callable, Iterable
from typing import Any
from unittest import mock

import blanket
from blanket import Scenario

# One operation of a thread: ("read", var), ("write", var, k) (the last
# value read plus k), ("acquire",), ("release",) (of the scenario's lock;
# ("acquire", name) of a library's, see LOCKS), a call into C code (see
# C_OPS): (name, k, var), or ("call", n): a call of the helper function
# ``h<n>`` of another module, which runs its own operations; and markers
# that are no steps (see MARKERS).
Op = tuple[Any, ...]
Program = list[list[Op]]
# The final values of the variables and containers, and what each thread read.
Outcome = tuple[tuple[object, ...], tuple[tuple[int, ...], ...]]

VARIABLES = ("x", "y")


class Jobs:
    """What the brute force stands a ``queue.SimpleQueue`` by (one cannot be
    copied): its methods the programs call."""

    def __init__(self, items: Iterable[int] = ()) -> None:
        self.items = list(items)

    def put(self, item: int) -> None:
        self.items.append(item)

    def get_nowait(self) -> int:
        return self.items.pop(0)

    def qsize(self) -> int:
        return len(self.items)

    def __copy__(self) -> Jobs:
        return Jobs(self.items)


def start(jobs: Callable[[], Any] = Jobs) -> dict[str, Any]:
    """The shared containers, as each run starts: full enough that no pop
    empties one; *jobs* makes the queue."""
    queued = jobs()
    for item in range(1, 10):
        queued.put(item)
    return {"items": [5, 7, 9, 11, 13, 15, 17, 19, 21],
            "heap": [2, 4, 6, 8, 10, 12, 14, 16, 18], "table": {"k": 1},
            "queue": collections.deque([1, 2, 3, 4, 5, 6, 7, 8, 9]),
            "ordered": collections.OrderedDict([(1, 10), (2, 20), (3, 30)]),
            "counts": collections.defaultdict(int, {1: 4}),
            "buffer": bytearray(range(1, 10)), "jobs": queued,
            "numbers": iter(range(1, 10))}


CONTAINERS = tuple(start())
#: Each call into C code: the statement it runs (``last`` the value read
#: last, ``k`` the op's number, ``v`` its variable), and whether it reads a
#: value into ``last``.
C_OPS: dict[str, tuple[str, bool]] = {
    "append": ("items.append(last + {k})", False),
    "len": ("last = len(items)", True),
    "pop": ("last = items.pop()", True),
    "heappush": ("heapq.heappush(heap, last + {k})", False),
    "heappop": ("last = heapq.heappop(heap)", True),
    "setdefault": ("last = table.setdefault('k', {k})", True),
    "dpop": ("last = table.pop('k', 0)", True),
    "get": ("last = table.get('k', 0)", True),
    "appendleft": ("queue.appendleft(last + {k})", False),
    "popleft": ("last = queue.popleft()", True),
    # OrderedDict (a dict subclass in C)
    "move": ("ordered.move_to_end({k})", False),
    "first": ("last = next(iter(ordered))", True),
    "oget": ("last = ordered.get({k}, 0)", True),
    # defaultdict: reading a missing item makes it
    "count": ("last = counts[{k}]", True),
    "groups": ("last = len(counts)", True),
    "cset": ("counts[{k}] = last", False),
    "bappend": ("buffer.append({k})", False),
    "blen": ("last = len(buffer)", True),
    "bpop": ("last = buffer.pop()", True),
    # queue.SimpleQueue: thread-safe, but put races qsize()
    "put": ("jobs.put(last + {k})", False),
    "qsize": ("last = jobs.qsize()", True),
    "qget": ("last = jobs.get_nowait()", True),
    # an iterator that threads share
    "next": ("last = next(numbers)", True),
    "hint": ("last = operator.length_hint(numbers)", True),
    # attributes through builtins and the instance's __dict__
    "setattr": ("setattr(shared, '{v}', last + {k})", False),
    "getattr": ("last = getattr(shared, '{v}')", True),
    "vset": ("vars(shared)['{v}'] = last + {k}", False),
    "dget": ("last = shared.__dict__['{v}']", True),
}

FAMILIES = (("append", "len", "pop"), ("heappush", "heappop"), ("setdefault", "dpop", "get"),
            ("appendleft", "popleft"), ("move", "first", "oget"), ("count", "groups", "cset"),
            ("bappend", "blen", "bpop"), ("put", "qsize", "qget"), ("next", "hint"),
            ("setattr", "getattr", "vset", "dget"))
_GLOBALS = {"heapq": heapq, "operator": operator}
#: Ops that are no steps: where a thread hands the operations between them
#: to a pool's worker thread, and where it has them done.
MARKERS = ("submit", "result")


def _lock_of(op: Op) -> str:
    """The lock an ``("acquire", ...)`` or ``("release", ...)`` takes or
    gives back: the scenario's, or the helper module's (see LOCKS)."""
    return op[1] if len(op) > 1 else "lock"


def generate(rng: random.Random, c_calls: bool = False, library: bool = False,
             threads: tuple[int, ...] = (2, 2, 3)) -> tuple[Program, Program]:
    """2 or 3 threads (a number drawn from *threads*) of 1 to 3 accesses,
    a locked section now and then; with *c_calls*, most of them calls into
    C code, and some of them calls of helper functions of another module
    (the second program: each helper's operations). With *library*, there
    are always helpers, and each takes a lock of the library's all
    through: the module's (made when the module was), or the one its
    instance made in ``__init__``."""
    # One family of C calls a program: its threads' calls meet.
    family = rng.choice(FAMILIES)

    def access() -> Op:
        variable = rng.choice(VARIABLES)
        if c_calls and rng.random() < 0.8:
            return (rng.choice(family), rng.randint(1, 3), variable)
        return (("read", variable) if rng.random() < 0.5
                else ("write", variable, rng.randint(1, 3)))

    helpers: Program = []
    if library:
        for _ in range(rng.randint(1, 2)):
            held = rng.choice(("module", "instance"))
            helpers.append([("acquire", held), *(access() for _ in range(rng.randint(1, 2))),
                            ("release", held)])
    elif c_calls and rng.random() < 0.5:
        helpers = [[access() for _ in range(rng.randint(1, 2))]
                   for _ in range(rng.randint(1, 2))]
    program = []
    for _ in range(rng.choice(threads)):
        ops: list[Op] = []
        for _ in range(rng.randint(1, 3)):
            op = access()
            if helpers and rng.random() < 0.5:
                op = ("call", rng.randrange(len(helpers)))
            if rng.random() < 0.3:
                ops += [("acquire",), op, ("release",)]
            else:
                ops.append(op)
        program.append(ops)
    return program, helpers


def _units(ops: list[Op]) -> list[list[Op]]:
    """The operations of a thread in the pieces that are moved as one (to a
    callback, to a pool): a locked section stays whole."""
    units: list[list[Op]] = []
    depth = 0
    for op in ops:
        if depth == 0:
            units.append([])
        units[-1].append(op)
        depth += (op[0] == "acquire") - (op[0] == "release")
    return units


def shape(rng: random.Random, program: Program, kinds: tuple[str, ...],
          first: str | None = None) -> tuple[Program, list[str]]:
    """The program with each thread given one of *kinds* (see SHAPES), the
    first thread *first* if given; an ``"executor"`` thread has the part of
    its operations its pool runs between markers."""
    shaped, shapes = [], []
    for number, ops in enumerate(program):
        kind = first if number == 0 and first else rng.choice(kinds)
        if kind == "executor":
            units = _units(ops)
            begin = rng.randrange(len(units))
            end = rng.randint(begin + 1, len(units))
            ops = [*(op for unit in units[:begin] for op in unit), ("submit",),
                   *(op for unit in units[begin:end] for op in unit), ("result",),
                   *(op for unit in units[end:] for op in unit)]
        shaped.append(ops)
        shapes.append(kind)
    return shaped, shapes


def _c_call(op: Op, last: int, values: dict[str, int], state: dict[str, Any]
            ) -> tuple[int | None, dict[str, int], dict[str, Any]]:
    """What the C call *op* reads (or None), and the variables and
    containers after it."""
    state = {name: copy.copy(value) for name, value in state.items()}
    shared = types.SimpleNamespace(**values)
    namespace = {**_GLOBALS, "last": last, "shared": shared, **state}
    exec(C_OPS[op[0]][0].format(k=op[1], v=op[2]), namespace)  # noqa: S102
    return (namespace["last"] if C_OPS[op[0]][1] else None), vars(shared), state


def _final(values: dict[str, int], state: dict[str, Any]) -> tuple[object, ...]:
    jobs = state["jobs"]
    queued = jobs.items if isinstance(jobs, Jobs) else \
        [jobs.get_nowait() for _ in range(jobs.qsize())]
    return (*(values[v] for v in VARIABLES), tuple(state["items"]), tuple(state["heap"]),
            tuple(sorted(state["table"].items())), tuple(state["queue"]),
            tuple(state["ordered"].items()), tuple(sorted(state["counts"].items())),
            bytes(state["buffer"]), tuple(queued), tuple(copy.copy(state["numbers"])))


def brute_force(program: Program, helpers: Program | None = None) -> set[Outcome]:
    """The outcomes of every interleaving of the operations (a helper's
    each one step, as the call's are). What can follow a state depends on
    nothing else, so each state is searched from once."""
    outcomes: set[Outcome] = set()
    seen: set[tuple[object, ...]] = set()
    helpers = helpers or []
    program = [[step for op in ops if op[0] not in MARKERS
                for step in (helpers[op[1]] if op[0] == "call" else [op])]
               for ops in program]

    def search(pcs: tuple[int, ...], last: tuple[int, ...], values: dict[str, int],
               state: dict[str, Any], held: frozenset[str],
               reads: tuple[tuple[int, ...], ...]) -> None:
        final = _final(values, state)
        if (pcs, last, held, reads, final) in seen:
            return
        seen.add((pcs, last, held, reads, final))
        moved = False
        for thread, ops in enumerate(program):
            pc = pcs[thread]
            if pc == len(ops):
                continue
            op = ops[pc]
            if op[0] == "acquire" and _lock_of(op) in held:
                continue
            moved = True
            new_pcs = pcs[:thread] + (pc + 1,) + pcs[thread + 1:]
            new_last, new_values, new_state, new_held, new_reads = \
                last, values, state, held, reads
            value: int | None = None
            if op[0] == "read":
                value = values[op[1]]
            elif op[0] == "write":
                new_values = {**values, op[1]: last[thread] + op[2]}
            elif op[0] == "acquire":
                new_held = held | {_lock_of(op)}
            elif op[0] == "release":
                new_held = held - {_lock_of(op)}
            else:
                value, new_values, new_state = _c_call(op, last[thread], values, state)
            if value is not None:
                new_last = last[:thread] + (value,) + last[thread + 1:]
                new_reads = reads[:thread] + (reads[thread] + (value,),) + reads[thread + 1:]
            search(new_pcs, new_last, new_values, new_state, new_held, new_reads)
        if not moved:
            outcomes.add((final, reads))

    count = len(program)
    search((0,) * count, (0,) * count, dict.fromkeys(VARIABLES, 0), start(), frozenset(),
           ((),) * count)
    return outcomes


ARGUMENTS = ", ".join(CONTAINERS)
#: What the code calls each lock: the scenario's, the helper module's
#: (made with the module), and the one its instance made in ``__init__``.
LOCKS = {"lock": "lock", "module": "LOCK", "instance": "self.lock"}


def _statements(ops: list[Op], helpers: Program) -> list[str]:
    """Statements doing *ops* on ``shared`` with real attribute accesses,
    on the shared containers with real C calls, and calling the helpers of
    the module ``helpers`` (or the methods of its instance ``guarded``)."""
    lines = []
    for op in ops:
        if op[0] == "read":
            lines += [f"last = shared.{op[1]}", "reads.append(last)"]
        elif op[0] == "write":
            lines.append(f"shared.{op[1]} = last + {op[2]}")
        elif op[0] in C_OPS:
            statement, reads = C_OPS[op[0]]
            lines.append(statement.format(k=op[1], v=op[2]))
            if reads:
                lines.append("reads.append(last)")
        elif op[0] == "call":
            owner = "guarded" if helpers[op[1]][0] == ("acquire", "instance") else "helpers"
            lines.append(f"last = {owner}.h{op[1]}(shared, reads, last, {ARGUMENTS})")
        else:
            lines.append(f"{LOCKS[_lock_of(op)]}.{op[0]}()")
    return lines


def _indented(lines: Iterable[str], depth: int = 1) -> list[str]:
    return ["    " * depth + line for line in lines]


def _in_steps(ops: list[Op], kind: str, helpers: Program) -> list[str]:
    """Statements doing *ops* in a function ``step`` that C code calls back,
    one locked section or other operation a call."""
    units = _units(ops)
    lines = ["def step(*args):", "    nonlocal last", "    i = args[-1]"]
    for number, unit in enumerate(units):
        lines += [f"    if i == {number}:", *_indented(_statements(unit, helpers), 2)]
    lines.append("    return i")
    count = len(units)
    return lines + {
        "map": [f"list(map(step, range({count})))"],
        "sorted": [f"sorted(range({count}), key=step)"],
        "reduce": [f"functools.reduce(step, range({count}), 0)"],
        # a cache of its own each call, each argument new: no call is skipped
        "lru_cache": ["cached = functools.lru_cache(step)", f"for i in range({count}):",
                      "    cached(i)"]}[kind]


def _in_pool(ops: list[Op], helpers: Program) -> list[str]:
    """Statements doing *ops*, those between the markers in a pool's worker
    thread while this one waits for them."""
    begin, end = ops.index(("submit",)), ops.index(("result",))
    return ["def work(last):", *_indented(_statements(ops[begin + 1:end], helpers)),
            "    return last",
            *_statements(ops[:begin], helpers),
            "pool = concurrent.futures.ThreadPoolExecutor(1)",
            # (a run cut short abandons the thread: it shuts its pool down
            # all the same, or its worker would wait for work, and the end
            # of the run for the worker, until its bound)
            "try:",
            "    last = pool.submit(work, last).result()",
            "finally:",
            "    pool.shutdown()",
            *_statements(ops[end + 1:], helpers)]


#: How a thread runs its operations: its target (a function, an instance of
#: a class with ``__call__``, a ``Mock`` with the function as side effect,
#: a ``functools.partial`` of the function, a bound method), or the C code
#: that calls them back (``map``, ``sorted`` for its keys, ``reduce``, an
#: ``lru_cache``'s wrapper), or the pool that runs some of them.
SHAPES = ("function", "instance", "mock", "partial", "method", "map", "sorted", "reduce",
          "lru_cache", "executor")


def thread_source(name: str, ops: list[Op], kind: str = "function",
                  helpers: Program | None = None) -> str:
    """The thread function *name* doing *ops* (for an ``"instance"`` or a
    ``"method"``, the class *name*), run as *kind* says; *helpers* are
    those it calls."""
    helpers = helpers or []
    parameters = f"reads, {ARGUMENTS}, last=0, guarded=None"
    if kind in ("map", "sorted", "reduce", "lru_cache"):
        body = _in_steps(ops, kind, helpers)
    elif kind == "executor":
        body = _in_pool(ops, helpers)
    else:
        body = _statements(ops, helpers)
    if kind == "instance":
        lines = [f"class {name}:", f"    def __call__(self, shared, lock, {parameters}):",
                 *_indented(body, 2)]
    elif kind == "method":
        lines = [f"class {name}:", "    def __init__(self, shared, lock):",
                 "        self.shared, self.lock = shared, lock",
                 f"    def run(self, {parameters}):",
                 "        shared, lock = self.shared, self.lock", *_indented(body, 2)]
    else:
        lines = [f"def {name}(shared, lock, {parameters}):", *_indented(body)]
    return "\n".join(lines) + "\n"


def helper_source(number: int, ops: list[Op]) -> str:
    """The helper function ``h<number>``: *ops* from the caller's ``last``,
    which it returns. One that takes the instance's lock all through is a
    method of the module's class ``Guarded`` instead (the lock taken in a
    ``with`` block; the module's is taken with ``acquire`` and ``release``)."""
    if ops[0] == ("acquire", "instance"):
        return "\n".join([f"def h{number}(self, shared, reads, last, {ARGUMENTS}):",
                          "    with self.lock:", *_indented(_statements(ops[1:-1], []), 2),
                          "    return last"]) + "\n"
    return "\n".join([f"def h{number}(shared, reads, last, {ARGUMENTS}):",
                      *_indented(_statements(ops, [])), "    return last"]) + "\n"


def helpers_source(helpers: Program) -> str:
    """The module of the helpers; with a lock of the module's, made with
    it, and a class ``Guarded`` whose instances make theirs in ``__init__``,
    where one takes a lock."""
    if not any(ops[0][0] == "acquire" for ops in helpers):
        return "".join(helper_source(n, ops) for n, ops in enumerate(helpers))
    methods = [n for n, ops in enumerate(helpers) if ops[0] == ("acquire", "instance")]
    return "\n".join([
        "import threading", "", "LOCK = threading.Lock()", "", "",
        "class Guarded:", "    def __init__(self):", "        self.lock = threading.Lock()",
        *(line for n in methods for line in _indented(helper_source(n, helpers[n]).splitlines())),
        *(helper_source(n, ops) for n, ops in enumerate(helpers) if n not in methods)]) + "\n"


class Shared:
    def __init__(self) -> None:
        self.x = 0
        self.y = 0


def _target(kind: str, made: Any, shared: Shared, lock: object
            ) -> tuple[Callable[..., object], tuple[object, ...]]:
    """What a thread of *kind* is given to run, made from *made* (the
    function or class its source defined), and the arguments it takes
    before the thread's list of reads."""
    if kind == "instance":
        return made(), (shared, lock)
    if kind == "mock":
        return mock.Mock(side_effect=made), (shared, lock)
    if kind == "partial":
        return functools.partial(made, shared, lock), ()
    if kind == "method":
        return made(shared, lock).run, ()
    return made, (shared, lock)


def explored(program: Program, helpers: Program | None = None,
             shapes: list[str] | None = None) -> tuple[set[Outcome], blanket.Exploration]:
    """The outcomes of every run of ``explore`` over the program, its
    helpers in a module of their own that the scenario instruments, each
    thread run as *shapes* says (all plain functions by default)."""
    module = types.ModuleType("brute_helpers")
    module.__dict__.update(_GLOBALS)
    helpers = helpers or []
    shapes = shapes or ["function"] * len(program)
    exec(compile(helpers_source(helpers), "<helpers>", "exec"), module.__dict__)  # noqa: S102
    namespace: dict[str, Any] = {**_GLOBALS, "helpers": module, "functools": functools,
                                 "concurrent": concurrent}
    for n, ops in enumerate(program):
        exec(compile(thread_source(f"t{n}", ops, shapes[n], helpers),  # noqa: S102
                     f"<thread {n}>", "exec"), namespace)
    outcomes: set[Outcome] = set()

    def setup(scenario: Scenario) -> Callable[[], None]:
        shared, lock = Shared(), scenario.Lock()
        reads: list[list[int]] = [[] for _ in program]
        state = start(queue.SimpleQueue)
        if helpers:
            scenario.instrument(module)
        extra = {"guarded": module.Guarded()} if hasattr(module, "Guarded") else {}
        for n in range(len(program)):
            target, first = _target(shapes[n], namespace[f"t{n}"], shared, lock)
            scenario.thread(target, *first, reads[n], *state.values(), **extra)

        def record() -> None:
            outcomes.add((_final(vars(shared), state), tuple(tuple(r) for r in reads)))
        return record

    result = blanket.explore(setup, max_schedules=5_000)
    return outcomes, result


class AgainstBruteForce(unittest.TestCase):
    def test_the_same_outcomes_on_24_generated_programs(self) -> None:
        rng = random.Random(15)
        racy = 0
        for number in range(24):
            program, _ = generate(rng)
            with self.subTest(number=number, program=program):
                outcomes, result = explored(program)
                self.assertTrue(result.exhausted, result)
                self.assertEqual(outcomes, brute_force(program))
                racy += bool(result.races)
        self.assertGreaterEqual(racy, 12)  # most of them race

    def test_the_same_outcomes_on_30_generated_programs_calling_c_code_and_helpers(
            self) -> None:
        rng = random.Random(21)
        racy = helped = 0
        for number in range(30):
            program, helpers = generate(rng, c_calls=True)
            with self.subTest(number=number, program=program, helpers=helpers):
                outcomes, result = explored(program, helpers)
                self.assertTrue(result.exhausted, result)
                self.assertEqual(outcomes, brute_force(program, helpers))
                racy += bool(result.races)
                helped += any(op[0] == "call" for ops in program for op in ops)
        self.assertGreaterEqual(racy, 12)
        self.assertGreaterEqual(helped, 6)

    def test_a_reversal_that_must_start_with_another_thread_than_the_racing_one(
            self) -> None:
        # Seen on a generated program: the race of A's lock section with C's
        # second one is reversed only by running B's write of x first, which
        # A's read of x must follow. The reversal wanted A itself, asleep
        # there (its read of x had been run first already), so the order
        # where C reads x as 0, A reads it as 3 and C's second section comes
        # after A's was never run.
        program: Program = [
            [("read", "x"), ("acquire",), ("read", "y"), ("release",), ("write", "y", 1)],
            [("read", "y"), ("write", "x", 3)],
            [("acquire",), ("write", "y", 3), ("release",), ("read", "x"), ("acquire",),
             ("read", "y"), ("release",)]]
        outcomes, result = explored(program)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(outcomes, brute_force(program))

    def test_a_race_with_a_read_before_one_ordered_by_a_lock(self) -> None:
        # Seen on a generated program: A's locked write of y comes after B's
        # locked read of y (through the lock) but not after C's read of y
        # before it. The search looked back from the write no further than
        # the ordered read, so the race with C's read was never reversed.
        program: Program = [
            [("acquire",), ("read", "x"), ("release",), ("acquire",), ("write", "y", 2),
             ("release",)],
            [("acquire",), ("read", "x"), ("release",), ("acquire",), ("read", "y"),
             ("release",), ("write", "x", 2)],
            [("write", "y", 1), ("read", "y")]]
        outcomes, result = explored(program)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(outcomes, brute_force(program))

    def test_every_race_of_a_step_is_reversed_from_a_thread_that_can_start_it(
            self) -> None:
        # Seen on generated programs (a search of 300 against the brute
        # force). A pending step may race with several earlier steps (a write
        # of y with reads of y by two threads): only the last race was
        # reversed. And a reversal was taken as started by the pending
        # step's thread even where that step must follow one of the steps it
        # is moved before (B's write of y after A's read of y), so the
        # thread that can start it (A) was never wanted.
        programs: list[Program] = [
            [[("write", "x", 2), ("read", "y"), ("read", "y")],
             [("write", "y", 2), ("write", "x", 3), ("write", "y", 3)],
             [("read", "y"), ("read", "x"), ("read", "y")]],
            [[("read", "x"), ("acquire",), ("write", "x", 2), ("release",), ("acquire",),
              ("read", "y"), ("release",)],
             [("acquire",), ("read", "y"), ("release",), ("write", "y", 2)],
             [("write", "x", 2), ("read", "x"), ("read", "y")]]]
        for program in programs:
            with self.subTest(program=program):
                outcomes, result = explored(program)
                self.assertTrue(result.exhausted, result)
                self.assertEqual(outcomes, brute_force(program))

    def test_the_brute_force_is_right_on_a_lost_update(self) -> None:
        program: Program = [[("read", "x"), ("write", "x", 1)]] * 2
        rest = _final(dict.fromkeys(VARIABLES, 0), start())[2:]
        self.assertEqual(brute_force(program), {
            ((2, 0, *rest), ((0,), (1,))), ((2, 0, *rest), ((1,), (0,))),
            ((1, 0, *rest), ((0,), (0,)))})

    def test_the_brute_force_runs_each_c_call_once(self) -> None:
        program: Program = [[("dpop", 1, "x")], [("setdefault", 2, "x")]]
        outcomes = {(final[4], reads) for final, reads in brute_force(program)}
        self.assertEqual(outcomes, {((("k", 2),), ((1,), (2,))), ((), ((1,), (1,)))})

    def test_the_brute_force_runs_a_helpers_operations_one_by_one(self) -> None:
        # A helper reading x twice, and a thread writing x: it can write
        # between the reads.
        program: Program = [[("call", 0)], [("write", "x", 1)]]
        helpers: Program = [[("read", "x"), ("read", "x")]]
        reads = {reads[0] for _, reads in brute_force(program, helpers)}
        self.assertEqual(reads, {(0, 0), (0, 1), (1, 1)})


#: What blanket cannot see in a shape, as the result names it: an
#: ``lru_cache``'s wrapper (C code of its own state), and a pool's worker
#: waiting for work in a ``SimpleQueue``.
GAPS = {"lru_cache": "C callable functools._lru_cache_wrapper of ",
        "executor": "blocking call SimpleQueue.get at thread.py:"}


class Shapes(unittest.TestCase):
    """The same outcomes as the brute force's when the threads' operations
    run in shapes other than a plain function's (see SHAPES): where blanket
    cannot see something, the result says so (it is not "the whole space"
    and names the gap), and the search still runs every order it sees."""

    def generated(self, seed: int, count: int, kinds: tuple[str, ...],
                  first: str | None = None, library: bool = False
                  ) -> tuple[collections.Counter[str], list[Program]]:
        """Check *count* programs generated from *seed* (calls into C code,
        helpers now and then, always with *library*; 2 threads when the
        first is an ``"executor"``), their threads given *kinds* (the first
        *first*); what they held, counted (each kind, the programs that
        raced, those that called a helper, and the locks of the helpers
        they called), and the programs."""
        rng = random.Random(seed)
        held: collections.Counter[str] = collections.Counter()
        programs = []
        for number in range(count):
            program, helpers = generate(rng, c_calls=True, library=library,
                                        threads=(2,) if first == "executor" else (2, 2, 3))
            program, shapes = shape(rng, program, kinds, first)
            programs.append(program)
            with self.subTest(number=number, program=program, helpers=helpers, shapes=shapes):
                outcomes, result = explored(program, helpers, shapes)
                self.assertIsNone(result.failure, result)
                gaps = {GAPS[kind] for kind in shapes if kind in GAPS}
                self.assertEqual(result.exhausted, not gaps, result)
                for gap in gaps:
                    self.assertTrue(any(note.startswith(gap) for note in result.unseen),
                                    (gap, result.unseen))
                # Where it is no "whole space", every order it sees is run
                # all the same: the same outcomes too.
                self.assertEqual(outcomes, brute_force(program, helpers))
                called = {op[1] for ops in program for op in ops if op[0] == "call"}
                held.update(shapes)
                held.update(_lock_of(helpers[n][0]) for n in called if library)
                held["racy"] += bool(result.races)
                held["helped"] += bool(called)
        return held, programs

    def test_targets_that_are_no_plain_functions(self) -> None:
        # A callable instance, a Mock whose side effect is the function, a
        # partial of it, a bound method: the watch follows each into the
        # thread's code.
        held, _ = self.generated(8, 10, ("instance", "mock", "partial", "method"))
        self.assertGreaterEqual(min(held[kind] for kind in ("instance", "mock", "partial",
                                                            "method")), 4, held)
        self.assertGreaterEqual(held["racy"], 8, held)
        self.assertGreaterEqual(held["helped"], 3, held)

    def test_operations_that_c_code_calls_back(self) -> None:
        # map, sorted's keys, reduce: C code calling the thread's Python
        # code, watched as any. An lru_cache's wrapper called directly is
        # named (its cache is its C code's), and the search is not "the
        # whole space" (each thread has a cache of its own here, each key
        # new: nothing is missed).
        held, _ = self.generated(11, 10, ("map", "sorted", "reduce") * 2 + ("lru_cache",))
        self.assertGreaterEqual(min(held[kind] for kind in ("map", "sorted", "reduce",
                                                            "lru_cache")), 4, held)
        self.assertGreaterEqual(held["racy"], 8, held)
        self.assertGreaterEqual(held["helped"], 3, held)

    def test_operations_run_by_a_pool_s_worker(self) -> None:
        # The first thread has some of its operations run by the worker of
        # a ThreadPoolExecutor(1) of its own (the worker is the scenario's
        # thread: its operations race the other thread's), waits for them,
        # and shuts the pool down; the worker's wait for work is named.
        # (2 programs: the pool's own bookkeeping races too, and makes each
        # take 12-18 runs, 0.8 s, 20 s under typeguard.)
        held, programs = self.generated(210, 2, ("function",), "executor")
        self.assertEqual(held["racy"], 2, held)
        before = after = locked = called = 0  # what the submitting thread does
        for ops in (program[0] for program in programs):
            begin, end = ops.index(("submit",)), ops.index(("result",))
            before += begin > 0
            after += end < len(ops) - 1
            locked += ("acquire",) in ops[begin:end]
            called += any(op[0] == "call" for op in ops[begin:end])
        self.assertEqual((before, after, locked, called), (1, 1, 1, 1))

    def test_library_locks_made_at_import_and_in_init(self) -> None:
        # The helpers are a library: functions that take a lock the module
        # made when it was made, methods that take the lock their instance
        # made in __init__ (the instance made in the setup). Both are real
        # locks made before the threads run, the scenario's where the
        # watched code uses them.
        held, _ = self.generated(3, 8, ("function",), library=True)
        self.assertGreaterEqual(held["module"], 3, held)
        self.assertGreaterEqual(held["instance"], 3, held)
        self.assertGreaterEqual(held["racy"], 6, held)

    def test_the_brute_force_keeps_a_library_lock_s_sections_apart(self) -> None:
        # Two threads call a helper that reads x and writes it under the
        # instance's lock: no update is lost. Without the lock, one can be.
        for held, lost in ((True, False), (False, True)):
            ops = [("read", "x"), ("write", "x", 1)]
            helpers: Program = [[("acquire", "instance"), *ops, ("release", "instance")]
                                if held else ops]
            finals = {final[0] for final, _ in brute_force([[("call", 0)]] * 2, helpers)}
            self.assertEqual(finals, {1, 2} if lost else {2})

    def test_the_brute_force_tells_the_locks_apart(self) -> None:
        # A reads x twice holding the module's lock; B writes x holding the
        # instance's (the scenario's): it can come between the reads.
        for lock in ("instance", "lock"):
            program: Program = [
                [("acquire", "module"), ("read", "x"), ("read", "x"), ("release", "module")],
                [("acquire", lock), ("write", "x", 1), ("release", lock)]]
            reads = {reads[0] for _, reads in brute_force(program)}
            self.assertEqual(reads, {(0, 0), (0, 1), (1, 1)})

    def test_the_brute_force_takes_the_pool_s_markers_for_no_steps(self) -> None:
        plain: Program = [[("read", "x"), ("write", "y", 1)], [("write", "x", 2)]]
        marked = [[("submit",), *plain[0], ("result",)], plain[1]]
        self.assertEqual(brute_force(marked), brute_force(plain))
        self.assertEqual({reads[0] for _, reads in brute_force(marked)}, {(0,), (2,)})

    def test_a_cache_two_threads_share_called_from_c_code(self) -> None:
        # An lru_cache's wrapper called by C code (map), not by the thread's
        # code: both threads can miss the cache and run the function (the
        # functools documentation says so), but in no run does the second
        # look before the first stored, since the search switches only where
        # watched code parks. It was "the whole space" in one run on the
        # builds with a GIL: the wrapper must be named.
        counts: set[int] = set()

        def setup(scenario: Scenario) -> Callable[[], None]:
            doubled.cache_clear()
            CALLED.clear()
            for _ in range(2):
                scenario.thread(maps_doubled)

            def record() -> None:
                counts.add(len(CALLED))
            return record

        result = blanket.explore(setup)
        self.assertIsNone(result.failure, result)
        if result.exhausted:
            self.assertEqual(counts, {1, 2}, result)
        else:
            self.assertTrue(result.unseen, result)


#: The keys :func:`doubled` was called with (a hit of its cache skips it).
CALLED: list[int] = []


@functools.lru_cache
def doubled(key: int) -> int:
    CALLED.append(key)
    return key * 2


def maps_doubled() -> None:
    list(map(doubled, [1]))


if __name__ == "__main__":
    unittest.main()

"""The depth-first search over data races reaches every outcome: on small
generated programs (threads reading and writing attributes of one shared
object and calling C container methods on shared containers, some of it
under one lock) the outcomes of ``explore`` are those of every interleaving
of the accesses, enumerated by brute force (each C call is one step, as it
is one bytecode instruction)."""

from __future__ import annotations

import collections
import heapq
import random
import unittest
from collections.abc import Callable
from typing import Any

import blanket
from blanket import Scenario

# One operation of a thread: ("read", var), ("write", var, k) (the last
# value read plus k), ("acquire",), ("release",), or a call of a C
# container method (see C_OPS): (name, k) or (name,).
Op = tuple[Any, ...]
Program = list[list[Op]]
# The final values of the variables and containers, and what each thread read.
Outcome = tuple[tuple[object, ...], tuple[tuple[int, ...], ...]]

VARIABLES = ("x", "y")
# The shared containers, as each run starts: full enough that no pop empties one.
START = {"items": [5, 7, 9, 11, 13, 15, 17, 19, 21], "heap": [2, 4, 6, 8, 10, 12, 14, 16, 18],
         "table": {"k": 1}, "queue": collections.deque([1, 2, 3, 4, 5, 6, 7, 8, 9])}
#: Each C call: the statement a thread runs (``last`` the value it read
#: last, ``k`` the op's number), and whether it reads a value into ``last``.
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
}

FAMILIES = (("append", "len", "pop"), ("heappush", "heappop"), ("setdefault", "dpop", "get"),
            ("appendleft", "popleft"))


def generate(rng: random.Random, c_calls: bool = False) -> Program:
    """2 or 3 threads of 1 to 3 accesses, a locked section now and then;
    with *c_calls*, most of them calls of C container methods."""
    program = []
    # One container's methods a program: its threads' calls meet.
    family = rng.choice(FAMILIES)
    for _ in range(rng.choice((2, 2, 3))):
        ops: list[Op] = []
        for _ in range(rng.randint(1, 3)):
            access: Op = (("read", rng.choice(VARIABLES)) if rng.random() < 0.5
                          else ("write", rng.choice(VARIABLES), rng.randint(1, 3)))
            if c_calls and rng.random() < 0.8:
                access = (rng.choice(family), rng.randint(1, 3))
            if rng.random() < 0.3:
                ops += [("acquire",), access, ("release",)]
            else:
                ops.append(access)
        program.append(ops)
    return program


def _c_call(op: Op, last: int, state: dict[str, Any]) -> tuple[int | None, dict[str, Any]]:
    """What the C call *op* reads (or None) and the containers after it."""
    state = {name: type(value)(value) for name, value in state.items()}
    namespace = {"heapq": heapq, "last": last, **state}
    exec(C_OPS[op[0]][0].format(k=op[1]), namespace)  # noqa: S102
    return (namespace["last"] if C_OPS[op[0]][1] else None), state


def _final(values: dict[str, int], state: dict[str, Any]) -> tuple[object, ...]:
    return (*(values[v] for v in VARIABLES), tuple(state["items"]), tuple(state["heap"]),
            tuple(sorted(state["table"].items())), tuple(state["queue"]))


def brute_force(program: Program) -> set[Outcome]:
    """The outcomes of every interleaving of the operations."""
    outcomes: set[Outcome] = set()

    def search(pcs: tuple[int, ...], last: tuple[int, ...], values: dict[str, int],
               state: dict[str, Any], holder: int | None,
               reads: tuple[tuple[int, ...], ...]) -> None:
        moved = False
        for thread, ops in enumerate(program):
            pc = pcs[thread]
            if pc == len(ops):
                continue
            op = ops[pc]
            if op[0] == "acquire" and holder is not None:
                continue
            moved = True
            new_pcs = pcs[:thread] + (pc + 1,) + pcs[thread + 1:]
            new_last, new_values, new_state, new_holder, new_reads = \
                last, values, state, holder, reads
            value: int | None = None
            if op[0] == "read":
                value = values[op[1]]
            elif op[0] == "write":
                new_values = {**values, op[1]: last[thread] + op[2]}
            elif op[0] == "acquire":
                new_holder = thread
            elif op[0] == "release":
                new_holder = None
            else:
                value, new_state = _c_call(op, last[thread], state)
            if value is not None:
                new_last = last[:thread] + (value,) + last[thread + 1:]
                new_reads = reads[:thread] + (reads[thread] + (value,),) + reads[thread + 1:]
            search(new_pcs, new_last, new_values, new_state, new_holder, new_reads)
        if not moved:
            outcomes.add((_final(values, state), reads))

    count = len(program)
    search((0,) * count, (0,) * count, dict.fromkeys(VARIABLES, 0), START, None,
           ((),) * count)
    return outcomes


def thread_source(name: str, ops: list[Op]) -> str:
    """A function doing *ops* on ``shared`` with real attribute accesses,
    and on the shared containers with real C calls."""
    lines = [f"def {name}(shared, lock, reads, items, heap, table, queue):", "    last = 0"]
    for op in ops:
        if op[0] == "read":
            lines += [f"    last = shared.{op[1]}", "    reads.append(last)"]
        elif op[0] == "write":
            lines.append(f"    shared.{op[1]} = last + {op[2]}")
        elif op[0] in C_OPS:
            statement, reads = C_OPS[op[0]]
            lines.append("    " + statement.format(k=op[1]))
            if reads:
                lines.append("    reads.append(last)")
        else:
            lines.append(f"    lock.{op[0]}()")
    return "\n".join(lines) + "\n"


class Shared:
    def __init__(self) -> None:
        self.x = 0
        self.y = 0


def explored(program: Program) -> tuple[set[Outcome], blanket.Exploration]:
    """The outcomes of every run of ``explore`` over the program."""
    namespace: dict[str, Any] = {"heapq": heapq}
    for n, ops in enumerate(program):
        exec(compile(thread_source(f"t{n}", ops), f"<thread {n}>", "exec"),  # noqa: S102
             namespace)
    outcomes: set[Outcome] = set()

    def setup(scenario: Scenario) -> Callable[[], None]:
        shared, lock = Shared(), scenario.Lock()
        reads: list[list[int]] = [[] for _ in program]
        state = {name: type(value)(value) for name, value in START.items()}
        for n in range(len(program)):
            scenario.thread(namespace[f"t{n}"], shared, lock, reads[n], *state.values())

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
            program = generate(rng)
            with self.subTest(number=number, program=program):
                outcomes, result = explored(program)
                self.assertTrue(result.exhausted, result)
                self.assertEqual(outcomes, brute_force(program))
                racy += bool(result.races)
        self.assertGreaterEqual(racy, 12)  # most of them race

    def test_the_same_outcomes_on_16_generated_programs_calling_c_methods(self) -> None:
        rng = random.Random(21)
        racy = 0
        for number in range(16):
            program = generate(rng, c_calls=True)
            with self.subTest(number=number, program=program):
                outcomes, result = explored(program)
                self.assertTrue(result.exhausted, result)
                self.assertEqual(outcomes, brute_force(program))
                racy += bool(result.races)
        self.assertGreaterEqual(racy, 6)

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

    def test_the_brute_force_is_right_on_a_lost_update(self) -> None:
        program: Program = [[("read", "x"), ("write", "x", 1)]] * 2
        rest = _final(dict.fromkeys(VARIABLES, 0), START)[2:]
        self.assertEqual(brute_force(program), {
            ((2, 0, *rest), ((0,), (1,))), ((2, 0, *rest), ((1,), (0,))),
            ((1, 0, *rest), ((0,), (0,)))})

    def test_the_brute_force_runs_each_c_call_once(self) -> None:
        program: Program = [[("dpop", 1)], [("setdefault", 2)]]
        outcomes = {(final[4], reads) for final, reads in brute_force(program)}
        self.assertEqual(outcomes, {((("k", 2),), ((1,), (2,))), ((), ((1,), (1,)))})


if __name__ == "__main__":
    unittest.main()

"""The depth-first search over data races reaches every outcome: on small
generated programs (threads reading and writing attributes of one shared
object, some of it under one lock) the outcomes of ``explore`` are those of
every interleaving of the accesses, enumerated by brute force."""

from __future__ import annotations

import random
import unittest
from collections.abc import Callable
from typing import Any

import blanket
from blanket import Scenario

# One operation of a thread: ("read", var), ("write", var, k) (the last
# value read plus k), ("acquire",), ("release",).
Op = tuple[Any, ...]
Program = list[list[Op]]
# The final values of the variables and what each thread read.
Outcome = tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]

VARIABLES = ("x", "y")


def generate(rng: random.Random) -> Program:
    """2 or 3 threads of 1 to 3 accesses, a locked section now and then."""
    program = []
    for _ in range(rng.choice((2, 2, 3))):
        ops: list[Op] = []
        for _ in range(rng.randint(1, 3)):
            access: Op = (("read", rng.choice(VARIABLES)) if rng.random() < 0.5
                          else ("write", rng.choice(VARIABLES), rng.randint(1, 3)))
            if rng.random() < 0.3:
                ops += [("acquire",), access, ("release",)]
            else:
                ops.append(access)
        program.append(ops)
    return program


def brute_force(program: Program) -> set[Outcome]:
    """The outcomes of every interleaving of the operations."""
    outcomes: set[Outcome] = set()

    def search(pcs: tuple[int, ...], last: tuple[int, ...], values: dict[str, int],
               holder: int | None, reads: tuple[tuple[int, ...], ...]) -> None:
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
            new_last, new_values, new_holder, new_reads = last, values, holder, reads
            if op[0] == "read":
                value = values[op[1]]
                new_last = last[:thread] + (value,) + last[thread + 1:]
                new_reads = reads[:thread] + (reads[thread] + (value,),) + reads[thread + 1:]
            elif op[0] == "write":
                new_values = {**values, op[1]: last[thread] + op[2]}
            elif op[0] == "acquire":
                new_holder = thread
            else:
                new_holder = None
            search(new_pcs, new_last, new_values, new_holder, new_reads)
        if not moved:
            outcomes.add((tuple(values[v] for v in VARIABLES), reads))

    count = len(program)
    search((0,) * count, (0,) * count, dict.fromkeys(VARIABLES, 0), None, ((),) * count)
    return outcomes


def thread_source(name: str, ops: list[Op]) -> str:
    """A function doing *ops* on ``shared`` with real attribute accesses."""
    lines = [f"def {name}(shared, lock, reads):", "    last = 0"]
    for op in ops:
        if op[0] == "read":
            lines += [f"    last = shared.{op[1]}", "    reads.append(last)"]
        elif op[0] == "write":
            lines.append(f"    shared.{op[1]} = last + {op[2]}")
        else:
            lines.append(f"    lock.{op[0]}()")
    return "\n".join(lines) + "\n"


class Shared:
    def __init__(self) -> None:
        self.x = 0
        self.y = 0


def explored(program: Program) -> tuple[set[Outcome], blanket.Exploration]:
    """The outcomes of every run of ``explore`` over the program."""
    namespace: dict[str, Any] = {}
    for n, ops in enumerate(program):
        exec(compile(thread_source(f"t{n}", ops), f"<thread {n}>", "exec"),  # noqa: S102
             namespace)
    outcomes: set[Outcome] = set()

    def setup(scenario: Scenario) -> Callable[[], None]:
        shared, lock = Shared(), scenario.Lock()
        reads: list[list[int]] = [[] for _ in program]
        for n in range(len(program)):
            scenario.thread(namespace[f"t{n}"], shared, lock, reads[n])

        def record() -> None:
            outcomes.add((tuple(getattr(shared, v) for v in VARIABLES),
                          tuple(tuple(r) for r in reads)))
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

    def test_the_brute_force_is_right_on_a_lost_update(self) -> None:
        program: Program = [[("read", "x"), ("write", "x", 1)]] * 2
        self.assertEqual(brute_force(program), {
            ((2, 0), ((0,), (1,))), ((2, 0), ((1,), (0,))), ((1, 0), ((0,), (0,)))})


if __name__ == "__main__":
    unittest.main()

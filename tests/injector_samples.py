"""Functions for the injector's tests: one of each shape the compiler treats
differently (loops, handlers, with, comprehensions, match, keyword calls,
closures, generators, coroutines), each with a call that exercises it.

Their source matters (locations are found in it), so they live in a file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

counter = 0


def hook() -> None:
    """The hook a string name refers to; the tests rebind it."""


def bump_global() -> int:
    global counter
    counter += 1
    return counter


class Counter:
    """An unsynchronized counter: ``+=`` reads, adds, then writes."""

    def __init__(self) -> None:
        self.value = 0

    def increment(self) -> None:
        self.value += 1


def plain(a: int, b: int = 2, *, c: int = 3) -> int:
    x = a + b
    return x * c


def loops(n: int) -> int:
    total = 0
    for i in range(n):
        if i % 2:
            continue
        total += i
        while total > 100:
            total -= 7
            break
    else:
        total += 1
    return total


def handlers(x: int) -> list[object]:
    out: list[object] = []
    try:
        out.append(1 / x)
    except ZeroDivisionError as error:
        out.append(type(error).__name__)
    else:
        out.append("else")
    finally:
        out.append("finally")
    try:
        try:
            raise KeyError(x)
        finally:
            out.append("inner")
    except KeyError:
        out.append("caught")
    return out


class Recorder:
    """A context manager that records entering and leaving."""

    def __init__(self, log: list[object]) -> None:
        self.log = log

    def __enter__(self) -> Recorder:
        self.log.append("enter")
        return self

    def __exit__(self, *exc_info: object) -> bool:
        self.log.append("exit")
        return exc_info[0] is KeyError


def withs(log: list[object]) -> list[object]:
    with Recorder(log) as first, Recorder(log):
        log.append(first is not None)
    with Recorder(log):
        raise KeyError("swallowed")
    return log


def comprehensions(n: int) -> tuple[object, ...]:
    squares = [i * i for i in range(n) if i % 2]
    pairs = {i: j for i, j in zip(range(n), range(n, 2 * n), strict=True)}
    total = sum(x for x in range(n))
    rests = {x % 3 for x in range(n)}
    return squares, pairs, total, rests


def matching(value: object) -> tuple[object, ...]:
    match value:
        case [x, y, *rest]:
            return ("sequence", x, y, len(rest))
        case {"key": found}:
            return ("mapping", found)
        case int(n) if n > 3:
            return ("big", n)
        case str() | bytes():
            return ("text",)
        case _:
            return ("other",)


def keyword_calls(a: int) -> tuple[object, ...]:
    ordered = sorted([3, 1, 2], key=lambda x: -x, reverse=False)
    return dict(a=a, b=ordered), max(1, -2, key=abs), plain(1, c=a)


def closure_maker() -> Callable[[int], int]:
    count = 0

    def bump(k: int) -> int:
        nonlocal count
        count += k
        return count

    return bump


def generator(n: int) -> Any:
    for i in range(n):
        sent = yield i
        if sent:
            yield sent
    return "done"


async def coroutine(n: int) -> int:
    total = 0
    for i in range(n):
        await asyncio.sleep(0)
        total += i

    async def inner() -> int:
        return 5

    return total + await inner()


def _exercise_generator(function: Callable[..., Any]) -> object:
    gen = function(3)
    out = [next(gen), gen.send("echo"), next(gen), next(gen)]
    try:
        next(gen)
    except StopIteration as stop:
        out.append(stop.value)
    return out


def _exercise_closure(function: Callable[[int], int]) -> object:
    # The cell is shared by every copy: only differences are comparable.
    return -function(0) + function(3)


#: (function, a call exercising it that returns something comparable)
CASES: list[tuple[Callable[..., Any], Callable[[Callable[..., Any]], object]]] = [
    (plain, lambda f: (f(1), f(1, 3, c=4))),
    (loops, lambda f: (f(0), f(10), f(60))),
    (handlers, lambda f: (f(0), f(2))),
    (withs, lambda f: f([])),
    (comprehensions, lambda f: f(5)),
    (matching, lambda f: [f(v) for v in ([1, 2, 3], {"key": 1}, 5, "s", 1.0)]),
    (keyword_calls, lambda f: f(1)),
    (generator, _exercise_generator),
    (coroutine, lambda f: asyncio.run(f(3))),
    (closure_maker(), _exercise_closure),
]

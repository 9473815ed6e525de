"""blanket.injector: finding locations, inserting a call, the bytecode round
trip of blanket._bytecode, the lost update reproduced, and the standard
library only."""

from __future__ import annotations

import asyncio
import contextlib
import dis
import doctest
import importlib
import inspect
import io
import json
import marshal
import subprocess
import sys
import textwrap
import threading
import types
import unittest
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import blanket
from blanket._bytecode import Assembly
from blanket.injector import _CALL_LOAD, _CALL_TEMPLATE, Location, inject_call

from . import injector_samples as samples
from .injector_samples import Counter
from .support import unchecked

BOUND = 5.0  # every wait of these tests ends well within it
ROOT = Path(__file__).resolve().parent.parent


def names(function: Callable[..., Any]) -> list[str]:
    """The instruction names of *function*, as a Location counts them."""
    plain = getattr(function, "__func__", function)
    return [instruction.name for instruction in Assembly.of(plain.__code__).instructions]


def without_source(source: str, name: str) -> Callable[..., Any]:
    """A function compiled from a string: it has no source file."""
    namespace: dict[str, Any] = {}
    exec(compile(textwrap.dedent(source), "<string>", "exec"), namespace)
    function: Callable[..., Any] = namespace[name]
    return function


def increment_location() -> Location:
    """Between the read and the write of ``self.value += 1``."""
    return Location.token(Counter.increment, "+=")


def tokens_sample(xs: list[int]) -> int:
    x = len(xs)  # 'x' is in 'xs' and in this comment
    label = "x"
    return x + label.count("x")


def two_stores(target: Any) -> None:
    target.first = 1
    target.second = 2


@staticmethod  # type: ignore[misc]
def decorated() -> int:
    """A decorated function: its lines count from the decorator."""
    value = 1
    return value


def trailing_comment() -> int:
    return 1
    # nothing is compiled from this line


class Positions(unittest.TestCase):
    """Location.position: lines from the function's first, columns from 1."""

    def test_the_read_and_the_write_of_an_augmented_assignment(self) -> None:
        location = Location.position(Counter.increment, 2, 20)  # the "+="
        self.assertEqual(location, increment_location())
        instructions = names(Counter.increment)
        self.assertIn("LOAD_ATTR", instructions[:location.start])  # the read: before
        self.assertIn("STORE_ATTR", instructions[location.start:])  # the write: after

    def test_column_one_is_the_whole_statement(self) -> None:
        location = Location.position(Counter.increment, 2)
        self.assertEqual(location, Location.text(Counter.increment, "self.value"))
        instructions = names(Counter.increment)
        self.assertEqual(instructions[location.start], "LOAD_FAST")
        # (The implicit "return None" carries the last statement's position.)
        self.assertIn("STORE_ATTR", instructions[location.start:location.stop])

    def test_lines_count_from_the_decorator(self) -> None:
        function = decorated.__func__  # type: ignore[attr-defined]
        self.assertEqual(Location.position(function, 4), Location.text(function, "value = 1"))

    def test_bad_positions(self) -> None:
        for line in (0, 4):
            with self.subTest(line=line), self.assertRaisesRegex(
                    ValueError, rf"line {line} is outside Counter.increment \(lines 1-2\)"):
                Location.position(Counter.increment, line)
        with self.assertRaisesRegex(ValueError, "column 0: columns count from 1"):
            Location.position(Counter.increment, 1, 0)
        with self.assertRaisesRegex(ValueError, "no bytecode was compiled from line 3"):
            Location.position(trailing_comment, 3)
        with self.assertRaisesRegex(ValueError, "no bytecode was compiled from line 2, column 40"):
            Location.position(Counter.increment, 2, 40)


class Texts(unittest.TestCase):
    """Location.text and Location.token, with skip and after."""

    def test_text_runs_to_the_end_of_the_statement(self) -> None:
        location = Location.text(Counter.increment, "self.value")
        instructions = names(Counter.increment)
        self.assertEqual(instructions[location.start], "LOAD_FAST")
        self.assertIn("STORE_ATTR", instructions[location.start:location.stop])

    def test_token_matches_whole_tokens_only(self) -> None:
        # The text "x" first yields code inside len(xs); the token "x" is the
        # name assigned, and skipping one reaches the return.
        text = Location.text(tokens_sample, "x")
        token = Location.token(tokens_sample, "x")
        self.assertEqual(token, Location.text(tokens_sample, "x = len"))
        self.assertEqual(text, token)  # the whole statement starts at "x"
        self.assertEqual(Location.text(tokens_sample, "x", skip=1),
                         Location.text(tokens_sample, "xs)"))
        returned = Location.token(tokens_sample, "x", skip=1)
        self.assertEqual(returned.start, Location.text(tokens_sample, "return").start)
        self.assertTrue(names(tokens_sample)[returned.start].startswith("LOAD_FAST"))
        with self.assertRaisesRegex(ValueError, "found 2 time"):
            Location.token(tokens_sample, "x", skip=2)  # not in the string or comment

    def test_skip_and_after(self) -> None:
        first = Location.text(two_stores, "target.")
        second = Location.text(two_stores, "target.", skip=1)
        self.assertLess(first, second)
        self.assertEqual(Location.text(two_stores, "target.", after=first), second)
        self.assertEqual(Location.token(two_stores, "target", after=first), second)
        self.assertEqual(Location.token(two_stores, "target", skip=1), second)

    def test_errors(self) -> None:
        with self.assertRaisesRegex(ValueError, "text 'nowhere' not found in two_stores"):
            Location.text(two_stores, "nowhere")
        with self.assertRaisesRegex(
                ValueError, "text 'target.' found 2 time\\(s\\) in two_stores, cannot skip 2"):
            Location.text(two_stores, "target.", skip=2)
        with self.assertRaisesRegex(ValueError, "skip=-1: cannot skip a negative number"):
            Location.text(two_stores, "target.", skip=-1)
        with self.assertRaisesRegex(ValueError, "text to look for is empty"):
            Location.text(two_stores, "")
        with self.assertRaisesRegex(ValueError, "token '' not found"):
            Location.token(two_stores, "")
        second = Location.text(two_stores, "target.", skip=1)
        with self.assertRaisesRegex(ValueError, "not found"):
            Location.text(two_stores, "target.", after=second)


class Bytecodes(unittest.TestCase):
    """Location.bytecode: by instruction name or by byte offset."""

    def test_by_name(self) -> None:
        location = Location.bytecode(two_stores, "STORE_ATTR")
        self.assertEqual(location.stop, location.start + 1)
        self.assertEqual(names(two_stores)[location.start], "STORE_ATTR")
        second = Location.bytecode(two_stores, "STORE_ATTR", skip=1)
        self.assertEqual(Location.bytecode(two_stores, "STORE_ATTR", after=location), second)
        self.assertGreater(second, location)
        with self.assertRaisesRegex(ValueError, "instruction 'STORE_ATTR' found 2 time"):
            Location.bytecode(two_stores, "STORE_ATTR", skip=2)
        with self.assertRaisesRegex(ValueError, "instruction 'NO_SUCH_OP' not found"):
            Location.bytecode(two_stores, "NO_SUCH_OP")

    def test_by_offset(self) -> None:
        offset = next(i.offset for i in dis.get_instructions(two_stores)
                      if i.opname == "STORE_ATTR")
        self.assertEqual(Location.bytecode(two_stores, offset),
                         Location.bytecode(two_stores, "STORE_ATTR"))
        for bad in (offset + 1, -2, 10_000):
            with self.subTest(bad=bad), self.assertRaisesRegex(
                    ValueError, f"no instruction of two_stores starts at offset {bad}"):
                Location.bytecode(two_stores, bad)

    def test_by_offsets_from_and_to(self) -> None:
        shown = [i for i in dis.get_instructions(two_stores) if i.opname != "CACHE"]
        stores = [n for n, i in enumerate(shown) if i.opname == "STORE_ATTR"]
        first = Location.bytecode(two_stores, shown[stores[0]].offset)
        span = Location.bytecode(two_stores, shown[stores[0]].offset, shown[stores[1]].offset)
        self.assertEqual((span.start, span.stop),
                         (first.start, first.start + stores[1] - stores[0]))
        end = len(two_stores.__code__.co_code)
        whole = Location.bytecode(two_stores, shown[0].offset, end)
        self.assertEqual((whole.start, whole.stop), (0, len(names(two_stores))))
        for bad in (shown[stores[0]].offset, shown[stores[0]].offset + 1, end + 2):
            with self.subTest(stop=bad), self.assertRaisesRegex(ValueError, f"stop={bad}: "):
                Location.bytecode(two_stores, shown[stores[0]].offset, bad)
        with self.assertRaisesRegex(TypeError, "stop goes with a byte offset"):
            Location.bytecode(two_stores, "STORE_ATTR", 4)

    def test_by_offset_with_extended_args(self) -> None:
        # 300 locals: stores past the 256th need an EXTENDED_ARG prefix; the
        # offset of the prefix and the one dis shows for the opcode itself
        # both name the instruction.
        body = "".join(f"    v{n} = {n}\n" for n in range(300))
        many = without_source(f"def many():\n{body}    return v299\n", "many")
        shown = list(dis.get_instructions(many))
        prefix = next(n for n, i in enumerate(shown) if i.opname == "EXTENDED_ARG")
        location = Location.bytecode(many, shown[prefix].offset)
        self.assertEqual(names(many)[location.start], shown[prefix + 1].opname)
        self.assertEqual(Location.bytecode(many, shown[prefix + 1].offset), location)
        hits: list[int] = []
        self.assertEqual(inject_call(lambda: hits.append(1), location)(), 299)
        self.assertEqual(hits, [1])


class Spans(unittest.TestCase):
    """Location itself: spans, comparisons, hashing, repr, bad input."""

    def test_comparisons_and_hash(self) -> None:
        a = Location(two_stores, 1, 2)
        b = Location(two_stores, 1, 3)
        c = Location(two_stores, 2, 3)
        self.assertTrue(a < b < c)
        self.assertTrue(a <= a <= b)
        self.assertTrue(c > b > a)
        self.assertTrue(c >= c >= b)
        self.assertFalse(b < a)
        self.assertEqual(a, Location(two_stores, 1, 2))
        self.assertNotEqual(a, b)
        self.assertEqual(hash(a), hash(Location(two_stores, 1, 2)))
        self.assertEqual(len({a, b, Location(two_stores, 1, 2)}), 2)
        self.assertEqual(sorted([c, a, b]), [a, b, c])
        self.assertNotEqual(a, "not a location")
        other = Location(Counter.increment, 1, 2)
        self.assertNotEqual(a, other)
        for compare in ("__lt__", "__le__", "__gt__", "__ge__"):
            with self.subTest(compare=compare):
                with self.assertRaisesRegex(ValueError, "locations of different functions"):
                    getattr(a, compare)(other)
                self.assertIs(getattr(a, compare)(1), NotImplemented)
        with self.assertRaises(TypeError):
            a < 1  # type: ignore[operator]  # noqa: B015 - the comparison is the test

    def test_repr(self) -> None:
        location = Location.bytecode(Counter.increment, "STORE_ATTR")
        line = Counter.increment.__code__.co_firstlineno + 1
        self.assertEqual(repr(location), f"Location(Counter.increment, {location.start}, "
                                         f"{location.stop}: STORE_ATTR, line {line})")
        # A closure's first instruction (making its cell) has no line.
        maker = Location(samples.closure_maker, 0, 1)
        self.assertEqual(repr(maker), "Location(closure_maker, 0, 1: MAKE_CELL)")

    def test_bad_spans(self) -> None:
        count = len(names(two_stores))
        for start, stop in ((-1, 1), (2, 2), (3, 1), (0, count + 1)):
            with self.subTest(start=start, stop=stop), self.assertRaisesRegex(
                    ValueError, f"instructions {start}:{stop} are not within two_stores's "
                                f"{count}"):
                Location(two_stores, start, stop)
        self.assertEqual(Location(two_stores, 0, count).stop, count)

    def test_positions_and_counts_are_ints(self) -> None:
        bad_numbers = (
            ("start", lambda: Location(two_stores, "a", "b")),  # type: ignore[arg-type]
            ("start", lambda: Location(two_stores, 0.5, 1.5)),  # type: ignore[arg-type]
            ("stop", lambda: Location(two_stores, 0, 1.0)),  # type: ignore[arg-type]
            ("start", lambda: Location(two_stores, True, 2)),
            ("line", lambda: Location.position(two_stores, "2")),  # type: ignore[arg-type]
            ("column", lambda: Location.position(two_stores, 2, 1.5)),  # type: ignore[arg-type]
            ("skip", lambda: Location.text(two_stores, "self", skip="1")),  # type: ignore[arg-type]
            ("bytecode", lambda: Location.bytecode(two_stores, 2.0)),  # type: ignore[arg-type]
            ("stop", lambda: Location.bytecode(two_stores, 2, "4")),  # type: ignore[arg-type]
        )
        for argument, make in bad_numbers:
            with self.subTest(argument=argument), unchecked(), \
                    self.assertRaisesRegex(TypeError, f"^{argument} must be an int, not "):
                make()

    def test_functions_without_source(self) -> None:
        function = without_source("def f(x):\n    return x + 1\n", "f")
        for find in (lambda: Location.position(function, 1),
                     lambda: Location.text(function, "x"),
                     lambda: Location.token(function, "x")):
            with self.subTest(), self.assertRaisesRegex(
                    ValueError, "the source of f is not available .*use Location.bytecode"):
                find()
        location = Location.bytecode(function, "BINARY_OP")
        hits: list[int] = []
        self.assertEqual(inject_call(lambda: hits.append(1), location)(1), 2)
        self.assertEqual(hits, [1])

    def test_only_python_functions_and_methods(self) -> None:
        for bad in (len, "text", 42, Counter, print):
            with self.subTest(bad=bad), unchecked(), self.assertRaisesRegex(
                    TypeError, "the injector works on Python functions and methods"):
                Location.position(bad, 1)  # type: ignore[arg-type]
            with self.subTest(bad=bad), unchecked(), self.assertRaises(TypeError):
                Location(bad, 0, 1)  # type: ignore[arg-type]


class Injecting(unittest.TestCase):
    """inject_call: a copy with the call, on every kind of function."""

    def test_the_call_goes_before_the_location(self) -> None:
        log: list[str] = []

        def steps() -> str:
            log.append("before")
            log.append("after")
            return "result"

        copy = inject_call(lambda: log.append("hook"), Location.text(steps, 'log.append("after")'))
        self.assertEqual(copy(), "result")
        self.assertEqual(log, ["before", "hook", "after"])

    def test_the_original_is_untouched(self) -> None:
        code = Counter.increment.__code__
        raw = code.co_code
        hits: list[int] = []
        copy = inject_call(lambda: hits.append(1), increment_location())
        self.assertIs(Counter.increment.__code__, code)
        self.assertEqual(Counter.increment.__code__.co_code, raw)
        counter = Counter()
        Counter.increment(counter)
        self.assertEqual((counter.value, hits), (1, []))
        copy(counter)
        self.assertEqual((counter.value, hits), (2, [1]))

    def test_the_copy_keeps_the_originals_attributes(self) -> None:
        def described(a: int, b: int = 2, *, c: int = 3) -> int:
            """Adds things."""
            return a + b + c

        described.marker = "kept"  # type: ignore[attr-defined]
        copy = inject_call(lambda: None, Location.text(described, "return"))
        self.assertEqual(copy.__name__, "described")
        self.assertEqual(copy.__qualname__, described.__qualname__)
        self.assertEqual(copy.__doc__, "Adds things.")
        self.assertEqual(copy.__module__, __name__)
        self.assertEqual(copy.__defaults__, (2,))
        self.assertEqual(copy.__kwdefaults__, {"c": 3})
        self.assertEqual(copy.__annotations__, described.__annotations__)
        self.assertIsNot(copy.__annotations__, described.__annotations__)
        self.assertEqual(copy.marker, "kept")
        self.assertEqual(copy(1, c=10), 13)
        self.assertEqual(inspect.signature(copy), inspect.signature(described))
        renamed = inject_call(lambda: None, Location.text(described, "return"), name="renamed")
        self.assertEqual(renamed.__name__, "renamed")

    def test_methods_through_the_class_and_bound(self) -> None:
        hits: list[int] = []
        unbound = inject_call(lambda: hits.append(1), increment_location())
        self.assertIsInstance(unbound, types.FunctionType)
        counter = Counter()
        unbound(counter)
        bound_location = Location.token(counter.increment, "+=")
        self.assertEqual((bound_location.start, bound_location.stop),
                         (increment_location().start, increment_location().stop))
        bound = inject_call(lambda: hits.append(2), bound_location)
        self.assertIsInstance(bound, types.MethodType)
        self.assertIs(bound.__self__, counter)
        bound()
        self.assertEqual((counter.value, hits), (2, [1, 2]))

    def test_closures_share_their_cells_with_the_original(self) -> None:
        bump = samples.closure_maker()
        hits: list[int] = []
        copy = inject_call(lambda: hits.append(1), Location.text(bump, "count += k"))
        self.assertEqual(copy(2), 2)
        self.assertEqual(bump(1), 3)  # the original sees what the copy wrote
        self.assertEqual(copy(4), 7)
        self.assertEqual(hits, [1, 1])

    def test_generators_and_coroutines(self) -> None:
        hits: list[int] = []
        generator = inject_call(lambda: hits.append(1),
                                Location.text(samples.generator, "sent = yield"))
        self.assertTrue(inspect.isgeneratorfunction(generator))
        self.assertEqual(list(generator(3)), [0, 1, 2])
        self.assertEqual(hits, [1, 1, 1])
        coroutine = inject_call(lambda: hits.append(2),
                                Location.text(samples.coroutine, "total += i"))
        self.assertTrue(inspect.iscoroutinefunction(coroutine))
        self.assertEqual(asyncio.run(coroutine(3)), 8)
        self.assertEqual(hits, [1, 1, 1, 2, 2, 2])

    def test_handlers_run_the_call_only_when_they_run(self) -> None:
        hits: list[str] = []
        in_except = inject_call(lambda: hits.append("except"),
                                Location.text(samples.handlers, "out.append(type(error)"))
        in_finally = inject_call(lambda: hits.append("finally"),
                                 Location.text(samples.handlers, 'out.append("finally")'))
        self.assertEqual(in_except(2), samples.handlers(2))
        self.assertEqual(hits, [])
        self.assertEqual(in_except(0), samples.handlers(0))
        self.assertEqual(hits, ["except"])
        self.assertEqual(in_finally(2), samples.handlers(2))
        self.assertEqual(hits, ["except", "finally"])

    def test_with_blocks_loops_and_keyword_calls(self) -> None:
        log: list[object] = []
        inside = inject_call(lambda: log.append("hook"),
                             Location.text(samples.withs, "log.append(first"))
        self.assertEqual(inside(log), ["enter", "enter", "hook", True, "exit", "exit",
                                       "enter", "exit"])
        hits: list[int] = []
        body = inject_call(lambda: hits.append(1), Location.text(samples.loops, "total += i"))
        self.assertEqual(body(10), samples.loops(10))
        self.assertEqual(len(hits), 5)  # the even numbers below 10
        keyword = inject_call(lambda: hits.append(2),
                              Location.text(samples.keyword_calls, "max("))
        self.assertEqual(keyword(4), samples.keyword_calls(4))
        self.assertEqual(hits[-1], 2)

    def test_a_global_name_is_looked_up_at_each_call(self) -> None:
        seen: list[str] = []
        copy = inject_call("hook", Location.text(samples.plain, "return"))
        original = samples.hook
        try:
            samples.hook = lambda: seen.append("first")
            self.assertEqual(copy(1), 9)
            samples.hook = lambda: seen.append("second")
            self.assertEqual(copy(1), 9)
        finally:
            samples.hook = original
        self.assertEqual(seen, ["first", "second"])

    def test_the_copy_shares_the_originals_globals(self) -> None:
        copy = inject_call(lambda: None, Location.text(samples.bump_global, "counter += 1"))
        before = samples.counter
        self.assertEqual(copy(), before + 1)
        self.assertEqual(samples.counter, before + 1)
        self.assertEqual(samples.bump_global(), before + 2)
        self.assertIs(copy.__globals__, vars(samples))

    def test_the_inserted_call_loads_nothing_but_the_hook(self) -> None:
        # The instructions come from compiling ``x()``, not from a function of
        # blanket's: an import hook instrumenting blanket (make test's
        # typeguard pass) once put its checks, and their global loads, into
        # every copy, which then crashed the interpreter.
        instructions = [instruction.name for instruction in _CALL_TEMPLATE]
        self.assertEqual(instructions[-1], "POP_TOP")
        self.assertTrue(instructions[_CALL_LOAD].startswith("LOAD_FAST"))
        self.assertEqual([name for name in instructions if name.startswith("LOAD")],
                         [instructions[_CALL_LOAD]])
        self.assertLessEqual(len(instructions), 5)

    def test_errors(self) -> None:
        location = Location.text(samples.plain, "return")
        with self.assertRaisesRegex(ValueError, "'no_such_hook' is not a global of plain"):
            inject_call("no_such_hook", location)
        with unchecked(), self.assertRaisesRegex(TypeError, "needs a callable or a global"):
            inject_call(42, location)  # type: ignore[arg-type]
        with unchecked(), self.assertRaisesRegex(
                TypeError, "^inject_call needs a Location for location, not 5$"):
            inject_call(print, 5)  # type: ignore[arg-type]
        with unchecked(), self.assertRaisesRegex(TypeError, "^inject_call's name is a str"):
            inject_call(print, location, name=3)  # type: ignore[arg-type]

    @unittest.skipIf(sys.version_info < (3, 12), "END_FOR exists on 3.12 and later")
    def test_a_call_cannot_go_at_the_end_of_a_for_loop(self) -> None:
        end = Location.bytecode(samples.loops, "END_FOR")
        with self.assertRaisesRegex(ValueError, "cannot inject a call before END_FOR"):
            inject_call(lambda: None, end)

    @unittest.skipIf(sys.version_info >= (3, 13), "KW_NAMES exists on 3.11 and 3.12")
    def test_a_call_before_a_call_with_keywords_goes_before_its_kw_names(self) -> None:
        hits: list[int] = []
        kw_names = Location.bytecode(samples.keyword_calls, "KW_NAMES")
        after = Location(samples.keyword_calls, kw_names.stop, kw_names.stop + 1)
        copy = inject_call(lambda: hits.append(1), after)
        self.assertEqual(copy(1), samples.keyword_calls(1))
        self.assertEqual(hits, [1])


# -- every instruction, by brute force ------------------------------------------

_REACHED = """
import dis, json, sys
sys.path.insert(0, sys.argv[1])
from tests import injector_samples

def reached(function, call):
    code = function.__code__
    index, n, previous = {}, -1, None
    for instruction in dis.get_instructions(code):
        if previous != "EXTENDED_ARG":
            n += 1
        index[instruction.offset] = n
        previous = instruction.opname
    seen = set()
    def local(frame, event, arg):
        if event == "opcode":
            seen.add(index[frame.f_lasti])
        return local
    def calls(frame, event, arg):
        if frame.f_code is code:
            frame.f_trace_opcodes = True
            return local
        return None
    sys.settrace(calls)
    try:
        call(function)
    finally:
        sys.settrace(None)
    return seen

# Twice: on 3.12 the first function traced reports no opcodes.
print(json.dumps([sorted(reached(f, call) | reached(f, call))
                  for f, call in injector_samples.CASES]))
"""


def reached_instructions() -> list[set[int]]:
    """For each sample, the instructions the interpreter reports running
    (opcode tracing, in a process of its own so that coverage's tracer is
    left alone). Tracing misses some (prologues, for one): a lower bound."""
    done = subprocess.run([sys.executable, "-c", _REACHED, str(ROOT)], capture_output=True,
                          text=True, timeout=60, check=True)
    return [set(indices) for indices in json.loads(done.stdout)]


class EveryInstruction(unittest.TestCase):
    """A call injected before every instruction of every sample: the copy
    returns what the original returns, and the call runs wherever the
    instruction runs."""

    def test_before_every_instruction(self) -> None:
        reached = reached_instructions()
        self.assertEqual(len(reached), len(samples.CASES))
        for (function, call), ran in zip(samples.CASES, reached, strict=True):
            expected = call(function)
            instructions = names(function)
            injected = 0
            for index, name in enumerate(instructions):
                hits: list[int] = []
                location = Location(function, index, index + 1)
                try:
                    copy = inject_call(lambda hits=hits: hits.append(1), location)
                except ValueError:
                    self.assertIn(name, ("END_FOR", "END_SEND", "POP_TOP"))
                    continue
                injected += 1
                with self.subTest(function=function.__name__, index=index, name=name):
                    self.assertEqual(call(copy), expected)
                    if index in ran:
                        self.assertTrue(hits, "the call did not run")
            self.assertGreater(injected, len(instructions) * 3 // 4, function.__name__)
            self.assertTrue(ran)


class RoundTrip(unittest.TestCase):
    """Assembly.of(code).code() gives the code object back, exactly."""

    MODULES = ("threading", "queue", "asyncio.base_events", "typing", "inspect")

    @staticmethod
    def code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
        yield code
        for constant in code.co_consts:
            if isinstance(constant, types.CodeType):
                yield from RoundTrip.code_objects(constant)

    def test_standard_library_modules(self) -> None:
        for name in self.MODULES:
            path = importlib.import_module(name).__file__
            assert path is not None
            top = compile(Path(path).read_text(encoding="utf-8"), path, "exec")
            count = 0
            for code in self.code_objects(top):
                count += 1
                again = Assembly.of(code).code()
                with self.subTest(module=name, code=code.co_qualname):
                    self.assertEqual(again.co_code, code.co_code)
                    self.assertEqual(again.co_exceptiontable, code.co_exceptiontable)
                    self.assertEqual(list(again.co_positions()), list(code.co_positions()))
            self.assertGreater(count, 10, name)

    def test_code_without_columns(self) -> None:
        # As ``python -X no_debug_ranges`` compiles: lines, but no columns.
        source = "import threading\nfor _ in range(300):\n    try:\n        pass\n" \
                 "    finally:\n        pass\n"
        done = subprocess.run(
            [sys.executable, "-X", "no_debug_ranges", "-c",
             "import marshal, sys; sys.stdout.buffer.write(marshal.dumps("
             f"compile({source!r}, 'nocolumns', 'exec')))"],
            capture_output=True, timeout=60, check=True)
        code = marshal.loads(done.stdout)
        self.assertTrue(any(position[0] is not None and position[2] is None
                            for position in code.co_positions()))
        again = Assembly.of(code).code()
        self.assertEqual(again.co_code, code.co_code)
        self.assertEqual(list(again.co_positions()), list(code.co_positions()))


# -- the lost update -------------------------------------------------------------


class LostUpdate(blanket.ScenarioTestCase):
    """The done-when test: a synchronization point between the read and the
    write of an unsynchronized counter reproduces the lost update, every run."""

    stall_timeout = BOUND
    RUNS = 20

    def test_with_a_blanket_primitive_as_the_point(self) -> None:
        scenario = self.scenario
        point = scenario.Event()  # any call on it parks; is_set changes nothing
        increment = inject_call(point.is_set, increment_location())
        for _ in range(self.RUNS):
            counter = Counter()
            A, B = self.thread(increment, counter), self.thread(increment, counter)
            A.name, B.name = "A", "B"
            with scenario:
                scenario.park(A, point.is_set, B, point.is_set)  # both have read 0
                scenario.finish(A)  # A writes 1
                scenario.finish(B)  # B writes 1 too: A's update is lost
            self.assertEqual(counter.value, 1)
            self.assertCallOrder(point.is_set, [A, B])
        counter = Counter()
        for _ in range(2):
            counter.increment()
        self.assertEqual(counter.value, 2)  # the original is untouched

    def test_with_a_raw_barrier_as_the_point(self) -> None:
        for _ in range(self.RUNS):
            meet = threading.Barrier(2, timeout=BOUND)  # both read before either writes
            increment = inject_call(meet.wait, increment_location())
            counter = Counter()
            threads = [threading.Thread(target=increment, args=(counter,)) for _ in range(2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(BOUND)
            self.assertFalse(any(thread.is_alive() for thread in threads))
            self.assertFalse(meet.broken)
            self.assertEqual(counter.value, 1)


# -- the standard library only ------------------------------------------------------

_IMPORTS = """
import json, sys
before = set(sys.modules)
from blanket.injector import _CALL_LOAD, _CALL_TEMPLATE, Location, inject_call
import threading
hits = []
copy = inject_call(lambda: hits.append(1), Location.token(threading.Event.set, "="))
event = threading.Event()
copy(event)
assert event.is_set() and hits == [1]
print(json.dumps(sorted(set(sys.modules) - before)))
"""


class StandardLibraryOnly(unittest.TestCase):
    """Importing and using blanket.injector imports only the standard library."""

    def test_imports(self) -> None:
        done = subprocess.run([sys.executable, "-c", _IMPORTS], capture_output=True,
                              text=True, timeout=60, check=True, cwd=ROOT)
        imported = json.loads(done.stdout)
        self.assertIn("blanket.injector", imported)
        outside = [name for name in imported
                   if name.partition(".")[0] not in sys.stdlib_module_names | {"blanket"}]
        self.assertEqual(outside, [])


# -- the how-to pages ----------------------------------------------------------------


class HowToPages(unittest.TestCase):
    """The examples of the injection and injector how-to pages run as written."""

    PAGES = ("injection.rst", "injector.rst")

    def test_examples(self) -> None:
        for page in self.PAGES:
            path = ROOT / "docs" / "howto" / page
            output = io.StringIO()
            with self.subTest(page=page), contextlib.redirect_stdout(output):
                result = doctest.testfile(str(path), module_relative=False,
                                          optionflags=doctest.ELLIPSIS)
            self.assertEqual(result.failed, 0, output.getvalue())
            self.assertGreater(result.attempted, 10, page)

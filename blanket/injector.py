"""The injector: a copy of a function with one call inserted into its bytecode.

Lock-free code has no primitive for blanket to regulate. The injector gives
it one: ``inject_call(hook, location)`` returns a new function that calls
``hook()`` at *location* (for example between the read and the write of a
shared counter), and the hook can wait on anything the test controls. The
original function is left untouched. The standard library only: the bytecode
is rewritten by ``blanket._bytecode``.

A :class:`Location` is a span of a function's instructions, found by source
position, by source text, by token or by instruction; the call goes in before
the first instruction of the span, as part of it (a jump to that instruction
runs the call too).
"""

from __future__ import annotations

import dis
import inspect
import io
import tokenize
import types
from collections.abc import Callable, Iterator
from typing import Any

from ._bytecode import Assembly, Instruction, call_template

__all__ = ["Location", "inject_call"]

_Function = Callable[..., Any]


class Location:
    """Instructions ``start`` up to (not including) ``stop`` of *function*,
    counted as :mod:`dis` lists them without ``EXTENDED_ARG`` and caches.

    Locations of one function compare by span; made by the class methods."""

    def __init__(self, function: _Function, start: int, stop: int) -> None:
        _whole_number(start, "start")
        _whole_number(stop, "stop")
        count = len(_instructions(function))
        if not 0 <= start < stop <= count:
            raise ValueError(f"instructions {start}:{stop} are not within "
                             f"{_name(function)}'s {count}")
        self.function = function
        self.start = start
        self.stop = stop

    # -- finding a location ---------------------------------------------------------

    @classmethod
    def position(cls, function: _Function, line: int, column: int = 1) -> Location:
        """The code at a source position: *line* counts from the function's
        first line (1-based, decorators included), *column* from 1. The
        location starts at the first instruction compiled from the text at
        or after that position, within its statement."""
        _whole_number(line, "line")
        _whole_number(column, "column")
        source = _Source(function)
        if not 1 <= line <= len(source.lines):
            raise ValueError(f"line {line} is outside {_name(function)} "
                             f"(lines 1-{len(source.lines)})")
        if column < 1:
            raise ValueError(f"column {column}: columns count from 1")
        found = source.span_at(line - 1, column - 1)
        if found is None:
            raise ValueError(f"no bytecode was compiled from line {line}, column {column} "
                             f"of {_name(function)} or after it in its statement")
        return cls(function, *found)

    @classmethod
    def text(cls, function: _Function, text: str, *, skip: int = 0,
             after: Location | None = None) -> Location:
        """The code from the first place *text* occurs in the function's
        source to the end of its statement (*skip* places skipped; with
        *after*, only places whose code starts after that location's)."""
        if not text:
            raise ValueError("text to look for is empty")
        source = _Source(function)
        places = ((row, column) for row, line in enumerate(source.lines)
                  for column in _occurrences(line, text))
        return cls._choose(function, source, places, f"text {text!r}", skip, after)

    @classmethod
    def token(cls, function: _Function, token: str, *, skip: int = 0,
              after: Location | None = None) -> Location:
        """As :meth:`text`, but *token* must be a whole token of the source
        (so ``'x'`` does not match inside ``'xs'`` or a string)."""
        source = _Source(function)
        places = (tok.start for tok in source.tokens if tok.string == token and token)
        return cls._choose(function, source, ((row - 1, col) for row, col in places),
                           f"token {token!r}", skip, after)

    @classmethod
    def bytecode(cls, function: _Function, bytecode: str | int, stop: int | None = None, *,
                 skip: int = 0, after: Location | None = None) -> Location:
        """One instruction: the first whose name is *bytecode* (``"STORE_ATTR"``;
        *skip* and *after* as for :meth:`text`), or the one at byte offset
        *bytecode* as :mod:`dis` shows it; with *stop* (a byte offset too, of
        the instruction after the span, or the code's end), the instructions
        from *bytecode* up to *stop*."""
        if stop is not None:
            _whole_number(stop, "stop")
        if not isinstance(bytecode, str):
            _whole_number(bytecode, "bytecode")
            offsets = _offsets(function)
            index = offsets.get(bytecode)
            if index is None:
                raise ValueError(f"no instruction of {_name(function)} starts at "
                                 f"offset {bytecode}")
            if stop is None:
                return cls(function, index, index + 1)
            end = len(_plain(function).__code__.co_code)
            last = offsets.get(stop, len(_instructions(function)) if stop == end else None)
            if last is None or last <= index:
                raise ValueError(f"stop={stop}: no instruction of {_name(function)} "
                                 f"starts there after offset {bytecode}")
            return cls(function, index, last)
        if stop is not None:
            raise TypeError("stop goes with a byte offset, not with an instruction's name")
        first = 0 if after is None else after.stop
        matches = [index for index, instruction in enumerate(_instructions(function))
                   if instruction.name == bytecode and index >= first]
        index = _nth(matches, skip, f"instruction {bytecode!r}", function)
        return cls(function, index, index + 1)

    @classmethod
    def _choose(cls, function: _Function, source: _Source,
                places: Iterator[tuple[int, int]], what: str, skip: int,
                after: Location | None) -> Location:
        first = 0 if after is None else after.stop
        spans = []
        for row, column in places:
            found = source.span_at(row, column)
            if found is not None and found[0] >= first:
                spans.append(found)
        start, stop = _nth(spans, skip, what, function)
        return cls(function, start, stop)

    # -- comparing -------------------------------------------------------------------

    def _key(self, other: object) -> tuple[int, int] | None:
        if not isinstance(other, Location):
            return None
        if other.function is not self.function:
            raise ValueError("locations of different functions do not compare")
        return (other.start, other.stop)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Location):
            return NotImplemented
        return (self.function is other.function
                and (self.start, self.stop) == (other.start, other.stop))

    def __hash__(self) -> int:
        return hash((id(self.function), self.start, self.stop))

    def __lt__(self, other: object) -> bool:
        key = self._key(other)
        return NotImplemented if key is None else (self.start, self.stop) < key

    def __le__(self, other: object) -> bool:
        key = self._key(other)
        return NotImplemented if key is None else (self.start, self.stop) <= key

    def __gt__(self, other: object) -> bool:
        key = self._key(other)
        return NotImplemented if key is None else (self.start, self.stop) > key

    def __ge__(self, other: object) -> bool:
        key = self._key(other)
        return NotImplemented if key is None else (self.start, self.stop) >= key

    def __repr__(self) -> str:
        instruction = _instructions(self.function)[self.start]
        line = instruction.position[0]
        where = "" if line is None else f", line {line}"
        return (f"Location({_name(self.function)}, {self.start}, {self.stop}: "
                f"{instruction.name}{where})")


def inject_call(func: Callable[[], object] | str, location: Location, *,
                name: str = "") -> Any:
    """A copy of ``location.function`` that calls ``func()`` just before the
    location's first instruction runs (its result is discarded).

    *func* is a callable, or the name of a global of the function looked up
    at each call. The copy shares the original's globals, defaults and
    closure cells; a bound method gives a method bound to the same object.
    *name* names the copy (the original's name by default).
    """
    if isinstance(func, str):
        function = location.function
        namespace = _plain(function).__globals__
        if func not in namespace:
            raise ValueError(f"{func!r} is not a global of {_name(function)}")
        hook_name = func

        def func() -> object:
            return namespace[hook_name]()
    elif not callable(func):
        raise TypeError(f"inject_call needs a callable or a global's name, not {func!r}")
    if not isinstance(location, Location):
        raise TypeError(f"inject_call needs a Location for location, not {location!r}")
    if not isinstance(name, str):
        raise TypeError(f"inject_call's name is a str, not {name!r}")
    original = _plain(location.function)
    code = original.__code__
    assembly = Assembly.of(code)
    index = _insertion_point(assembly.instructions, location.start)
    position = assembly.instructions[index].position
    call = [Instruction(i.opcode, i.arg, i.caches, position) for i in _CALL_TEMPLATE]
    call[_CALL_LOAD].arg = len(code.co_consts)
    call[_CALL_LOAD].opcode = dis.opmap["LOAD_CONST"]
    assembly.insert(index, call)
    new_code = assembly.code(co_consts=(*code.co_consts, func),
                             co_stacksize=code.co_stacksize + 2)
    copy = types.FunctionType(new_code, original.__globals__, name or original.__name__,
                              original.__defaults__, original.__closure__)
    copy.__kwdefaults__ = original.__kwdefaults__
    copy.__qualname__ = original.__qualname__
    copy.__doc__ = original.__doc__
    copy.__module__ = original.__module__
    copy.__dict__.update(original.__dict__)
    copy.__annotations__ = dict(original.__annotations__)
    bound_to = getattr(location.function, "__self__", None)
    return copy if bound_to is None else types.MethodType(copy, bound_to)


_CALL_TEMPLATE, _CALL_LOAD = call_template()

# Instructions the call may not go before: the next one must follow them at once.
_PAIRED = frozenset({"KW_NAMES", "PRECALL"})


def _insertion_point(instructions: list[Instruction], index: int) -> int:
    """Where the call goes for a location starting at *index*: never inside
    the prologue (up to the first ``RESUME``), between a ``KW_NAMES`` or
    ``PRECALL`` and the call they prepare, or at the end of a ``for`` loop
    (``FOR_ITER`` jumps a fixed distance past its ``END_FOR``)."""
    resume = next(n for n, i in enumerate(instructions) if i.name == "RESUME")
    index = max(index, resume + 1)
    while instructions[index - 1].name in _PAIRED:
        index -= 1
    name = instructions[index].name
    follows_end_for = instructions[index - 1].name == "END_FOR" and name == "POP_TOP"
    if name in ("END_FOR", "END_SEND") or follows_end_for:
        raise ValueError(  # pragma: no cover - END_FOR, END_SEND: 3.12 and later only
            f"cannot inject a call before {name} at instruction {index}: "
            "choose a location in the statement after the loop")
    return index


# -- the function's source and instructions -------------------------------------


def _plain(function: _Function) -> types.FunctionType:
    plain = getattr(function, "__func__", function)
    if not isinstance(plain, types.FunctionType):
        raise TypeError(f"the injector works on Python functions and methods, not {function!r}")
    return plain


def _name(function: _Function) -> str:
    return getattr(function, "__qualname__", repr(function))


def _instructions(function: _Function) -> list[Instruction]:
    return Assembly.of(_plain(function).__code__).instructions


def _offsets(function: _Function) -> dict[int, int]:
    """Each instruction's index by its byte offsets as :mod:`dis` shows them:
    that of its first ``EXTENDED_ARG`` prefix, if any, and its own."""
    offsets: dict[int, int] = {}
    index = 0
    for instruction in dis.get_instructions(_plain(function)):
        offsets[instruction.offset] = index
        if instruction.opname != "EXTENDED_ARG":
            index += 1
    return offsets


def _occurrences(line: str, text: str) -> Iterator[int]:
    column = line.find(text)
    while column != -1:
        yield column
        column = line.find(text, column + 1)


def _whole_number(value: object, argument: str) -> None:
    """Refuse *value* for *argument* unless it is an ``int`` (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{argument} must be an int, not {value!r}")


def _nth(matches: list[Any], skip: int, what: str, function: _Function) -> Any:
    _whole_number(skip, "skip")
    if skip < 0:
        raise ValueError(f"skip={skip}: cannot skip a negative number of matches")
    if not matches:
        raise ValueError(f"{what} not found in {_name(function)}")
    if skip >= len(matches):
        raise ValueError(f"{what} found {len(matches)} time(s) in {_name(function)}, "
                         f"cannot skip {skip}")
    return matches[skip]


class _Source:
    """A function's source lines and tokens, and the instructions compiled
    from each place in it."""

    def __init__(self, function: _Function) -> None:
        plain = _plain(function)
        try:
            lines, _ = inspect.getsourcelines(plain)
        except (OSError, TypeError) as error:
            raise ValueError(f"the source of {_name(function)} is not available ({error}); "
                             "use Location.bytecode") from None
        self.lines = [line.rstrip("\r\n") for line in lines]
        self.first_line = plain.__code__.co_firstlineno
        self.tokens = list(tokenize.generate_tokens(io.StringIO("".join(lines)).readline))
        self.instructions = Assembly.of(plain.__code__).instructions

    def _statement_end(self, row: int, column: int) -> tuple[int, int]:
        """Where the logical line holding (*row*, *column*) ends (rows from 0)."""
        for tok in self.tokens:
            if tok.type == tokenize.NEWLINE and (tok.start[0] - 1, tok.start[1]) >= (row, column):
                return tok.start[0] - 1, tok.start[1]
        return len(self.lines), 0

    def _bytes_column(self, row: int, column: int) -> int:
        # Code positions count UTF-8 bytes; source columns count characters.
        return len(self.lines[row][:column].encode()) if row < len(self.lines) else column

    def span_at(self, row: int, column: int) -> tuple[int, int] | None:
        """The instructions compiled from the source at or after (*row*,
        *column*) up to the end of that statement: the first and last index
        in code order, or ``None`` if there are none."""
        end_row, end_column = self._statement_end(row, column)
        low = (self.first_line + row, self._bytes_column(row, column))
        high = (self.first_line + end_row, self._bytes_column(end_row, end_column))
        found = [n for n, instruction in enumerate(self.instructions)
                 if instruction.position[0] is not None and instruction.position[2] is not None
                 and low <= (instruction.position[0], instruction.position[2]) < high]
        return (min(found), max(found) + 1) if found else None

"""A code object taken apart into instructions and put back together, so
that :mod:`blanket.injector` can insert a call: the standard library only.

CPython 3.11 to 3.13 encode a code object in four parallel tables: the
instructions (with ``EXTENDED_ARG`` prefixes and inline ``CACHE`` entries),
relative jump arguments, the exception table and the location table. Inserting
instructions moves offsets in all four, so :class:`Assembly` holds references
between instructions as objects, and :meth:`Assembly.code` computes every
offset afresh (repeating until the ``EXTENDED_ARG`` prefixes stop growing).
The formats are those of CPython's ``InternalDocs/exception_handling.md`` and
``locations.md``.
"""

from __future__ import annotations

import dis
import functools
import types
from collections.abc import Iterator
from dataclasses import dataclass, field

_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]
_CACHE = dis.opmap["CACHE"]
_LOAD_CONST = dis.opmap["LOAD_CONST"]
_JUMPS = frozenset(dis.hasjrel)

# A source position as ``co_positions()`` yields it.
Position = tuple[int | None, int | None, int | None, int | None]


@dataclass(eq=False)
class Instruction:
    """One instruction: its opcode and argument (``EXTENDED_ARG`` prefixes
    folded in), how many ``CACHE`` entries follow it, where its relative jump
    lands, and the source position it carries."""

    opcode: int
    arg: int
    caches: int
    position: Position
    target: Instruction | None = None

    @property
    def name(self) -> str:
        """The opcode's name, as :mod:`dis` spells it."""
        return dis.opname[self.opcode]

    @property
    def backward(self) -> bool:
        """Whether this is a jump backwards (its argument counts back)."""
        return "BACKWARD" in self.name


@dataclass(eq=False)
class Handler:
    """An exception table entry: instructions ``start`` up to (not including)
    ``end`` are covered by the handler at ``target``."""

    start: Instruction
    end: Instruction | None
    target: Instruction
    depth: int
    lasti: bool


@dataclass(eq=False)
class Assembly:
    """A code object as a list of :class:`Instruction` and :class:`Handler`."""

    original: types.CodeType
    instructions: list[Instruction] = field(default_factory=list)
    handlers: list[Handler] = field(default_factory=list)

    @classmethod
    def of(cls, code: types.CodeType) -> Assembly:
        """Take *code* apart."""
        assembly = cls(code)
        raw = code.co_code
        positions = list(code.co_positions())
        by_unit: dict[int, Instruction] = {}
        jumps: list[tuple[Instruction, int]] = []
        unit, count = 0, len(raw) // 2
        while unit < count:
            first, extended = unit, 0
            while raw[2 * unit] == _EXTENDED_ARG:
                extended = (extended | raw[2 * unit + 1]) << 8
                unit += 1
            opcode, arg = raw[2 * unit], extended | raw[2 * unit + 1]
            caches = 0
            while unit + 1 + caches < count and raw[2 * (unit + 1 + caches)] == _CACHE:
                caches += 1
            instruction = Instruction(opcode, arg, caches, positions[unit])
            assembly.instructions.append(instruction)
            by_unit[first] = by_unit[unit] = instruction
            unit += 1 + caches
            if opcode in _JUMPS:
                jumps.append((instruction, unit - arg if instruction.backward else unit + arg))
        for instruction, target in jumps:
            instruction.target = by_unit[target]
        for start, end, target, depth, lasti in _read_exception_table(code.co_exceptiontable):
            assembly.handlers.append(Handler(by_unit[start], by_unit.get(end), by_unit[target],
                                             depth, lasti))
        return assembly

    def insert(self, index: int, instructions: list[Instruction]) -> None:
        """Put *instructions* before ``self.instructions[index]``, as part of
        it: jumps and handler bounds that named that instruction now name the
        first inserted one, so the inserted code runs wherever it would have."""
        before = self.instructions[index]
        first = instructions[0]
        for instruction in self.instructions:
            if instruction.target is before:
                instruction.target = first
        for handler in self.handlers:
            if handler.start is before:
                handler.start = first
            if handler.end is before:
                handler.end = first
            if handler.target is before:
                handler.target = first
        self.instructions[index:index] = instructions

    def code(self, **changes: object) -> types.CodeType:
        """A code object of the instructions as they are now (*changes* go to
        :meth:`types.CodeType.replace` as well)."""
        sizes = {id(i): 1 for i in self.instructions}
        while True:
            offsets, unit = {}, 0
            for instruction in self.instructions:
                offsets[id(instruction)] = unit
                unit += sizes[id(instruction)] + instruction.caches
            args = [self._arg(instruction, offsets, sizes) for instruction in self.instructions]
            grown = False
            for instruction, arg in zip(self.instructions, args, strict=True):
                size = _prefixes(arg) + 1
                if size > sizes[id(instruction)]:
                    sizes[id(instruction)], grown = size, True
            if not grown:
                break
        code = bytearray()
        positions: list[Position] = []
        for instruction, arg in zip(self.instructions, args, strict=True):
            size = sizes[id(instruction)]
            for shift in range(size - 1, 0, -1):
                code += bytes((_EXTENDED_ARG, (arg >> (8 * shift)) & 0xFF))
            code += bytes((instruction.opcode, arg & 0xFF))
            code += bytes(2 * instruction.caches)
            positions += [instruction.position] * (size + instruction.caches)
        end = unit
        table = bytearray()
        for handler in self.handlers:
            start = offsets[id(handler.start)]
            stop = end if handler.end is None else offsets[id(handler.end)]
            for value, first in ((start, True), (stop - start, False),
                                 (offsets[id(handler.target)], False),
                                 (handler.depth << 1 | handler.lasti, False)):
                _write_exception_varint(table, value, first)
        return self.original.replace(
            co_code=bytes(code), co_exceptiontable=bytes(table),
            co_linetable=_location_table(positions, self.original.co_firstlineno),
            **changes)  # type: ignore[arg-type]

    @staticmethod
    def _arg(instruction: Instruction, offsets: dict[int, int], sizes: dict[int, int]) -> int:
        if instruction.target is None:
            return instruction.arg
        after = offsets[id(instruction)] + sizes[id(instruction)] + instruction.caches
        target = offsets[id(instruction.target)]
        return after - target if instruction.backward else target - after


def _prefixes(arg: int) -> int:
    """How many ``EXTENDED_ARG`` prefixes *arg* needs."""
    count = 0
    while arg > 0xFF:
        arg >>= 8
        count += 1
    return count


def _read_exception_table(table: bytes) -> Iterator[tuple[int, int, int, int, bool]]:
    """``(start, end, target, depth, lasti)`` in code units, per entry."""
    data = iter(table)

    def varint(byte: int) -> int:
        value = byte & 63
        while byte & 64:
            byte = next(data)
            value = (value << 6) | (byte & 63)
        return value

    for byte in data:
        start = varint(byte)
        end = start + varint(next(data))
        target = varint(next(data))
        depth_lasti = varint(next(data))
        yield start, end, target, depth_lasti >> 1, bool(depth_lasti & 1)


def _write_exception_varint(table: bytearray, value: int, first: bool) -> None:
    """Six bits a byte, most significant first; 64 marks "more follows" and
    128 marks the first byte of an entry."""
    chunks = [value & 63]
    while value := value >> 6:
        chunks.append(value & 63)
    chunks.reverse()
    for n, chunk in enumerate(chunks):
        table.append(chunk | (64 if n < len(chunks) - 1 else 0) | (128 if first and n == 0 else 0))


def _location_table(positions: list[Position], first_line: int) -> bytes:
    """The location table for one position per code unit."""
    table = bytearray()
    line = first_line
    n = 0
    while n < len(positions):
        position = positions[n]
        length = 1
        while length < 8 and n + length < len(positions) and positions[n + length] == position:
            length += 1
        n += length
        start, end_line, column, end_column = position
        if start is None:
            table.append(0x80 | (15 << 3) | (length - 1))
            continue
        if column is None:
            table.append(0x80 | (13 << 3) | (length - 1))
            _write_signed_varint(table, start - line)
        else:
            table.append(0x80 | (14 << 3) | (length - 1))
            _write_signed_varint(table, start - line)
            _write_varint(table, 0 if end_line is None else end_line - start)
            _write_varint(table, column + 1)
            _write_varint(table, 0 if end_column is None else end_column + 1)
        line = start
    return bytes(table)


def _write_varint(table: bytearray, value: int) -> None:
    """Six bits a byte, least significant first; 64 marks "more follows"."""
    while value >= 64:
        table.append((value & 63) | 64)
        value >>= 6
    table.append(value)


def _write_signed_varint(table: bytearray, value: int) -> None:
    _write_varint(table, (-value << 1) | 1 if value < 0 else value << 1)


@functools.cache
def call_template() -> tuple[list[Instruction], int]:
    """The instructions of the statement ``x()`` as this interpreter compiles
    it (the load of ``x`` included, the result popped), and the index of the
    one that loads ``x``: the shape of a call to insert, whatever the
    version's calling sequence (``PRECALL`` on 3.11, ``PUSH_NULL`` after the
    callable on 3.13)."""
    # Compiled from text rather than defined in this module: an import hook
    # that instruments blanket (typeguard's, for one) would put its own
    # checks into such a function, and every copy would run them.
    module = compile("def template(x):\n    x()\n", "<blanket.injector>", "exec")
    template = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    instructions = Assembly.of(template).instructions
    first = next(n for n, i in enumerate(instructions) if i.name == "RESUME") + 1
    last = next(n for n, i in enumerate(instructions) if i.name == "POP_TOP")
    body = instructions[first:last + 1]
    load = next(n for n, i in enumerate(body) if i.name.startswith("LOAD_FAST"))
    return body, load


def constant_call(const: int, before: Instruction) -> list[Instruction]:
    """The statement ``x()``, ``x`` the code object's constant *const*, to
    insert before *before* (at its source position)."""
    template, load = call_template()
    call = [Instruction(i.opcode, i.arg, i.caches, before.position) for i in template]
    call[load].opcode, call[load].arg = _LOAD_CONST, const
    return call

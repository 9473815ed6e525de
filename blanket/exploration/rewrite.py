"""The rewrite: a code object with a call to a :class:`~blanket.exploration.sites.Site`
before each access to shared state, and one to
``blanket.exploration.sites.call_target`` before each call.

Before every attribute, subscript and global load, store or delete, every
``in`` and every ``iter()``, the inserted call hands the object about to be
accessed to the instruction's site; a closure's variable is its cell. The
rewritten code is made once per code object and globals, and kept.
"""

from __future__ import annotations

import dis
import sys
import types
from collections.abc import Callable
from typing import Any

from .._bytecode import Assembly, Instruction, call_template
from .realprims import METHODS as PRIMITIVE_METHODS
from .sites import METHOD_NAMES, READERS, ArgumentSite, MethodSite, Site, call_target, use_target

_NAME_SHIFT = 0 if sys.version_info < (3, 12) else 1

# Per opcode: whether it writes, how deep under the top of the stack the
# accessed object is (0: the function's globals, -1: a cell), and how its
# argument gives the attribute or global name (None: a container access,
# or for a cell its variable's name).
_OPCODES: dict[str, tuple[bool, int, int | None]] = {
    "LOAD_ATTR": (False, 1, _NAME_SHIFT),
    "LOAD_METHOD": (False, 1, 0),
    "STORE_ATTR": (True, 1, 0),
    "DELETE_ATTR": (True, 1, 0),
    "BINARY_SUBSCR": (False, 2, None),
    "STORE_SUBSCR": (True, 2, None),
    "DELETE_SUBSCR": (True, 2, None),
    "BINARY_SLICE": (False, 3, None),
    "STORE_SLICE": (True, 3, None),
    "CONTAINS_OP": (False, 1, None),
    "GET_ITER": (False, 1, None),
    "LOAD_GLOBAL": (False, 0, 1),
    "STORE_GLOBAL": (True, 0, 0),
    "DELETE_GLOBAL": (True, 0, 0),
    # A closure's variable: the cell (depth -1), named by the variable.
    "LOAD_DEREF": (False, -1, None),
    "STORE_DEREF": (True, -1, None),
    "DELETE_DEREF": (True, -1, None),
}

_CALL, _CALL_LOAD = call_template()
_COPY = dis.opmap["COPY"]
_SWAP = dis.opmap["SWAP"]
_POP_TOP = dis.opmap["POP_TOP"]
_LOAD_CONST = dis.opmap["LOAD_CONST"]
# What pushes a cell itself: LOAD_CLOSURE, which 3.13 compiles to LOAD_FAST.
_LOAD_CELL = dis.opmap["LOAD_CLOSURE" if sys.version_info < (3, 13) else "LOAD_FAST"]
# Rewritten code per original code object and globals (the original kept
# alive with it, so the id is not reused).
_rewritten: dict[tuple[int, int], tuple[types.CodeType, types.CodeType, list[Site]]] = {}


def rewrite(code: types.CodeType, scope: dict[str, Any]) -> tuple[types.CodeType, list[Site]]:
    """*code* with a call to a :class:`~blanket.exploration.sites.Site` before each access to shared
    state (nested code objects too), and the sites; made once per code
    object and globals."""
    cached = _rewritten.get((id(code), id(scope)))
    if cached is not None:
        return cached[1], cached[2]
    sites: list[Site] = []
    consts = list(code.co_consts)
    for n, const in enumerate(consts):
        if isinstance(const, types.CodeType):
            consts[n], inner = rewrite(const, scope)
            sites += inner
    assembly = Assembly.of(code)
    calls = _reader_calls(assembly.instructions, code.co_names)
    callees = _callees(assembly.instructions)
    swap: int | None = None  # the constant index of call_target, once needed
    use: int | None = None  # and of use_target
    index = 0
    while index < len(assembly.instructions):
        instruction = assembly.instructions[index]
        inserted: list[Instruction] = []
        callee_depth = callees.get(instruction)
        if callee_depth is not None:
            if swap is None:
                swap = len(consts)
                consts.append(call_target)
            inserted = _replace(swap, instruction, callee_depth)
        if _uses_primitive(instruction, code.co_names):
            # A real primitive about to be entered, or its method loaded: the
            # adopting scenario's twin instead (blanket.exploration.realprims).
            if use is None:
                use = len(consts)
                consts.append(use_target)
            inserted += _replace(use, instruction, 1)
        spec = (False, 1, None) if instruction in calls else _OPCODES.get(instruction.name)
        if spec is None:
            if inserted:
                assembly.insert(index, inserted)
            index += len(inserted) + 1
            continue
        write, depth, shift = spec
        if depth < 0:
            name = code._varname_from_oparg(instruction.arg)  # type: ignore[attr-defined]
        else:
            name = None if shift is None else code.co_names[instruction.arg >> shift]
        kind: type[Site] = Site
        if instruction in calls:
            kind = ArgumentSite
        elif name in METHOD_NAMES and depth > 0:
            kind = MethodSite
        site = kind(write, name, depth, code.co_qualname, code.co_filename,
                    instruction.position[0], scope)
        sites.append(site)
        inserted += _call(site.hit, len(consts), instruction, depth)
        consts.append(site.hit)
        if depth == 0:
            consts.append(scope)
        assembly.insert(index, inserted)
        index += len(inserted) + 1
    new = assembly.code(co_consts=tuple(consts), co_stacksize=code.co_stacksize + 3)
    _rewritten[(id(code), id(scope))] = (code, new, sites)
    return new, sites


# Where each call instruction finds its callable under the stack's top:
# ``(arg & mask) + extra`` deep (1: the top), past its positional and
# keyword arguments (a count in the argument), or for CALL_FUNCTION_EX past
# the tuple and, when bit 0 is set, the dict of them. From 3.13 the callable
# is pushed before the NULL (or self) instead of after, one deeper; CALL_KW
# (3.13) has the keywords' names on top; 3.11 checks at PRECALL, before CALL.
_SHIFT = 1 if sys.version_info < (3, 13) else 2
_CALLEE_AT: dict[str, tuple[int, int]] = {
    "PRECALL" if sys.version_info < (3, 12) else "CALL": (-1, _SHIFT),
    "CALL_KW": (-1, _SHIFT + 1),
    "CALL_FUNCTION_EX": (1, _SHIFT + 1),
}


def _callees(instructions: list[Instruction]) -> dict[Instruction, int]:
    """Where each call's callable is replaced by what :func:`call_target` gives:
    the instruction to insert the replacement before (a call, or the
    ``KW_NAMES`` that must come right before it), and how deep the callable
    is under the stack's top there. On 3.11 and 3.12 a method call's slot
    holds ``self``, which is never a maker: it stays."""
    found: dict[Instruction, int] = {}
    for n, instruction in enumerate(instructions):
        at = _CALLEE_AT.get(instruction.name)
        if at is None:
            continue
        depth = (instruction.arg & at[0]) + at[1]
        before = instructions[n - 1]
        found[before if before.name == "KW_NAMES" else instruction] = depth
    return found


def _replace(const: int, before: Instruction, depth: int) -> list[Instruction]:
    """The stack's item *depth* deep replaced by ``call_target(item)`` (the
    constant *const*), before *before*."""
    call = _call(call_target, const, before, depth)
    call[-1:] = [Instruction(_SWAP, depth + 1, 0, before.position),
                 Instruction(_POP_TOP, 0, 0, before.position)]
    return call


def _uses_primitive(instruction: Instruction, names: tuple[str, ...]) -> bool:
    """Whether *instruction* enters the object on top of the stack
    (``with``) or loads from it a method named as a primitive's."""
    name = instruction.name
    if name == "BEFORE_WITH":
        return True
    if name not in ("LOAD_ATTR", "LOAD_METHOD"):
        return False
    shift = _OPCODES[name][2]
    assert shift is not None
    return names[instruction.arg >> shift] in PRIMITIVE_METHODS


def _reader_calls(instructions: list[Instruction], names: tuple[str, ...]
                  ) -> set[Instruction]:
    """The calls of a reading builtin with one argument (``len(x)``): the
    instruction that starts each call (``PRECALL`` on 3.11), when nothing
    but loads come between the builtin's load and the call."""
    found: set[Instruction] = set()
    for n, instruction in enumerate(instructions):
        if instruction.name != "LOAD_GLOBAL" or names[instruction.arg >> 1] not in READERS:
            continue
        for after in instructions[n + 1:]:  # pragma: no branch - code ends in a return
            if after.name in ("PRECALL", "CALL"):
                if after.arg == 1:
                    found.add(after)
                break
            if not after.name.startswith(("LOAD_", "PUSH_NULL")) or _prepares_call(after):
                break
    return found


def _prepares_call(instruction: Instruction) -> bool:
    """Whether *instruction* loads a callable for a call (with its ``NULL``
    or ``self``): the call that follows is not the builtin's."""
    name = instruction.name
    return name == "LOAD_METHOD" or (name == "LOAD_GLOBAL" and bool(instruction.arg & 1)) \
        or (name == "LOAD_ATTR" and bool(_NAME_SHIFT) and bool(instruction.arg & 1))


def _call(hook: Callable[[object], object], const: int, access: Instruction, depth: int
          ) -> list[Instruction]:
    """``hook(x)`` before *access*, with ``x`` copied from *depth* under the
    stack's top, the globals (the constant after the hook's) when *depth* is
    0, or the cell *access* reaches when *depth* is -1."""
    position = access.position
    call = [Instruction(i.opcode, i.arg, i.caches, position) for i in _CALL]
    call[_CALL_LOAD].opcode, call[_CALL_LOAD].arg = _LOAD_CONST, const
    at = next(n for n, i in enumerate(call) if i.name in ("PRECALL", "CALL"))
    if depth < 0:
        argument = Instruction(_LOAD_CELL, access.arg, 0, position)
    elif depth == 0:
        argument = Instruction(_LOAD_CONST, const + 1, 0, position)
    else:
        argument = Instruction(_COPY, depth + 2, 0, position)
    call.insert(at, argument)
    for instruction in call[at + 1:-1]:
        instruction.arg = 1
    return call

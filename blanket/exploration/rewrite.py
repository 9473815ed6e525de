"""The rewrite: a code object with a call to a :class:`~blanket.exploration.sites.Site`
before each access to shared state, and one to a
:class:`~blanket.exploration.ccalls.CallSite` before each call.

Before every attribute, subscript and global load, store or delete, every
``in``, every ``iter()`` and every test of an object's truth (``if x:``,
``not x``), the inserted call hands the object about to be
accessed to the instruction's site (and a subscript's key); a closure's
variable is its cell. Before every call the call's site gets the callable
and the first two positional arguments, and puts what
``blanket.exploration.sites.call_target`` gives in the callable's
place. The rewritten code is made once per code object and globals, and
kept.
"""

from __future__ import annotations

import dis
import sys
import types
from typing import Any

from .._bytecode import Assembly, Instruction, call_template, constant_call
from .ccalls import ITEM_HOOKS, CallSite, ContainsSite, ItemSite, IterSite, MethodSite, TruthSite
from .realprims import METHODS as PRIMITIVE_METHODS
from .sites import ATTRIBUTE_HOOKS, AttributeSite, GlobalSite, Site, use_target

_NAME_SHIFT = 0 if sys.version_info < (3, 12) else 1

# Per opcode: whether it writes, how deep under the top of the stack the
# accessed object is (0: the function's globals, -1: a cell), and how its
# argument gives the attribute or global name (None: a container access,
# or for a cell its variable's name).
_OPCODES: dict[str, tuple[bool, int, int | None]] = {
    "LOAD_ATTR": (False, 1, _NAME_SHIFT),
    "LOAD_METHOD": (False, 1, 0),
    "LOAD_SUPER_ATTR": (False, 1, 2),  # (3.12) self is on top
    "STORE_ATTR": (True, 1, 0),
    "DELETE_ATTR": (True, 1, 0),
    "BINARY_SUBSCR": (False, 2, None),
    "STORE_SUBSCR": (True, 2, None),
    "DELETE_SUBSCR": (True, 2, None),
    "BINARY_SLICE": (False, 3, None),
    "STORE_SLICE": (True, 3, None),
    "CONTAINS_OP": (False, 1, None),
    "LOAD_GLOBAL": (False, 0, 1),
    "STORE_GLOBAL": (True, 0, 0),
    "DELETE_GLOBAL": (True, 0, 0),
    # A closure's variable: the cell (depth -1), named by the variable.
    "LOAD_DEREF": (False, -1, None),
    "STORE_DEREF": (True, -1, None),
    "DELETE_DEREF": (True, -1, None),
}

_ITEMS = frozenset({"BINARY_SUBSCR", "STORE_SUBSCR", "DELETE_SUBSCR"})
# What tests the truth of the object on top of the stack (3.13 converts it
# first, TO_BOOL, then jumps or negates a bool). Identity tests (``is None``)
# look at no state.
_TRUTH_TESTS = frozenset(
    {"TO_BOOL"} if sys.version_info >= (3, 13) else
    {"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "UNARY_NOT"} if sys.version_info >= (3, 12) else
    {"POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_FALSE",
     "POP_JUMP_BACKWARD_IF_TRUE", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP", "UNARY_NOT"})
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
    callees = _callees(assembly.instructions, code.co_consts)
    use: int | None = None  # the constant index of use_target, once needed
    index = 0
    while index < len(assembly.instructions):
        instruction = assembly.instructions[index]
        inserted: list[Instruction] = []
        callee = callees.get(instruction)
        if callee is not None:
            call = CallSite(code.co_qualname, code.co_filename, instruction.position[0], scope)
            sites.append(call)
            inserted = _replace(len(consts), instruction, *callee)
            consts.append(call.target)
        if _uses_primitive(instruction, code.co_names):
            # A real primitive about to be entered, or its method loaded: the
            # adopting scenario's twin instead (blanket.exploration.realprims).
            if use is None:
                use = len(consts)
                consts.append(use_target)
            inserted += _replace(use, instruction, 1, [])
        if instruction.name == "GET_ITER":  # what the loop goes over, replaced
            stepped = IterSite(code.co_qualname, code.co_filename, instruction.position[0],
                               scope)
            sites.append(stepped)
            inserted += _replace(len(consts), instruction, 1, [])
            consts.append(stepped.iterate)
        if instruction.name in _TRUTH_TESTS:
            tested = TruthSite(code.co_qualname, code.co_filename, instruction.position[0], scope)
            sites.append(tested)
            inserted += _call(len(consts), instruction, 1)
            consts.append(tested.hit)
        spec = _OPCODES.get(instruction.name)
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
        where = (code.co_qualname, code.co_filename, instruction.position[0], scope)
        site: Site
        if name is not None and _loads_method(instruction):
            site = MethodSite(name, *where, instruction.name == "LOAD_SUPER_ATTR")
        elif instruction.name in _ITEMS:
            site = ItemSite(ITEM_HOOKS[instruction.name], write, *where)
        elif instruction.name == "CONTAINS_OP":
            site = ContainsSite(*where)
        elif instruction.name in ATTRIBUTE_HOOKS:
            site = AttributeSite(ATTRIBUTE_HOOKS[instruction.name], name, *where)
        elif write and depth == 0 and name is not None:
            site = GlobalSite(instruction.name == "DELETE_GLOBAL", name, *where)
        else:
            site = Site(write, name, depth, *where)
        sites.append(site)
        # An item's key is on top, over its container; the key an "in"
        # looks for is under it.
        inserted += _call(len(consts), instruction, depth,
                          *([1] if isinstance(site, ItemSite) else
                            [2] if isinstance(site, ContainsSite) else []))
        consts.append(site.hit)
        if depth == 0:
            consts.append(scope)
        assembly.insert(index, inserted)
        index += len(inserted) + 1
    new = assembly.code(co_consts=tuple(consts), co_stacksize=code.co_stacksize + 5)
    _rewritten[(id(code), id(scope))] = (code, new, sites)
    return new, sites


# The code with a prologue, per code object and hook (both kept alive with
# it, so that the ids are not reused).
_prologued: dict[tuple[int, int], tuple[types.CodeType, object, types.CodeType]] = {}


def prologue(code: types.CodeType, hook: object) -> types.CodeType:
    """*code* calling *hook* (no arguments, its result dropped) once at its
    start, past the prologue the interpreter needs first (its ``RESUME``).
    (No jump lands there: 3.11 to 3.13 put a ``NOP`` first where a loop
    starts a function.)"""
    key = (id(code), id(hook))
    cached = _prologued.get(key)
    if cached is not None:
        return cached[2]
    consts = (*code.co_consts, hook)
    assembly = Assembly.of(code)
    start = next(n for n, i in enumerate(assembly.instructions) if i.name == "RESUME") + 1
    assembly.insert(start, constant_call(len(consts) - 1, assembly.instructions[start]))
    new = assembly.code(co_consts=consts, co_stacksize=code.co_stacksize + 2)
    _prologued[key] = (code, hook, new)
    return new


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


def _callees(instructions: list[Instruction], consts: tuple[object, ...]
             ) -> dict[Instruction, tuple[int, list[int]]]:
    """Where each call's callable is replaced by what its
    :class:`~blanket.exploration.ccalls.CallSite` gives: the instruction to
    insert the replacement before (a call, or the ``KW_NAMES`` that must come
    right before it), how deep the callable is under the stack's top there,
    and how deep its first two positional arguments are (those it has, and
    none for ``CALL_FUNCTION_EX`` or keywords' names not known). On 3.11 and
    3.12 a method call's slot holds ``self``, which is never a maker: it
    stays."""
    found: dict[Instruction, tuple[int, list[int]]] = {}
    for n, instruction in enumerate(instructions):
        at = _CALLEE_AT.get(instruction.name)
        if at is None:
            continue
        depth = (instruction.arg & at[0]) + at[1]
        before = instructions[n - 1]
        count, names = instruction.arg, before.name == "LOAD_CONST"
        if instruction.name == "CALL_FUNCTION_EX" or \
                (instruction.name == "CALL_KW" and not names):
            count = 0
        elif instruction.name == "CALL_KW" or before.name == "KW_NAMES":
            count -= len(consts[before.arg])  # type: ignore[arg-type]
        # The first argument is as deep as the count (CALL_KW's names on top).
        first = instruction.arg + (instruction.name == "CALL_KW")
        found[before if before.name == "KW_NAMES" else instruction] = (
            depth, [first - i for i in range(min(count, 2))])
    return found


def _replace(const: int, before: Instruction, depth: int, arguments: list[int]
             ) -> list[Instruction]:
    """The stack's item *depth* deep replaced by ``hook(item, *args)`` (the
    constant *const*), *args* copied from *arguments* deep, before *before*."""
    call = _call(const, before, depth, *arguments)
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


def _loads_method(instruction: Instruction) -> bool:
    """Whether *instruction* loads a method for the call that follows."""
    name = instruction.name
    return name == "LOAD_METHOD" or (name in ("LOAD_ATTR", "LOAD_SUPER_ATTR")
                                      and bool(_NAME_SHIFT) and bool(instruction.arg & 1))


def _call(const: int, access: Instruction, depth: int, *more: int) -> list[Instruction]:
    """``hook(x, ...)`` (the constant *const*) before *access*, with ``x``
    copied from *depth* under the stack's top, the globals (the constant
    after the hook's) when *depth* is 0, or the cell *access* reaches when
    *depth* is -1; and an argument copied from each of *more* deep."""
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
    # Each argument copied is one more item above those it copies from.
    arguments = [argument, *(Instruction(_COPY, deep + 3 + n, 0, position)
                             for n, deep in enumerate(more))]
    call[at:at] = arguments
    for instruction in call[at + len(arguments):-1]:
        instruction.arg = len(arguments)
    return call

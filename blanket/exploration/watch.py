"""Watched code: functions whose accesses to shared state report themselves.

``scenario.instrument(target, ...)`` names the code to watch (functions,
methods, classes, modules); inside an exploration the targets of
``scenario.thread`` are watched too. While the scenario is entered each
watched function runs a rewritten copy of its code object (the original is
put back when the scenario exits): before every attribute, subscript and
global load, store or delete, every ``in`` and every ``iter()``, a call
hands the object about to be accessed to a :class:`Site` (one per
instruction); a closure's variable is its cell. A site records the access
(``Access``) in a list that only its thread appends to, flat: five
items an access, so that recording allocates nothing the garbage collector
tracks. :mod:`blanket.exploration.races` reads the lists once the threads have
finished. Loads of the methods of ``list``, ``dict``,
``set`` and ``deque`` that read or change the container count as accesses
to the container.

Before every call, too, the callable is checked (one dictionary look-up
by its id): one of ``threading``'s makers (``Thread``, the primitive
classes, ``_thread.allocate_lock``) becomes the scenario's own when it
adopts (:mod:`blanket.exploration.adopt`).

A site :func:`blanket.explore` found racing is *racy*: there the access first
parks as a call on a :class:`Memory` stand-in, a step the scheduler chooses
like any other (``A: write Counter.count``).

Not watched: local variables, code that is not named,
frames already running when the code was swapped, and threads blanket did
not start.
"""

from __future__ import annotations

import _thread
import collections
import dis
import functools
import os
import sys
import threading
import types
import typing
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .._bytecode import Assembly, Instruction, call_template
from ..transaction import CallSpec

if TYPE_CHECKING:  # pragma: no cover
    from ..core import ScenarioCore

_local = threading.local()
#: The watch of each entered scenario that has one, by its core.
watches: dict[object, Watch] = {}
_NAME_SHIFT = 0 if sys.version_info < (3, 12) else 1
# The files of code never watched: blanket's own, and threading's.
#: The folder of blanket's own code (the package, this module's parent's).
BLANKET_FOLDER = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_UNWATCHED = (BLANKET_FOLDER, threading.__file__)

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

_READS = {"copy", "count", "index", "get", "items", "keys", "values", "isdisjoint",
          "issubset", "issuperset", "union", "intersection", "difference",
          "symmetric_difference", "__len__", "__contains__", "__iter__", "__getitem__"}
_WRITES = {"append", "appendleft", "extend", "extendleft", "insert", "pop", "popleft",
           "popitem", "remove", "clear", "sort", "reverse", "rotate", "setdefault",
           "update", "add", "discard", "difference_update", "intersection_update",
           "symmetric_difference_update", "__setitem__", "__delitem__"}
#: The containers whose methods are accesses: their method names that read
#: or change them.
CONTAINERS: dict[type, tuple[frozenset[str], frozenset[str]]] = {
    kind: (frozenset(n for n in _READS if hasattr(kind, n)),
           frozenset(n for n in _WRITES if hasattr(kind, n)))
    for kind in (list, dict, set, collections.deque)}
_METHOD_NAMES = _READS | _WRITES
# Builtins that read the container they are given as their one argument.
_READERS = frozenset({"len", "sorted", "list", "tuple", "set", "frozenset", "dict", "sum",
                      "min", "max", "any", "all", "bool", "reversed", "enumerate", "iter"})


# The callables that make threads and primitives, by id (a callee need not
# be hashable): what a call in watched code makes the scenario's own when
# the scenario adopts (see blanket.exploration.adopt).
_MAKERS: dict[int, str] = {
    id(maker): kind for maker, kind in (
        (_thread.allocate_lock, "Lock"), (_thread.RLock, "RLock"),
        *((getattr(threading, kind), kind) for kind in (
            "Thread", "Lock", "RLock", "Condition", "Semaphore", "BoundedSemaphore",
            "Event", "Barrier")))}


@typing.no_type_check  # (typeguard stays off it: it runs at every call)
def _callee(callee: object, _kind_of: Any = _MAKERS.get, _id: Any = id) -> object:
    """What a call in watched code calls instead of *callee*: the adopting
    scenario's maker when *callee* is ``threading``'s, else *callee*. (Run
    before every call of watched code: one dictionary look-up; the look-ups
    of the global names are saved as defaults.)"""
    kind = _kind_of(_id(callee))
    return callee if kind is None else _maker(kind, callee)


def _maker(kind: str, callee: object) -> object:
    """The maker of *kind* of the calling thread's scenario, if it adopts
    and is entered; else *callee* itself."""
    try:
        state = _local.state
    except AttributeError:
        state = _adopt()
    if state is None:
        return callee
    watch = state[1]
    if not watch.makers or not watch.core.regulated:
        return callee
    return watch.makers[kind]


class Site:
    """One watched instruction: what it does and where it is."""

    __slots__ = ("write", "name", "depth", "function", "file", "line", "racy", "scope")

    def __init__(self, write: bool, name: str | None, depth: int, function: str,
                 file: str, line: int | None, scope: dict[str, Any]) -> None:
        #: Whether the access changes what it reaches.
        self.write = write
        #: The attribute or global name; ``None`` for a container access.
        self.name = name
        self.depth = depth
        #: The qualified name of the function the instruction is in.
        self.function = function
        self.file = file
        self.line = line
        #: Whether the access parks first, as a step of the schedule.
        self.racy = False
        self.scope = scope

    @property
    def where(self) -> str:
        """``file:line`` of the access."""
        return f"{self.file}:{self.line}"

    @property
    def place(self) -> str:
        """``file:line`` of the access as steps name it, the file by its
        module's path (``tests/race_bugs.py:40``, see :func:`module_path`):
        the same wherever the code is installed, yet two files of one name
        in two packages are told apart."""
        return f"{module_path(self.file, self.scope)}:{self.line}"

    def hit(self, target: object) -> None:
        """The access is about to happen to *target*: record it."""
        _record(self, target, self.name, self.write)

    def __repr__(self) -> str:
        verb = "write" if self.write else "read"
        return f"<Site {verb} {self.name or 'item'} at {self.where}>"


@functools.cache
def _module_path(file: str, module: str) -> str:
    parts = file.replace(os.sep, "/").split("/")
    # One part of the path per part of the module's name; a package's own
    # module (its __init__.py) one more, for the package's folder.
    count = module.count(".") + 1 + (parts[-1].startswith("__init__."))
    return "/".join(parts[-count:])


def module_path(file: str, scope: dict[str, Any]) -> str:
    """The end of *file*'s path that its module's name (*scope*'s
    ``__name__``) spans: ``tests/race_bugs.py`` for the module
    ``tests.race_bugs``, the file's name for a top-level module or a script
    (``python -m package.module`` keeps the module's name in ``__spec__``)."""
    module = str(scope.get("__name__", ""))
    spec = scope.get("__spec__")
    if module == "__main__" and spec is not None:
        module = str(spec.name)
    return _module_path(file, module)


class MethodSite(Site):
    """A load of an attribute named like a container method: on a ``list``,
    ``dict``, ``set`` or ``deque`` it is an access to the container."""

    __slots__ = ()

    def hit(self, target: object) -> None:
        """Record the access: to the container, or to the attribute."""
        methods = CONTAINERS.get(type(target))
        if methods is None or self.name not in methods[0] | methods[1]:
            _record(self, target, self.name, self.write)
        else:
            _record(self, target, None, self.name in methods[1])


def _record(site: Site, target: object, name: str | None, write: bool) -> None:
    """Record the access in the calling thread's list; park a racy one."""
    try:
        state = _local.state
    except AttributeError:
        state = _adopt()
    if state is not None:
        state[0].extend((site, target, name, write, state[1].epoch))
        if site.racy:
            state[1].park(site, target, name, write)


class ArgumentSite(Site):
    """The argument of a builtin that reads what it is given (``len(x)``,
    ``sorted(x)``, ...): a read of a ``list``, ``dict``, ``set`` or
    ``deque``."""

    __slots__ = ()

    def hit(self, target: object) -> None:
        """Record a read of *target* if it is one of those containers."""
        if type(target) in CONTAINERS:
            _record(self, target, None, False)


#: ``(site, object, name, write, epoch)``: one access as a thread records it.
Access = tuple[Site, object, str | None, bool, int]


def accesses(record: list[Any]) -> Iterator[Access]:
    """The accesses in a thread's flat *record*."""
    items = iter(record)
    return zip(items, items, items, items, items, strict=True)


def _adopt() -> tuple[list[Any], Watch] | None:
    """The calling thread's record, made on its first access: threads of a
    scenario that watches record, others (the scheduler) do not."""
    thread = threading.current_thread()
    watch = watches.get(getattr(thread, "_blanket_core", None))
    state = None if watch is None else watch.join(thread)
    _local.state = state
    return state


def describe(target: object, name: str | None, site: Site) -> str:
    """What an access reaches, for steps and reports: ``Counter.count``,
    ``module.name`` for a global, ``dict`` for a container, the variable's
    name for a closure's."""
    if name is None:
        return type(target).__name__
    if site.depth < 0:  # a closure's variable
        return name
    if site.depth == 0:
        return f"{site.scope.get('__name__', '?')}.{name}"
    if isinstance(target, (type, types.ModuleType)):
        return f"{target.__name__}.{name}"
    return f"{type(target).__name__}.{name}"


class Memory:
    """The stand-in a racy access parks on: a primitive for the scheduler,
    named by what the access reaches (``Counter.count``); one per place in
    the code (:attr:`where`)."""

    __slots__ = ("_name", "_label", "_real", "where", "__weakref__")
    _kind = "Memory"

    def __init__(self, label: str, where: str) -> None:
        self._name = self._label = label
        self._real = None
        #: The access's :attr:`Site.place` (``"pkg/cache.py:14"``).
        self.where = where

    def __repr__(self) -> str:
        return f"<blanket.Memory {self._name!r} at {self.where}>"


_SPECS = {False: CallSpec("Memory", "read"), True: CallSpec("Memory", "write")}


def _nothing() -> None:
    """The "real call" of a parked access: the access itself runs after."""


class Watch:
    """What one scenario watches, and what its threads recorded."""

    def __init__(self, core: ScenarioCore) -> None:
        self.core = core
        #: The functions to watch while the scenario is entered.
        self.functions: dict[types.FunctionType, None] = {}
        #: Whether the targets of ``scenario.thread`` are watched.
        self.follow_threads = False
        #: The sites where accesses park (set by the exploration).
        self.racy: set[Site] = set()
        #: A replay's racy accesses, by meaning: ``(verb, what, place)``, e.g.
        #: ``("write", "Counter.count", "shop/bank.py:12")``. When given, the sites
        #: at those places park, and only for those accesses.
        self.parks: set[tuple[str, str, str]] = set()
        #: What calls of ``threading``'s makers in watched code make instead,
        #: by kind ("Thread", "Lock", ...); empty unless the scenario adopts
        #: (see :mod:`blanket.exploration.adopt`).
        self.makers: dict[str, Callable[..., Any]] = {}
        #: The exploration's current step, which each access is tagged with.
        self.epoch = -1
        #: Each thread's accesses, in the order threads made their first.
        self.records: list[tuple[threading.Thread, list[Any]]] = []
        self._memory: dict[tuple[str, str], Memory] = {}
        self._installed: list[tuple[types.FunctionType, types.CodeType]] = []
        # The sites made racy while entered, to be put back on exit.
        self._parking: list[Site] = []

    def add(self, *targets: object) -> None:
        """Watch *targets*: functions, methods, classes (their functions) and
        modules (the functions and classes defined in them)."""
        for target in targets:
            functions = list(_functions(target))
            if not functions:
                raise TypeError(
                    f"instrument takes functions, methods, classes and modules; "
                    f"{target!r} has no Python function to watch")
            self._watch(functions)

    def follow(self, target: object) -> None:
        """Watch the Python functions of a thread's *target*, if it has any."""
        self._watch(list(_functions(target)))

    def _watch(self, functions: list[types.FunctionType]) -> None:
        # blanket's own code and threading's are never watched: blanket
        # runs them itself (a thread's target may be a primitive's method).
        new = [f for f in functions if f not in self.functions
               and not f.__code__.co_filename.startswith(_UNWATCHED)]
        self.functions.update(dict.fromkeys(new))
        if watches.get(self.core) is self:  # entered: at once
            self._install(new)

    def install(self) -> None:
        """Swap the rewritten code in (the scenario is being entered)."""
        self.records = []
        self.epoch = -1
        watches[self.core] = self
        self._install(list(self.functions))

    def _install(self, functions: list[types.FunctionType]) -> None:
        for function in functions:
            original = function.__code__
            function.__code__, sites = rewrite(original, function.__globals__)
            self._installed.append((function, original))
            places = {place for _, _, place in self.parks}
            for site in sites:
                site.racy = site in self.racy or site.place in places
                if site.racy:
                    self._parking.append(site)

    def restore(self) -> None:
        """Put every original code object back (the scenario exits)."""
        watches.pop(self.core, None)
        while self._installed:
            function, original = self._installed.pop()
            function.__code__ = original
        while self._parking:
            self._parking.pop().racy = False

    def join(self, thread: threading.Thread) -> tuple[list[Any], Watch]:
        """A new list for *thread*'s accesses."""
        record: list[Any] = []
        with self.core.lock:
            self.records.append((thread, record))
        return record, self

    def park(self, site: Site, target: object, name: str | None, write: bool) -> None:
        """Park the access as a call, for the scheduler to let go."""
        label = describe(target, name, site)
        place = site.place
        if self.parks and ("write" if write else "read", label, place) not in self.parks:
            return  # the replay's site, reaching something its schedule does not name
        with self.core.lock:
            memory = self._memory.get((label, place))
            if memory is None:
                memory = self._memory[(label, place)] = Memory(label, place)
        self.core.run(memory, _SPECS[write], (), _nothing)


def _functions(target: object) -> Iterator[types.FunctionType]:
    """The Python functions *target* names (a ``functools.partial``'s)."""
    while type(target) is functools.partial:  # not a primitive's SwitchedMethod
        target = target.func
    target = getattr(target, "__func__", target)
    if isinstance(target, types.FunctionType):
        yield target
    elif isinstance(target, type):
        for value in vars(target).values():
            if isinstance(value, property):
                values = [value.fget, value.fset, value.fdel]
            else:
                values = [getattr(value, "__func__", value)]
            yield from (v for v in values if isinstance(v, types.FunctionType))
    elif isinstance(target, types.ModuleType):
        for value in vars(target).values():
            if getattr(value, "__module__", None) == target.__name__ and \
                    isinstance(value, (type, types.FunctionType)):
                yield from _functions(value)


# -- the rewrite ------------------------------------------------------------------

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
    """*code* with a call to a :class:`Site` before each access to shared
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
    swap: int | None = None  # the constant index of _callee, once needed
    index = 0
    while index < len(assembly.instructions):
        instruction = assembly.instructions[index]
        inserted: list[Instruction] = []
        callee_depth = callees.get(instruction)
        if callee_depth is not None:
            if swap is None:
                swap = len(consts)
                consts.append(_callee)
            inserted = _replace(swap, instruction, callee_depth)
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
        elif name in _METHOD_NAMES and depth > 0:
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
    """Where each call's callable is replaced by what :func:`_callee` gives:
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
    """The stack's item *depth* deep replaced by ``_callee(item)`` (the
    constant *const*), before *before*."""
    call = _call(_callee, const, before, depth)
    call[-1:] = [Instruction(_SWAP, depth + 1, 0, before.position),
                 Instruction(_POP_TOP, 0, 0, before.position)]
    return call


def _reader_calls(instructions: list[Instruction], names: tuple[str, ...]
                  ) -> set[Instruction]:
    """The calls of a reading builtin with one argument (``len(x)``): the
    instruction that starts each call (``PRECALL`` on 3.11), when nothing
    but loads come between the builtin's load and the call."""
    found: set[Instruction] = set()
    for n, instruction in enumerate(instructions):
        if instruction.name != "LOAD_GLOBAL" or names[instruction.arg >> 1] not in _READERS:
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

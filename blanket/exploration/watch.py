"""Watched code: functions whose accesses to shared state report themselves.

``scenario.instrument(target, ...)`` names the code to watch (functions,
methods, classes, modules); inside an exploration the targets of
``scenario.thread`` are watched too, and every Python function they run,
transitively (:class:`Transitive`). While the scenario is entered each
watched function runs a rewritten copy of its code object (the original is
put back when the scenario exits): before every attribute, subscript and
global load, store or delete, every ``in`` and every ``iter()``, a call
hands the object about to be accessed to a :class:`~blanket.exploration.sites.Site` (one per
instruction); a closure's variable is its cell. A site records the access
(``Access``) in a list that only its thread appends to, flat: five
items an access, so that recording allocates nothing the garbage collector
tracks. :mod:`blanket.exploration.races` reads the lists once the threads have
finished. A call into C code on a mutable object (a C method, or a C
function given the object) is an access of the object
(:mod:`blanket.exploration.ccalls`).

Before every call, too, the callable is checked
(:func:`~blanket.exploration.sites.call_target`): one of ``threading``'s
makers (``Thread``, the primitive classes, ``_thread.allocate_lock``)
becomes the scenario's own when it adopts (:mod:`blanket.exploration.adopt`),
and in an exploration a Python callee not yet watched is watched before
the call runs.

A site :func:`blanket.explore` found racing is *racy*: there the access first
parks as a call on a :class:`Memory` stand-in, a
step the scheduler chooses like any other (``A: write Counter.count``).

Not watched: local variables, code that is not named (outside an
exploration) or excluded (see :class:`Transitive`), frames already running when
the code was swapped, and threads blanket did not start.
"""

from __future__ import annotations

import dis
import inspect
import os
import sys
import threading
import types
import typing
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..core import unwatched
from ..transaction import CallSpec
from . import monitor
from .namespaces import functions_in, functions_of, wrapper
from .places import BLANKET_FOLDER, UNWATCHED, module_path
from .rewrite import prologue, rewrite
from .sites import (
    ADDS,
    SETTLED,
    Member,
    Site,
    WrapperEntered,
    describe,
    watches,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..core import ScenarioCore

#: The modules never watched either (besides the files of ``UNWATCHED``):
#: the import system (imports are serialized by its own locks, each is one
#: step of the importing thread), and weak references' bookkeeping, which
#: the garbage collector runs in whichever thread it is in.
NEVER = ("importlib._bootstrap", "importlib._bootstrap_external", "weakref", "_weakrefset")
# Where the standard library's Python code is.
_STDLIB = os.path.dirname(os.__file__) + os.sep


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
        #: What an exploration watches beyond what is named: the Python
        #: functions the watched code calls (see :class:`Transitive`); ``None``
        #: outside an exploration or a replay (only what is named).
        self.transitive: Transitive | None = None
        #: The exploration's current step, which each access is tagged with.
        self.epoch = -1
        #: Each thread's accesses, in the order threads made their first.
        self.records: list[tuple[threading.Thread, list[Any]]] = []
        self._memory: dict[tuple[str, str], Memory] = {}
        self._installed: list[tuple[types.FunctionType, types.CodeType]] = []
        #: What each thread's latest parked access reaches: the object's id
        #: (kept alive by the thread's record) and the name or key.
        self.reaching: dict[threading.Thread, tuple[int, object]] = {}
        # The sites made racy while entered, to be put back on exit.
        self._parking: list[Site] = []

    def add(self, *targets: object) -> None:
        """Watch *targets*: functions, methods, classes (their functions) and
        modules (the functions and classes defined in them)."""
        for target in targets:
            functions = list(functions_in(target))
            if not functions:
                raise TypeError(
                    f"instrument takes functions, methods, classes and modules; "
                    f"{target!r} has no Python function to watch")
            self._watch(functions)

    def follow(self, target: object) -> None:
        """Watch the Python functions of a thread's *target*, if it has any."""
        self._watch(list(functions_in(target)))

    def _watch(self, functions: list[types.FunctionType]) -> None:
        # blanket's own code and threading's are never watched: blanket
        # runs them itself (a thread's target may be a primitive's method).
        new = [f for f in functions if f not in self.functions
               and not f.__code__.co_filename.startswith(UNWATCHED)]
        self.functions.update(dict.fromkeys(new))
        if watches.get(self.core) is self:  # entered: at once
            self._install(new)

    # (typeguard stays off the functions a thread runs when it meets code
    # not watched yet: their checks would run the standard library's Python
    # code (abc, typing) in the thread, on blanket's behalf, and that code,
    # met first so, could not be watched when the thread's own code calls it.)
    @typing.no_type_check
    def reached(self, function: types.FunctionType) -> None:
        """*function*, whose code is not rewritten, is about to be called by
        watched code in one of the scenario's threads: watch it first (so
        that this very call runs watched code), unless :attr:`transitive` says
        not to."""
        transitive = self.transitive
        if transitive is None or not transitive.watches(function):
            return
        with self.core.lock:  # two threads may meet it at once (3.13t)
            if watches.get(self.core) is self and id(function.__code__) not in SETTLED:
                self.functions.pop(function, None)  # (its code was put back by hand)
                # With the thread's profile off: the rewriting is blanket's
                # own work, and what it calls (the standard library's Python
                # code, a checker's) is no code of the thread's to be met.
                # (Its events, where they come from sys.monitoring: paused.)
                monitor.paused(unwatched, sys.getprofile(), self._watch, [function])

    def install(self) -> None:
        """Swap the rewritten code in (the scenario is being entered)."""
        self.records = []
        self.epoch = -1
        if self.transitive is not None:  # what earlier runs met running unwatched
            self.functions.update(self.transitive.found)
            self.transitive.entered = self
            self.transitive.entries += 1
        watches[self.core] = self
        self._install(list(self.functions))

    def _install(self, functions: list[types.FunctionType]) -> None:
        places = {place for _, _, place in self.parks}
        for function in functions:
            original = function.__code__
            function.__code__, sites = rewrite(original, function.__globals__)
            kept_in = wrapper(function)
            if kept_in is not None:  # its calls are C code's: named at each start
                function.__code__ = prologue(function.__code__, _entered(kept_in))
            _settle(function.__code__)
            self._installed.append((function, original))
            for site in sites:
                site.racy = site in self.racy or site.place in places
                if site.racy:
                    self._parking.append(site)

    def restore(self) -> None:
        """Put every original code object back (the scenario exits)."""
        watches.pop(self.core, None)
        if self.transitive is not None:
            self.transitive.entered = None
        restore = self.makers.get("restore")
        if restore is not None:  # the real primitives twinned, as they were
            restore()  # (see blanket.exploration.realprims)
        while self._installed:
            function, original = self._installed.pop()
            function.__code__ = original
        while self._parking:
            self._parking.pop().racy = False

    def park_at(self, site: Site) -> None:
        """Make *site* park from now on, while the scenario is entered
        (see ``blanket.exploration.spins.FreeSpins``)."""
        site.racy = True
        self._parking.append(site)

    def join(self, thread: threading.Thread) -> tuple[list[Any], Watch]:
        """A new list for *thread*'s accesses."""
        record: list[Any] = []
        with self.core.lock:
            self.records.append((thread, record))
        return record, self

    # (typeguard stays off it: its check of *callee* would ask the object.)
    @typing.no_type_check
    def opaque(self, callee: object, caller: types.FrameType | None = None) -> None:
        """Watched code in one of the scenario's threads is about to call
        *callee*, an instance of a C type blanket knows nothing of (or
        *caller*, not watched, called it: see
        :class:`~blanket.exploration.sites.WrapperEntered`): in an
        exploration, a gap, named once per type and place (what the C code
        does is watched by nobody: ``functools.lru_cache``'s wrapper looks
        its cache up, calls the function, stores the result, and two
        threads can both miss)."""
        transitive = self.transitive
        if transitive is None:
            return
        frame = sys._getframe(1) if caller is None else caller
        while frame.f_code.co_filename.startswith(BLANKET_FOLDER):
            frame = frame.f_back
        kind = type(callee)
        named = f"{kind.__module__}.{kind.__qualname__}"
        try:  # (the function an lru_cache wraps, as a C callable names itself)
            wrapped = object.__getattribute__(callee, "__qualname__")
        except AttributeError:
            wrapped = None
        if isinstance(wrapped, str):
            named += f" of {wrapped}"
        place = f"{module_path(frame.f_code.co_filename, frame.f_globals)}:{frame.f_lineno}"
        transitive.notes.setdefault(
            f"{kind.__module__}.{kind.__qualname__} {place}",
            f"C callable {named} called at {place}: what its C code does (its own state, "
            "what it reads and changes, the Python code it calls back) is not watched")

    # (typeguard stays off it: its check of *target* would ask the object
    # itself, whose own __getattribute__ may be watched code that parks here.)
    @typing.no_type_check
    def park(self, site: Site, target: object, name: Member, write: bool,
             keys: bool = False) -> None:
        """Park the access as a call, for the scheduler to let go (*keys*: a
        write that adds or removes the attribute, see
        :func:`~blanket.exploration.sites.record_keys`)."""
        label = describe(target, name, site)
        place = site.place
        if self.parks and ("write" if write else "read", label, place) not in self.parks:
            return  # the replay's site, reaching something its schedule does not name
        with self.core.lock:
            key = (label, place, keys)  # (not get: see the note at the top of blanket.core)
            memory = self._memory[key] if key in self._memory else None
            if memory is None:
                memory = self._memory[key] = Memory(label, place, keys)
        # What exactly it reaches (the object and the name or key), for
        # telling a thread that reads the same again (blanket.exploration.spins).
        self.reaching[threading.current_thread()] = (id(target), name)
        self.core.run(memory, _SPECS[write], (), _nothing)


def _settle(code: types.CodeType) -> None:
    """Add the rewritten *code* and the code nested in it (a closure's,
    a lambda's: rewritten with it) to ``SETTLED``."""
    if id(code) not in SETTLED:
        SETTLED[id(code)] = code
        for const in code.co_consts:
            if type(const) is types.CodeType:
                _settle(const)


class Transitive:
    """What an exploration watches besides the threads' targets and what
    ``scenario.instrument`` names: every Python function its threads run,
    but blanket's own, ``threading``'s, the import system's and what
    *exclude* names (module names, a name standing for its submodules too,
    modules and functions).

    A function called by watched code is watched before the call runs
    (:func:`blanket.exploration.sites.call_target`). One entered from C
    code (a property, ``__eq__``, a ``with`` block's ``__enter__``, a
    callback of ``sorted`` or ``map``, a generator resumed) ran unwatched:
    the managed thread's profile (``blanket.exploration.unseen``) finds
    it (:meth:`met`), and it is watched from the next run on, which the
    search starts afresh (:attr:`grown`).
    """

    def __init__(self, exclude: Iterable[object] = ()) -> None:
        modules: list[str] = []
        self._excluded: dict[int, tuple[types.CodeType, str]] = {}
        for entry in exclude:
            if isinstance(entry, str):
                modules.append(entry)
            elif isinstance(entry, types.ModuleType):
                modules.append(entry.__name__)
            else:
                functions = list(functions_in(entry)) if callable(entry) else []
                if not functions:
                    raise TypeError(f"exclude={entry!r}: expected module names, modules "
                                    "or functions")
                for function in functions:
                    self._excluded[id(function.__code__)] = (
                        function.__code__, f"{function.__module__}.{function.__qualname__}")
        self._modules = tuple(modules)
        #: The functions met running unwatched: watched from the next run on.
        self.found: dict[types.FunctionType, None] = {}
        #: Whether :attr:`found` grew since the search last asked.
        self.grown = False
        #: Each gap, once: what excluded code ran, what could not be watched.
        self.notes: dict[str, str] = {}
        #: The code objects not to watch, by id (each kept alive).
        self.judged: dict[int, types.CodeType] = {}
        #: The watch of the run going on (set while its scenario is entered),
        #: and how many runs were entered.
        self.entered: Watch | None = None
        self.entries = 0
        self._met: dict[int, types.CodeType] = {}
        # The run each code was first met in, by its number among the
        # entries (not its watch: the watch's records would keep what that
        # run made alive, seen by later runs' setups).
        self._met_in: dict[int, int | None] = {}
        self._sources: set[tuple[str, str, int, bytes]] = set()
        self._theirs: dict[int, types.CodeType] = {}

    @typing.no_type_check  # (see Watch.reached)
    def watches(self, function: types.FunctionType) -> bool:
        """Whether *function* is to be watched (what is not is judged once)."""
        code = function.__code__
        if id(code) in self._theirs:
            self._not_theirs(code, function.__globals__)
            return False
        return id(code) not in self.judged and self._watched(code, function.__globals__)

    def decided(self, code: types.CodeType) -> bool:
        """Whether the watch judged *code* not to be watched (excluded,
        named as a gap, or code blanket runs itself in the threads): what
        :mod:`blanket.exploration.witness` asks of code the threads ran
        that was not rewritten."""
        return id(code) in self.judged or id(code) in self._theirs

    @typing.no_type_check  # (see Watch.reached)
    def _not_theirs(self, code: types.CodeType, scope: dict[str, Any]) -> None:
        """Note *code*, which blanket runs itself in the threads, reached by
        the threads' own code: it is not watched."""
        place = _place(code, scope)
        self.notes.setdefault(place, f"not watched: {code.co_qualname} at {place}, "
                              "which blanket runs itself in the threads")

    @typing.no_type_check  # (see Watch.reached)
    def _watched(self, code: types.CodeType, scope: dict[str, Any]) -> bool:
        """Whether *code* (of a function whose globals are *scope*) is to be
        watched; if not, it is judged, and an exclusion noted."""
        excluded = self._exclusion(code, scope)
        if excluded is None:
            return True
        if not excluded:  # never watched, in any exploration
            SETTLED[id(code)] = code
            return False
        self.judged[id(code)] = code
        self.notes.setdefault(excluded, f"excluded from watching: {excluded} (first "
                              f"{code.co_qualname} at {_place(code, scope)})")
        return False

    @typing.no_type_check  # (see Watch.reached)
    def _exclusion(self, code: types.CodeType, scope: dict[str, Any]) -> str | None:
        """Why *code* is not watched: the exclusion it falls under, ``""``
        for blanket's own code, threading's and the import system's, or
        ``None`` when it is watched."""
        if code.co_filename.startswith(UNWATCHED):
            return ""
        module = str(scope.get("__name__", ""))
        # (Code made by exec in blanket's modules too, as dataclasses make __init__.)
        if module in NEVER or module.partition(".")[0] == "blanket":
            return ""
        for prefix in self._modules:
            if module == prefix or module.startswith(prefix + "."):
                return prefix
        excluded = self._excluded[id(code)] if id(code) in self._excluded else None
        return None if excluded is None else excluded[1]

    @typing.no_type_check  # (typeguard stays off it: it runs at calls of code not judged yet)
    def met(self, frame: types.FrameType) -> None:
        """*frame* runs code that is neither rewritten nor judged: the run
        did not watch it (C code called it). Watch its function at once and
        in the runs to come; code in no function, or in a function made
        anew in every run, cannot be watched so: a gap, noted."""
        code, scope = frame.f_code, frame.f_globals
        if id(code) in self._theirs:
            if not _blankets(frame):  # the threads' own code reached it (from C)
                self._not_theirs(code, scope)
            return
        if self._exclusion(code, scope) == "":  # never watched (weakref's, ...), whoever runs it
            SETTLED[id(code)] = code
            return
        if library(code.co_filename) and _blankets(frame):
            # The standard library, an installed package (a checker such as
            # typeguard) or code made by exec (a namedtuple's) as blanket or
            # threading run it for themselves (watched, its accesses would be
            # blanket's own): never watched, met again at each call (any
            # other caller's is a gap).
            self._theirs[id(code)] = code
            if _INSTALLED in code.co_filename:
                # A checker blanket runs at each of its own calls (typeguard):
                # judged for good, for the walk up the stack at each of its
                # calls made a typeguard-checked suite many times slower.
                self.judged[id(code)] = code
            return
        if not self._watched(code, scope):
            return
        place = _place(code, scope)
        # Met before: this is another function of that code (a closure made
        # anew in every run), or that code made anew (compiled in every run);
        # watching it from the next run on would restart the search forever.
        entry = None if self.entered is None else self.entries
        if id(code) in self._met and self._met_in[id(code)] == entry \
                and _resumed(frame):
            return  # a generator this run started unwatched: watched from the next run
        source = (code.co_filename, code.co_qualname, code.co_firstlineno, code.co_code)
        if id(code) in self._met or source in self._sources:
            self.judged[id(code)] = code
            self.notes.setdefault(place, f"function {code.co_qualname} at {place} ran "
                                  "unwatched: made anew in every run and called by code not "
                                  "watched (scenario.instrument it in the setup)")
            return
        self._met[id(code)] = code
        self._met_in[id(code)] = entry
        self._sources.add(source)
        # A module's or a class's body (run by exec, an import, a class
        # statement) is no function's: its code cannot be swapped.
        in_function = bool(code.co_flags & inspect.CO_NEWLOCALS)
        functions = functions_of(frame) if in_function else []
        if not functions:
            self.judged[id(code)] = code
            self.notes.setdefault(place, f"function {code.co_qualname} at {place} ran unwatched: "
                                  "not found to be watched (scenario.instrument it in the setup)"
                                  if in_function else "code outside any function ran unwatched: "
                                  f"{code.co_qualname} at {place}")
        for function in functions:
            self.found[function] = None
            self.grown = True
            if self.entered is not None:  # pragma: no branch - the profile runs entered
                self.entered.reached(function)


_RESUME = dis.opmap["RESUME"]


def _resumed(frame: types.FrameType) -> bool:
    """Whether *frame* is a generator's (or a coroutine's) resumed after a
    ``yield`` or an ``await``, not started (its RESUME's low bits say where)."""
    code = frame.f_code.co_code
    return code[frame.f_lasti] == _RESUME and code[frame.f_lasti + 1] & 3 != 0


#: The hook of each wrapper met, kept for its id (see
#: :func:`~blanket.exploration.rewrite.prologue`).
_ENTERED: dict[int, tuple[object, WrapperEntered]] = {}


def _entered(wrapper: object) -> WrapperEntered:
    """The one hook of *wrapper* (a prologue made once per hook)."""
    kept = _ENTERED.get(id(wrapper))  # (kept here, its id is not reused)
    if kept is None:
        kept = _ENTERED[id(wrapper)] = (wrapper, WrapperEntered(wrapper))
    return kept[1]


# What the path of an installed package's file has in it.
_INSTALLED = "-packages" + os.sep


@typing.no_type_check  # (typeguard stays off it: the witness asks it at calls in the threads)
def library(file: str) -> bool:
    """Whether *file* is the standard library's (frozen or not), an
    installed package's or made by exec (``<string>``)."""
    return file.startswith(("<", _STDLIB)) or _INSTALLED in file


#: The code of blanket's functions that call a managed thread's target
#: (filled by :mod:`blanket.exploration.unseen`): what they call is the
#: thread's own code, not blanket's, even when a C callable stands between
#: (a target made by ``functools.lru_cache`` calls a library's function).
TARGET_CALLERS: dict[int, types.CodeType] = {}


@typing.no_type_check  # (typeguard stays off it: it runs at calls of code not judged yet)
def _blankets(frame: types.FrameType) -> bool:
    """Whether blanket or threading called the code *frame* runs, through
    unwatched code only."""
    caller = frame.f_back
    while caller is not None:
        code = caller.f_code
        if code.co_filename.startswith(UNWATCHED):
            # (the call of a thread's target is the thread's own code's)
            return id(code) not in TARGET_CALLERS
        if id(code) in SETTLED:  # watched code (or the import system)
            return False
        caller = caller.f_back
    return False


def _place(code: types.CodeType, scope: dict[str, Any]) -> str:
    """Where *code* starts, the file by its module's path."""
    return f"{module_path(code.co_filename, scope)}:{code.co_firstlineno}"


class Memory:
    """The stand-in a racy access parks on: a primitive for the scheduler,
    named by what the access reaches (``Counter.count``); one per place in
    the code (:attr:`where`)."""

    __slots__ = ("_name", "_label", "_real", "where", "reach", "__weakref__")
    _kind = "Memory"

    def __init__(self, label: str, where: str, keys: bool = False) -> None:
        self._name = self._label = label
        self._real = None
        #: The access's :attr:`~blanket.exploration.sites.Site.place` (``"pkg/cache.py:14"``).
        self.where = where
        #: What the step reaches, for telling dependent steps apart (see
        #: :func:`blanket.exploration.races.overlap`): the label, marked
        #: with :data:`~blanket.exploration.sites.ADDS` where the write adds or removes an attribute
        #: (*keys*: see :func:`~blanket.exploration.sites.record_keys`).
        self.reach = label + ADDS if keys else label

    def __repr__(self) -> str:
        return f"<blanket.Memory {self._name!r} at {self.where}>"

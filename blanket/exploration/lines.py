"""Seeing lines run: a probe put into the code of each line asked about.

A line is named as steps and data races name places: ``file:line``, the
file by its module's path (``pkg/module.py:42``,
:func:`blanket.exploration.places.module_path`); :func:`resolve_file` names so
the file a path names (absolute, as coverage.py records it, or relative to
the current directory). :class:`Probes` finds the
Python functions of those files that are loaded (with the code nested in
them: a closure made later gets the probed code too) and, while it is
entered, swaps each one's code object for a copy with a probe before the
line's code: a call of ``HITS.add`` with the place, C code only, so that a
tracer (coverage's, a debugger's) sees nothing more than the line itself.
The probe goes before every stretch of the line's instructions that
control can enter: where the line starts, and every jump or exception
handler target on it, so whichever thread runs any of the line's code
records the place once in ``HITS``.

The same on every Python blanket runs on (3.11 has no ``sys.monitoring``,
and a trace function of our own would displace coverage's), and no cost at
all for the code and the searches that ask about no line.
"""

from __future__ import annotations

import dis
import functools
import gc
import inspect
import os
import sys
import types
from collections.abc import Iterable, Iterator

from .._bytecode import Assembly, constant_call
from ..interpreters import refuse_untested
from .places import module_path

#: The places whose probes ran since :meth:`Probes.take` last emptied it.
HITS: set[str] = set()

_RESUME = dis.opmap["RESUME"]
_OPTIMIZED = inspect.CO_OPTIMIZED  # a function's code; not a class body's, nor a module's
# Instructions the interpreter finds by their place, not by a jump: a
# loop's or a send's end (where FOR_ITER and SEND land, and step over), and
# what must follow its instruction at once.
_LANDINGS = frozenset({"END_FOR", "END_SEND"})
_GLUED = frozenset({"KW_NAMES", *(("END_FOR",) if sys.version_info >= (3, 13) else ())})
# Probed code per original code object and the lines probed (the original
# kept alive with it, so that the id is not reused): every search asking
# about one line runs the same code, which the watch's rewrite caches too.
_probed: dict[tuple[int, frozenset[int] | None],
              tuple[types.CodeType, types.CodeType, set[int]]] = {}


def place_of(function: types.FunctionType, line: int) -> str:
    """The place of *line* of *function*'s file, as steps name it."""
    return f"{module_path(function.__code__.co_filename, function.__globals__)}:{line}"


def split(place: str) -> tuple[str, int]:
    """``("pkg/module.py", 42)`` of ``"pkg/module.py:42"``; a
    :class:`ValueError` for text of another shape."""
    file, _, number = place.rpartition(":")
    if not file or not number.isdigit() or int(number) < 1:
        raise ValueError(f"{place!r}: expected 'file:line', e.g. 'pkg/module.py:42'")
    return file, int(number)


def resolve_file(file: str) -> str:
    """The file *file* names, as steps name it (by its module's path):
    *file* is that name itself (``pkg/module.py``), or the file's path,
    absolute (as coverage.py records it) or relative to the current
    directory (``./module.py``, ``src/pkg/module.py``), a link to it too.
    The file is looked for among the loaded modules' files, then among the
    loaded functions' (code compiled from no module's file). A
    :class:`ValueError` for a file of no loaded code (no search could see
    its lines run), or of two modules' code (a file imported under two
    names: which one's functions the threads run is the caller's to say)."""
    wanted = _identity(file)
    named: dict[str, None] = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(module, types.ModuleType) and isinstance(path, str):
            place = module_path(path, vars(module))
            if place == file or _identity(path) == wanted:
                named[place] = None
    if not named:
        for function in loaded_functions():
            place = file_of(function)
            if place == file or _identity(function.__code__.co_filename) == wanted:
                named[place] = None
    if len(named) > 1:
        raise ValueError(f"{file} names the file of {len(named)} loaded modules "
                         f"({', '.join(named)}): name the one whose code the threads run "
                         "by its module's path")
    if not named:
        how = f"the file {os.path.abspath(file)} exists, but no module of it is loaded" \
            if os.path.isfile(file) else "no loaded module or function is of that file"
        raise ValueError(f"{file}: {how}: name the file by its module's path, as steps do "
                         f"(pkg/module.py for pkg.module), or by its path, and import it "
                         f"before exploring{_near(file)}")
    return next(iter(named))


def _identity(path: str) -> object:
    """What tells *path*'s file from another: its device and inode (a
    link, another spelling of the path, the same file), or for a file that
    is not there (code compiled from text) its absolute path."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):  # no such file, or a name no file can have
        return os.path.normcase(os.path.abspath(path))
    return found.st_dev, found.st_ino


def _near(file: str) -> str:
    """A hint naming the loaded files of *file*'s name, if any."""
    near = sorted({file_of(f) for f in loaded_functions()
                   if file_of(f).endswith("/" + file.replace(os.sep, "/").rsplit("/", 1)[-1])})
    return f" (loaded files of that name: {', '.join(near)})" if near else ""


def code_lines(code: types.CodeType) -> set[int]:
    """The lines of *code* and of the code nested in it that have
    instructions (the ``def`` line, for the function's start)."""
    lines = {line for _, _, line in code.co_lines() if line is not None}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            lines |= code_lines(const)
    return lines


def body_lines(code: types.CodeType) -> set[int]:
    """The lines of *code* and of the code nested in it that a probe sees
    run: those with instructions past the function's start (its first
    ``RESUME``), where :func:`probe` puts probes. A ``def`` line has
    none: what runs there is the call's start, not the line's code."""
    raw = code.co_code
    start = next(n for n in range(0, len(raw), 2) if raw[n] == _RESUME) + 2
    lines = {line for _, end, line in code.co_lines() if line is not None and end > start}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            lines |= body_lines(const)
    return lines


def file_of(function: types.FunctionType) -> str:
    """*function*'s file, as steps name it (by its module's path)."""
    return module_path(function.__code__.co_filename, function.__globals__)


@functools.cache
def _same_file(filename: str, module: str, file: str) -> bool:
    """Whether the code of *filename*, of the module named *module*, is
    *file*'s, by its module's path (a path names a file only once
    :func:`resolve_file` made it that)."""
    return module_path(filename, {"__name__": module}) == file


def loaded_functions() -> Iterator[types.FunctionType]:
    """The Python functions alive: those the garbage collector lists, and
    those the loaded modules hold, in their classes too (the collector of
    the free-threaded 3.13 lists only some of them once threads have come
    and gone). Not a function the interpreter made to run a class body
    once (the free-threaded 3.13 frees it only at the next collection): its
    code holds the methods' code, yet no call of it is to come."""
    yield from (value for value in gc.get_objects()
                if type(value) is types.FunctionType and value.__code__.co_flags & _OPTIMIZED)
    seen: set[int] = set()
    for module in list(sys.modules.values()):
        if isinstance(module, types.ModuleType):
            yield from _held(vars(module).values(), seen)


def _held(values: Iterable[object], seen: set[int]) -> Iterator[types.FunctionType]:
    """The functions among *values*, and in the classes among them: their
    methods, static and class methods, properties, and what they wrap."""
    for value in values:
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, property):
            yield from _held((value.fget, value.fset, value.fdel), seen)
        elif isinstance(value, type):
            yield from _held(list(vars(value).values()), seen)
        elif type(value) is types.FunctionType:
            yield value
            wrapped = getattr(value, "__wrapped__", None)
            if wrapped is not None:
                yield from _held((wrapped,), seen)


class Probes:
    """Probes at *lines* (by file, as steps name it: ``{"pkg/module.py":
    {42}}``), and at every line of the files *every* names, in the loaded
    functions of those files while entered. Raises :class:`ValueError` on
    entry for a line no probe would see run, and
    :class:`~blanket.UnsupportedInterpreter` on an interpreter the
    searches are not tested on (the probes rewrite its bytecode)."""

    def __init__(self, lines: dict[str, set[int]], every: Iterable[str] = ()) -> None:
        self.every = set(every)
        self.lines: dict[str, set[int]] = {file: set() for file in self.every} | lines
        self._swapped: list[tuple[types.FunctionType, types.CodeType]] = []
        #: For each file, the lines of its loaded code (filled on entry).
        self.code: dict[str, set[int]] = {}
        #: For each file, the lines probed in each function (filled on
        #: entry): for every line of a file, those of its functions' code
        #: (nested code's too) but ``def`` lines.
        self.probed: dict[str, list[set[int]]] = {}

    def __enter__(self) -> Probes:
        refuse_untested("seeing lines run (assertReached, reach=)")
        found: dict[str, list[types.FunctionType]] = {file: [] for file in self.lines}
        for function in dict.fromkeys(loaded_functions()):
            scope = function.__globals__
            module = scope.get("__name__", "")
            spec = scope.get("__spec__")
            if module == "__main__" and spec is not None:  # as module_path names it
                module = spec.name
            for file in found:
                if _same_file(function.__code__.co_filename, str(module), file):
                    found[file].append(function)
        for file, functions in found.items():
            self.code[file] = set().union(*(code_lines(f.__code__) for f in functions))
            _check(file, self.lines[file], functions)
        try:
            for file, functions in found.items():
                self._probe(file, functions)
        except BaseException:  # (code that cannot be probed): none left probed
            self.__exit__()
            raise
        HITS.clear()
        return self

    def _probe(self, file: str, functions: list[types.FunctionType]) -> None:
        wanted = None if file in self.every else self.lines[file]
        self.probed[file] = []
        for function in functions:
            original = function.__code__
            lines = code_lines(original)
            if wanted is not None and not lines & wanted:
                continue
            at = None if wanted is None else frozenset(wanted & lines)
            function.__code__ = probe(original, at, file_of(function))
            self.probed[file].append(probed_lines(original, at, file_of(function)))
            self._swapped.append((function, original))

    def __exit__(self, *exc: object) -> None:
        while self._swapped:
            function, original = self._swapped.pop()
            function.__code__ = original

    @staticmethod
    def take() -> set[str]:
        """The places run since the last call (or the entry), and forget them."""
        hits = set(HITS)
        HITS.difference_update(hits)
        return hits


def _check(file: str, wanted: set[int], functions: list[types.FunctionType]) -> None:
    """Refuse a file no loaded function is in, or a line no probe would
    see run: no code of a function there, or only a function's start."""
    if not functions:
        raise ValueError(f"no function of {file} is loaded: a line runs in a scenario's "
                         f"threads only inside a function; name the file by its module's "
                         f"path, as steps do (pkg/module.py for pkg.module), and import "
                         f"it before exploring{_near(file)}")
    lines = set().union(*(body_lines(f.__code__) for f in functions))
    for line in sorted(wanted - lines):
        nearby = sorted(sorted(lines, key=lambda n: (abs(n - line), n))[:3])
        if any(line in code_lines(f.__code__) for f in functions):
            body = sorted(n for n in lines if n > line)[:3]  # (a start has code after it)
            raise ValueError(
                f"{file}:{line} is where a function starts (its 'def' line, or its first "
                f"decorator's): what runs there is the call's start, which no probe sees; "
                f"name a line of the function's body (the next lines that have code: "
                f"{', '.join(map(str, body))})")
        raise ValueError(
            f"{file}:{line} has no code of a function to run (a blank line, a comment, "
            f"an 'else:', a 'def' line or module-level code?): lines nearby that have: "
            f"{', '.join(map(str, nearby))}")


def probe(code: types.CodeType, lines: frozenset[int] | None, file: str) -> types.CodeType:
    """*code* with a probe adding ``"file:line"`` to ``HITS`` before
    each entry into a stretch of each of *lines* (every line: ``None``),
    in the code nested in it too; made once per code object and lines."""
    return _probe(code, lines, file)[0]


def probed_lines(code: types.CodeType, lines: frozenset[int] | None, file: str) -> set[int]:
    """The lines :func:`probe` puts probes at in *code* (nested code too)."""
    return _probe(code, lines, file)[1]


def _probe(code: types.CodeType, lines: frozenset[int] | None, file: str
           ) -> tuple[types.CodeType, set[int]]:
    """:func:`probe`, and :func:`probed_lines`."""
    key = (id(code), lines)
    cached = _probed.get(key)
    if cached is not None:
        return cached[1], cached[2]
    consts = list(code.co_consts)
    probed: set[int] = set()
    for n, const in enumerate(consts):
        if isinstance(const, types.CodeType):
            consts[n], inner = _probe(const, lines, file)
            probed |= inner
    assembly = Assembly.of(code)
    instructions = assembly.instructions
    targets = {id(i.target) for i in instructions if i.target is not None}
    targets |= {id(h.target) for h in assembly.handlers}
    calls: dict[int, int] = {}  # the constant index of each line's probe
    entries: list[tuple[int, int]] = []
    previous: int | None = -1
    started = False  # past the prologue (its RESUME)
    for index, instruction in enumerate(instructions):
        line = instruction.position[0]
        if instruction.name == "RESUME":  # the start, or a generator's return to it
            started, previous = True, -1
            continue
        # Control enters the line here: a new line, or a jump's landing;
        # unless the interpreter needs the instruction where it is (its line
        # ran before it, then).
        entered = (line != previous or id(instruction) in targets) \
            and instruction.name not in _LANDINGS and instructions[index - 1].name not in _GLUED
        previous = line
        if not started or line is None or not entered or (lines is not None and line not in lines):
            continue
        if line not in calls:
            calls[line] = len(consts)
            consts.append(functools.partial(HITS.add, f"{file}:{line}"))
        entries.append((index, calls[line]))
    for index, const in reversed(entries):
        assembly.insert(index, constant_call(const, instructions[index]))
    new = assembly.code(co_consts=tuple(consts), co_stacksize=code.co_stacksize + 2)
    probed |= set(calls)
    _probed[key] = (code, new, probed)
    return new, probed


"""The command line.

``python -m blanket explore pkg.tests:setup`` searches the schedules of a
setup for one that fails (:func:`blanket.explore`): on a terminal a line on
stderr says how far it went, rewritten in place (``1,234 schedules, 210
runs/s, 2 races, 0 gaps, 8,766 left``) and cleared at the end; the verdict
is printed, and the failure's test written to ``--out``
(``test_<setup>_schedule.py``, its path printed). ``--json FILE`` (``-``:
stdout, the rest then on stderr) writes the result for machines. It exits
with 0 when no order failed, 1 when one did.

``python -m blanket linearizable pkg.tests:Queue pkg.tests:OPERATIONS``
does the same for :func:`blanket.check_linearizable` (the operations a
module-level list): exit status 0 when linearizable, 1 when not.

``python -m blanket reach --setup pkg.tests:setup FILE:LINE ...``
searches the schedules of a setup for ones that run the given lines, and
prints and writes the tests that replay them (see :mod:`blanket.exploration.reach`).

``--coverage .coverage`` adds the lines a coverage data file says no test
ran, in the code the setup's threads run (their files' functions): the
``coverage`` package reads the file when it is installed; blanket itself
needs nothing but the standard library. Data that measured none of those
files (empty, or another project's) is said so; with no line left to
reach, that is a mistake in the command.

``--out`` is the folder the tests are written in, made if missing.
``--max-seconds`` is a search's wall-clock budget (120 s unless given): it
stops there and says so ("stopped by max_seconds=120").

The exit status of ``reach`` is 0 when every line was reached, 1 when some
were not. Every command exits with 2 for a mistake in the command: a setup
(factory, operations) that does not import or is no function (no
non-empty list of callables), a ``FILE:LINE`` of another shape or that no loaded code has, a
count or a timeout out of range, an ``--out`` that is a file, a ``--json``
file in no folder, coverage data missing or
unreadable; and 2 on an interpreter the searches are not tested on
(:mod:`blanket.interpreters`). A mistake is found before any search runs, and said in one
line that names the argument (``python -m blanket reach: error: argument
--setup: ...``, after the usage, as ``argparse`` does).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO, cast

from .audit.domains import binding
from .audit.run import MAX_SECONDS as AUDIT_SECONDS
from .audit.run import audit
from .errors import UnsupportedInterpreter
from .exploration.arguments import RACES, STRATEGIES
from .exploration.lines import Probes, split
from .exploration.processes import check as check_processes
from .exploration.reach import watched_files
from .exploration.reporting import Progress
from .exploration.result import Exploration, Failure, Setup
from .exploration.search import explore
from .interpreters import refuse_untested
from .linearizability.check import Linearizability, check_linearizable, check_operations
from .linearizability.report import LinearizabilityFailure
from .seconds import BUDGET, parse_seconds
from .timeline import schedule_timeline


def _named(name: str, shape: str) -> object:
    """What ``module:name`` names; *shape* the example said when *name*
    has another shape."""
    module, _, attribute = name.partition(":")
    if not module or not attribute:
        raise argparse.ArgumentTypeError(f"{name!r}: expected {shape}")
    try:
        imported = importlib.import_module(module)
    except Exception as error:  # noqa: BLE001 - whatever importing the user's module raises
        raise argparse.ArgumentTypeError(
            f"{name!r}: importing {module} raised {type(error).__name__}: {error}") from None
    try:
        return getattr(imported, attribute)
    except AttributeError as error:
        raise argparse.ArgumentTypeError(f"{name!r}: {error}") from None


def _setup(name: str) -> Setup:
    """The setup ``module:function`` names (``--setup``)."""
    found = _named(name, "'module:function', e.g. 'pkg.tests:setup'")
    if not callable(found):
        raise argparse.ArgumentTypeError(
            f"{name!r} is {found!r}: expected a function that fills a Scenario")
    return cast(Setup, found)


def _factory(name: str) -> Callable[[], Any]:
    """The factory of the object under test ``module:name`` names."""
    found = _named(name, "'module:name', e.g. 'pkg.tests:Queue'")
    if not callable(found):
        raise argparse.ArgumentTypeError(
            f"{name!r} is {found!r}: expected a factory of the object under test")
    return cast("Callable[[], Any]", found)


def _operations(name: str) -> list[Callable[[Any], Any]]:
    """The operations ``module:name`` names (a module-level list)."""
    found = _named(name, "'module:name', e.g. 'pkg.tests:OPERATIONS'")
    try:
        check_operations(found)
    except TypeError as error:
        raise argparse.ArgumentTypeError(f"{name!r}: {error}") from None
    return list(cast("list[Callable[[Any], Any]]", found))


def _int(text: str) -> int:
    """An int (``--seed``)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected an int") from None


def _seconds(text: str) -> float:
    """A bound in seconds (``--timeout``, ``--max-seconds``)."""
    try:
        return parse_seconds(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _json(text: str) -> str:
    """Where ``--json`` writes: ``-`` (stdout), or a file in a folder."""
    if text != "-":
        path = Path(text)
        if path.is_dir():
            raise argparse.ArgumentTypeError(f"{text!r} is a folder: expected a file to "
                                             "write the result in, or - for stdout")
        if not path.resolve().parent.is_dir():
            raise argparse.ArgumentTypeError(f"{text!r}: no folder {str(path.parent)!r} to "
                                             "write it in")
    return text


def _place(text: str) -> str:
    """A line to reach (``FILE:LINE``), of the shape steps name places."""
    try:
        split(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _count(least: int) -> Callable[[str], int]:
    """The type of a count of at least *least*."""
    def count(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: expected an int") from None
        if value < least:
            more = "0 or more" if least == 0 else f"at least {least}"
            raise argparse.ArgumentTypeError(f"{value}: expected {more}")
        return value
    return count


def _folder(text: str) -> Path:
    """The folder ``--out`` names: refused if it is something else, or
    cannot be written in (one missing is made before the search)."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a file: expected a folder (made if "
                                         "missing) to write the tests in")
    if path.is_dir() and not os.access(path, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text!r}: the folder cannot be written in")
    return path


def missed_lines(data_file: str, files: set[str]) -> list[str] | None:
    """The lines of *files* (as steps name them) that the coverage data in
    *data_file* says did not run: ``file:line`` each; ``None`` when the
    data measured none of *files* (empty, or another project's). A
    :class:`ValueError` when there is no such file or ``coverage`` cannot
    read it; an :class:`ImportError` without the ``coverage`` package."""
    import coverage

    if not os.path.isfile(data_file):
        raise ValueError(f"{data_file!r} is no file: expected the data file coverage run "
                         "writes (.coverage)")
    if os.path.getsize(data_file) == 0:
        return None  # (loading it would write an empty database into it)
    cov = coverage.Coverage(data_file=data_file, config_file=False)
    with Probes({}, files) as probes:  # the lines of the files' functions
        code = {file: set().union(*lines) for file, lines in probes.probed.items()}
    found: list[str] = []
    measuring = False
    try:
        cov.load()
        for measured in sorted(cov.get_data().measured_files()):
            path = measured.replace(os.sep, "/")
            for file in sorted(files):
                if path.endswith("/" + file):
                    measuring = True
                    missing = cov.analysis2(measured)[3]
                    found += [f"{file}:{line}" for line in missing if line in code[file]]
    except coverage.CoverageException as error:  # unreadable data, a source not found
        raise ValueError(f"coverage cannot read {data_file!r}: {error}") from None
    return found if measuring else None


def _bounds(parser: argparse.ArgumentParser, processes: bool = True) -> None:
    """The options that bound a search, and where its tests go."""
    parser.add_argument("--out", default=".", type=_folder,
                        help="the folder to write the tests in (made if missing)")
    parser.add_argument("--max-schedules", type=_count(1), default=10_000)
    parser.add_argument("--max-seconds", type=_seconds, default=BUDGET,
                        help="the search's wall-clock budget: it stops there, and says so")
    parser.add_argument("--max-preemptions", type=_count(0), default=None)
    if processes:
        parser.add_argument("--processes", type=_count(1), default=1)


def _search(parser: argparse.ArgumentParser, setup: bool = True) -> None:
    """The options of a search for a failure (``explore``, ``linearizable``)."""
    _bounds(parser, processes=setup)
    parser.add_argument("--strategy", choices=STRATEGIES, default="dfs")
    parser.add_argument("--seed", type=_int, default=0)
    parser.add_argument("--timeout", type=_seconds, default=10.0,
                        help="seconds a run's threads may take to settle")
    parser.add_argument("--json", metavar="FILE", type=_json,
                        help="also write the result as JSON to FILE (- for stdout)")


def main(argv: list[str] | None = None) -> int:
    """Run the command; its exit status."""
    parser = argparse.ArgumentParser(prog="python -m blanket",
                                     description="blanket's command line")
    commands = parser.add_subparsers(dest="command", required=True)
    reach = commands.add_parser("reach", help="find schedules that run lines, write their tests")
    reach.add_argument("--setup", required=True, type=_setup,
                       help="the setup, as module:function")
    reach.add_argument("lines", nargs="*", metavar="FILE:LINE", type=_place,
                       help="a line, the file by its module's path (pkg/module.py:42)")
    reach.add_argument("--coverage", metavar="DATA", help="also the lines this coverage "
                       "data file says did not run, in the setup's watched code")
    _bounds(reach)
    search = commands.add_parser("explore", help="search a setup's schedules for a failure, "
                                 "write its test")
    search.add_argument("setup", type=_setup, metavar="MODULE:SETUP",
                        help="the setup, as module:function")
    search.add_argument("--races", choices=RACES, default="report")
    _search(search)
    linear = commands.add_parser("linearizable", help="check that an object is "
                                 "linearizable, write the failure's test")
    linear.add_argument("make", type=_factory, metavar="MODULE:FACTORY",
                        help="what makes the object under test, as module:name")
    linear.add_argument("operations", type=_operations, metavar="MODULE:OPERATIONS",
                        help="the operations, a module-level list, as module:name")
    linear.add_argument("--threads", type=_count(1), default=2)
    linear.add_argument("--operations-per-thread", type=_count(1), default=2)
    linear.add_argument("--scenarios", type=_count(1), default=50)
    _search(linear, setup=False)
    audited = commands.add_parser("audit", help="audit a class's thread safety with no test "
                                  "code, write the failures' tests")
    audited.add_argument("target", metavar="MODULE:CLASS",
                         type=lambda name: _named(name, "'module:name', e.g. 'pkg.tests:Queue'"),
                         help="the class (or a factory of the objects), as module:name")
    audited.add_argument("--factory", type=_factory, metavar="MODULE:NAME",
                         help="what builds the objects, instead of the constructor")
    audited.add_argument("--include", nargs="+", default=[], metavar="NAME",
                         help="the only methods and properties to check")
    audited.add_argument("--exclude", nargs="+", default=[], metavar="NAME",
                         help="methods and properties not to check")
    audited.add_argument("--bind", action="append", default=[], metavar="NAME=VALUES",
                         help="a parameter's values (a Python literal): key=\"['a','b']\", "
                              "get.key=1, __init__.maxsize=2")
    audited.add_argument("--out", default=".", type=_folder,
                         help="the folder to write the failures' tests in (made if missing)")
    audited.add_argument("--max-seconds", type=_seconds, default=AUDIT_SECONDS,
                         help="the audit's wall-clock budget, shared among the pairs")
    audited.add_argument("--seed", type=_int, default=0)
    audited.add_argument("--timeout", type=_seconds, default=5.0,
                         help="seconds a run's threads may take to settle")
    audited.add_argument("--json", metavar="FILE", type=_json,
                         help="also write the result as JSON to FILE (- for stdout)")
    args = parser.parse_args(argv)
    try:
        refuse_untested(f"python -m blanket {args.command}")
    except UnsupportedInterpreter as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    if args.command == "audit":
        return _audit(audited, args)
    command = {"reach": reach, "explore": search, "linearizable": linear}[args.command]
    if args.command != "linearizable":
        try:
            check_processes(args.setup, args.processes)
        except TypeError as error:
            command.error(f"argument --processes: {error}")
    if args.command == "reach":
        return _reach(reach, args)
    _make(command, args.out)
    if args.command == "explore":
        return _explore(args)
    return _linearizable(args)


def _make(parser: argparse.ArgumentParser, out: Path) -> None:
    """Make the folder *out* (``--out``), or say why it cannot be."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        parser.error(f"argument --out: cannot make the folder {str(out)!r}: {error.strerror}")


def _reach(reach: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``python -m blanket reach``, its arguments parsed."""
    setup = args.setup
    targets = list(args.lines)
    if args.coverage:
        files = watched_files(setup, 10.0)
        try:
            missed = missed_lines(args.coverage, files)
        except ImportError:
            reach.error("argument --coverage: needs the coverage package: pip install coverage")
        except ValueError as error:
            reach.error(f"argument --coverage: {error}")
        if missed is None:
            none = (f"the coverage data {args.coverage} measured none of the files the "
                    f"threads run: {', '.join(sorted(files)) or 'none'}")
            if not targets:
                reach.error(f"argument --coverage: {none}: no line to reach")
            print(none)
        else:
            missed = [line for line in missed if line not in targets]
            print(f"missed by the tests, in {', '.join(sorted(files))}: "
                  f"{', '.join(missed) or 'none'}")
            targets += missed
    if not targets:
        reach.error("no line to reach: name FILE:LINE, or --coverage DATA")
    lines: dict[str, set[int]] = {}
    for target in targets:
        file, line = split(target)
        lines.setdefault(file, set()).add(line)
    try:
        with Probes(lines):  # each line is one loaded code has, as the search will ask
            pass
    except ValueError as error:
        reach.error(f"argument FILE:LINE: {error}")
    out: Path = args.out
    _make(reach, out)
    result = explore(setup, reach=targets, max_schedules=args.max_schedules,
                     max_seconds=args.max_seconds, max_preemptions=args.max_preemptions,
                     processes=args.processes)
    print(result)
    for place, found in result.reached.items():
        if found is None:
            continue
        name = "test_reach_" + "".join(c if c.isalnum() else "_" for c in place) + ".py"
        (out / name).write_text(found.source)
        print(f"\n# {out / name}\n{found.source}", end="")
    return 0 if None not in result.reached.values() else 1


class _Line:
    """The progress of a search on a terminal: one line, rewritten in place
    (``\\r``), cleared at the end."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.width = 0

    def __call__(self, progress: Progress) -> None:
        if progress.done:
            self.clear()
            return
        text = str(progress)
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        # What shows: the text, and what a longer line before left rubbed out.
        self.width = max(self.width, len(text))

    def clear(self) -> None:
        """Rub the line out, if one is shown."""
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


@contextmanager
def _shown() -> Iterator[_Line | None]:
    """The progress line, when stderr is a terminal; rubbed out however
    the search ends (an exception, Ctrl-C)."""
    line = _Line(sys.stderr) if sys.stderr.isatty() else None
    try:
        yield line
    finally:
        if line is not None:
            line.clear()


def _explore(args: argparse.Namespace) -> int:
    """``python -m blanket explore``, its arguments parsed and checked."""
    with _shown() as line:
        result = explore(args.setup, strategy=args.strategy, max_schedules=args.max_schedules,
                         max_seconds=args.max_seconds,
                         max_preemptions=args.max_preemptions, seed=args.seed,
                         timeout=args.timeout, races=args.races, processes=args.processes,
                         progress=line)
    failure = result.failure
    return _verdict(args, result, args.setup, failure,
                    None if failure is None else failure.message, {
        "exhausted": result.exhausted, "stopped": result.stopped, "schedules": result.count,
        "runs": result.runs})


def _linearizable(args: argparse.Namespace) -> int:
    """``python -m blanket linearizable``, its arguments parsed and checked."""
    with _shown() as line:
        result = check_linearizable(
            args.make, args.operations, threads=args.threads,
            operations_per_thread=args.operations_per_thread, scenarios=args.scenarios,
            seed=args.seed, strategy=args.strategy, max_schedules=args.max_schedules,
            max_seconds=args.max_seconds, max_preemptions=args.max_preemptions,
            timeout=args.timeout, progress=line)
    failure = result.failure
    return _verdict(args, result, args.make, failure,
                    None if failure is None else failure.explanation, {
        "exhausted": bool(result.scenarios) and all(result.exhausted),
        "scenarios": result.scenarios, "scenarios_exhausted": sum(result.exhausted),
        "stopped": result.stopped, "schedules": result.schedules, "checks": result.checks})


def _verdict(args: argparse.Namespace, result: Exploration | Linearizability,
             named: object, failure: Failure | LinearizabilityFailure | None,
             message: str | None, fields: dict[str, object]) -> int:
    """Say *result*, write its *failure*'s test (named after *named*, the
    setup or the factory) and the JSON (*message* and *fields* in it); the
    exit status."""
    said = sys.stderr if args.json == "-" else sys.stdout  # (--json -: stdout is the JSON's)
    print(result, file=said)
    test = None
    if failure is not None:
        print(f"\n{schedule_timeline(failure.schedule)}\n", file=said)
        path = args.out / f"test_{_file_part(getattr(named, '__name__', 'setup'))}_schedule.py"
        path.write_text(failure.source)
        print(f"the failure's test: {path}", file=said)
        test = str(path)
    _write_json(args.json, {
        "command": args.command, "verdict": str(result), "ok": failure is None,
        "strategy": result.strategy, "kind": None if failure is None else failure.kind,
        "message": message,
        "schedule": [] if failure is None else [str(step) for step in failure.schedule],
        "checked": None if failure is None else failure.checked, "test": test, **fields,
        "unseen": result.unseen, "races": [str(race) for race in result.races],
        "elapsed": result.elapsed})
    return 0 if failure is None else 1


def _file_part(name: str) -> str:
    """*name* made a part of a file's name: what is not a letter or a
    digit becomes ``_``."""
    return "".join(c if c.isalnum() else "_" for c in name)


def _write_json(where: str | None, fields: dict[str, object]) -> None:
    """Write *fields* as JSON where ``--json`` said (``-``: on stdout), if it did."""
    if where is None:
        return
    text = json.dumps(fields, indent=2) + "\n"
    if where == "-":
        sys.stdout.write(text)
    else:
        Path(where).write_text(text)


def _audit(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``python -m blanket audit``, its arguments parsed: the report printed,
    the failures' tests written to ``--out``; 0 when no pair failed, 1 when
    one did."""
    bind: dict[str, tuple[Any, ...]] = {}
    for text in args.bind:
        try:
            name, values = binding(text)
        except ValueError as error:
            parser.error(f"argument --bind: {error}")
        bind[name] = values
    _make(parser, args.out)
    try:
        with _shown() as line:
            result = audit(args.target, factory=args.factory, include=args.include,
                           exclude=args.exclude, bind=bind, max_seconds=args.max_seconds,
                           seed=args.seed, timeout=args.timeout, progress=line)
    except (TypeError, ValueError) as error:  # not a class, one that cannot be built, ...
        parser.error(str(error))
    said = sys.stderr if args.json == "-" else sys.stdout  # (--json -: stdout is the JSON's)
    print(result, file=said)
    tests = []
    for pair in result.failures:
        name = "_".join(_file_part(part).strip("_")
                        for part in (result.kind.__name__, *pair.names))
        path = args.out / f"test_audit_{name}.py"
        path.write_text(pair.test)
        print(f"the test of {pair.label}: {path}", file=said)
        tests.append(str(path))
    _write_json(args.json, {"command": "audit", **result.as_dict(), "tests": tests})
    return 0 if result.ok else 1


if __name__ == "__main__":  # pragma: no cover - python -m blanket (tests call main)
    sys.exit(main())

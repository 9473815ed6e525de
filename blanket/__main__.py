"""The command line: ``python -m blanket reach --setup pkg.tests:setup FILE:LINE ...``
searches the schedules of a setup for ones that run the given lines, and
prints and writes the tests that replay them (see :mod:`blanket.exploration.reach`).

``--coverage .coverage`` adds the lines a coverage data file says no test
ran, in the code the setup's threads run (their files' functions): the
``coverage`` package reads the file when it is installed; blanket itself
needs nothing but the standard library. Data that measured none of those
files (empty, or another project's) is said so; with no line left to
reach, that is a mistake in the command.

``--out`` is the folder the tests are written in, made if missing.

The exit status is 0 when every line was reached, 1 when some were not, and
2 for a mistake in the command: a setup that does not import or is no
function, a ``FILE:LINE`` of another shape or that no loaded code has, a
count out of range, an ``--out`` that is a file, coverage data missing or
unreadable; and 2 on an interpreter the searches are not tested on
(:mod:`blanket.interpreters`). A mistake is found before any search runs, and said in one
line that names the argument (``python -m blanket reach: error: argument
--setup: ...``, after the usage, as ``argparse`` does).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import cast

from .errors import UnsupportedInterpreter
from .exploration.lines import Probes, split
from .exploration.processes import check as check_processes
from .exploration.reach import watched_files
from .exploration.result import Setup
from .exploration.search import explore
from .interpreters import refuse_untested


def _setup(name: str) -> Setup:
    """The setup ``module:function`` names (``--setup``)."""
    module, _, function = name.partition(":")
    if not module or not function:
        raise argparse.ArgumentTypeError(
            f"{name!r}: expected 'module:function', e.g. 'pkg.tests:setup'")
    try:
        imported = importlib.import_module(module)
    except Exception as error:  # noqa: BLE001 - whatever importing the user's module raises
        raise argparse.ArgumentTypeError(
            f"{name!r}: importing {module} raised {type(error).__name__}: {error}") from None
    try:
        found = getattr(imported, function)
    except AttributeError as error:
        raise argparse.ArgumentTypeError(f"{name!r}: {error}") from None
    if not callable(found):
        raise argparse.ArgumentTypeError(
            f"{name!r} is {found!r}: expected a function that fills a Scenario")
    return cast(Setup, found)


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
    reach.add_argument("--out", default=".", type=_folder,
                       help="the folder to write the tests in (made if missing)")
    reach.add_argument("--max-schedules", type=_count(1), default=10_000)
    reach.add_argument("--max-preemptions", type=_count(0), default=None)
    reach.add_argument("--processes", type=_count(1), default=1)
    args = parser.parse_args(argv)
    try:
        refuse_untested(f"python -m blanket {args.command}")
    except UnsupportedInterpreter as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    setup = args.setup
    try:
        check_processes(setup, args.processes)
    except TypeError as error:
        reach.error(f"argument --processes: {error}")
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
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reach.error(f"argument --out: cannot make the folder {str(out)!r}: {error.strerror}")
    result = explore(setup, reach=targets, max_schedules=args.max_schedules,
                     max_preemptions=args.max_preemptions, processes=args.processes)
    print(result)
    for place, found in result.reached.items():
        if found is None:
            continue
        name = "test_reach_" + "".join(c if c.isalnum() else "_" for c in place) + ".py"
        (out / name).write_text(found.source)
        print(f"\n# {out / name}\n{found.source}", end="")
    return 0 if None not in result.reached.values() else 1


if __name__ == "__main__":  # pragma: no cover - python -m blanket (tests call main)
    sys.exit(main())

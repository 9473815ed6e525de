"""The command line: ``python -m blanket reach --setup pkg.tests:setup FILE:LINE ...``
searches the schedules of a setup for ones that run the given lines, and
prints and writes the tests that replay them (see :mod:`blanket.exploration.reach`).

``--coverage .coverage`` adds the lines a coverage data file says no test
ran, in the code the setup's threads run (their files' functions): the
``coverage`` package reads the file when it is installed; blanket itself
needs nothing but the standard library.

The exit status is 0 when every line was reached, 1 when some were not, and
2 for a mistake in the command.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import Any

from .exploration.lines import Probes
from .exploration.reach import watched_files
from .exploration.search import explore


def _setup(name: str) -> Any:
    """The setup ``module:function`` names."""
    module, _, function = name.partition(":")
    if not module or not function:
        raise SystemExit(f"--setup {name!r}: expected 'module:function', e.g. 'pkg.tests:setup'")
    try:
        return getattr(importlib.import_module(module), function)
    except (ImportError, AttributeError) as error:
        raise SystemExit(f"--setup {name!r}: {error}") from None


def missed_lines(data_file: str, files: set[str]) -> list[str]:
    """The lines of *files* (as steps name them) that the coverage data in
    *data_file* says did not run: ``file:line`` each."""
    try:
        import coverage
    except ImportError:
        raise SystemExit("--coverage needs the coverage package: pip install coverage") from None
    cov = coverage.Coverage(data_file=data_file, config_file=False)
    cov.load()
    with Probes({}, files) as probes:  # the lines of the files' functions
        code = {file: set().union(*lines) for file, lines in probes.probed.items()}
    found: list[str] = []
    for measured in sorted(cov.get_data().measured_files()):
        path = measured.replace(os.sep, "/")
        for file in sorted(files):
            if path.endswith("/" + file):
                missing = cov.analysis2(measured)[3]
                found += [f"{file}:{line}" for line in missing if line in code[file]]
    return found


def main(argv: list[str] | None = None) -> int:
    """Run the command; its exit status."""
    parser = argparse.ArgumentParser(prog="python -m blanket",
                                     description="blanket's command line")
    commands = parser.add_subparsers(dest="command", required=True)
    reach = commands.add_parser("reach", help="find schedules that run lines, write their tests")
    reach.add_argument("--setup", required=True, help="the setup, as module:function")
    reach.add_argument("lines", nargs="*", metavar="FILE:LINE",
                       help="a line, the file by its module's path (pkg/module.py:42)")
    reach.add_argument("--coverage", metavar="DATA", help="also the lines this coverage "
                       "data file says did not run, in the setup's watched code")
    reach.add_argument("--out", default=".", help="the folder to write the tests in")
    reach.add_argument("--max-schedules", type=int, default=10_000)
    reach.add_argument("--max-preemptions", type=int, default=None)
    reach.add_argument("--processes", type=int, default=1)
    args = parser.parse_args(argv)
    setup = _setup(args.setup)
    targets = list(args.lines)
    if args.coverage:
        files = watched_files(setup, 10.0)
        missed = [line for line in missed_lines(args.coverage, files) if line not in targets]
        print(f"missed by the tests, in {', '.join(sorted(files))}: "
              f"{', '.join(missed) or 'none'}")
        targets += missed
    if not targets:
        parser.error("no line to reach: name FILE:LINE, or --coverage DATA")
    result = explore(setup, reach=targets, max_schedules=args.max_schedules,
                     max_preemptions=args.max_preemptions, processes=args.processes)
    print(result)
    out = Path(args.out)
    for place, found in result.reached.items():
        if found is None:
            continue
        name = "test_reach_" + "".join(c if c.isalnum() else "_" for c in place) + ".py"
        (out / name).write_text(found.source)
        print(f"\n# {out / name}\n{found.source}", end="")
    return 0 if None not in result.reached.values() else 1


if __name__ == "__main__":  # pragma: no cover - python -m blanket (tests call main)
    sys.exit(main())

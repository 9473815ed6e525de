"""Run blanket's test suite: ``python -m tests [--typeguard] [-v] [-k PATTERN ...]``.

``make test`` runs the suite twice: under coverage (``python -m coverage run
-m tests``), then with ``--typeguard``: before anything imports
:mod:`blanket`, typeguard's import hook is installed for it, so every
annotated function of the package has its argument and return types checked
while the tests run. (Not both at once: the hook's inserted checks carry line
numbers that make coverage report branches the source does not have.)
Discovery runs over ``tests/test*.py`` with the repository root as the
top-level directory.

Options:
  --typeguard     check blanket's annotations while the tests run
  -v, --verbose   one line per test instead of dots
  -k PATTERN      only run tests whose name matches PATTERN (may repeat;
                  a pattern without ``*`` matches as a substring, as with
                  ``python -m unittest -k``)

Exits non-zero when any test fails or errors.  The last line is a plain
summary, ``tests: N passed, N failed, N skipped``.
"""

import argparse
import sys
import unittest
from pathlib import Path

import typeguard

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests", description=__doc__.splitlines()[0])
    parser.add_argument("--typeguard", action="store_true",
                        help="check blanket's annotations with typeguard")
    parser.add_argument("-v", "--verbose", action="store_true", help="verbose output")
    parser.add_argument(
        "-k",
        dest="patterns",
        action="append",
        default=[],
        metavar="PATTERN",
        help="only run tests matching PATTERN (repeatable)",
    )
    args = parser.parse_args(argv)

    if args.typeguard:
        # The hook only instruments modules imported after it is installed.
        if "blanket" in sys.modules:
            sys.exit("tests: blanket was imported before typeguard's import hook was installed")
        typeguard.install_import_hook("blanket")

    loader = unittest.TestLoader()
    if args.patterns:
        loader.testNamePatterns = [p if "*" in p else f"*{p}*" for p in args.patterns]
    suite = loader.discover(
        start_dir=str(ROOT / "tests"), pattern="test*.py", top_level_dir=str(ROOT)
    )
    result = unittest.TextTestRunner(verbosity=2 if args.verbose else 1).run(suite)

    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = max(result.testsRun - failed - skipped, 0)
    print(f"tests: {passed} passed, {failed} failed, {skipped} skipped", file=sys.stderr)
    return int(not result.wasSuccessful())


if __name__ == "__main__":
    sys.exit(main())

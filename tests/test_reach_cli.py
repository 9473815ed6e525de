"""``python -m blanket reach`` (blanket/__main__.py), and the recipe "from
99% to 100%" (examples/to100, docs/cookbook/from_99_to_100.rst) run for
real: a coverage report with a missed line, the command, the test it
writes, the report at 100%."""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import unittest.mock
from pathlib import Path

from blanket.__main__ import main

from . import reach_cases as cases

try:
    import coverage
except ImportError:  # pragma: no cover - an interpreter of make matrix, without dev tools
    coverage = None

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "to100"
PAGE = ROOT / "docs" / "cookbook" / "from_99_to_100.rst"


def command(*argv: str) -> tuple[int, str]:
    """main(argv): its exit status and what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(list(argv))
    return status, out.getvalue()


@unittest.skipIf(coverage is None, "needs the coverage package")
class Command(unittest.TestCase):
    def setUp(self) -> None:
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)

    def test_a_line_reached_and_its_test_written(self) -> None:
        place = cases.place("retry")
        status, printed = command("reach", "--setup", "tests.reach_cases:optimistic", place,
                                  "--out", self.out)
        self.assertEqual(status, 0)
        self.assertIn(f"reached {place}", printed)
        [written] = Path(self.out).iterdir()
        self.assertEqual(written.name, "test_reach_tests_reach_cases_py_"
                                       f"{place.rsplit(':', 1)[1]}.py")
        self.assertIn(written.read_text(), printed)

    def test_a_line_no_order_runs(self) -> None:
        status, printed = command("reach", "--setup", "tests.reach_cases:never",
                                  cases.place("never"), "--out", self.out,
                                  "--processes", "1", "--max-preemptions", "2")
        self.assertEqual(status, 1)
        self.assertIn("no order with at most 2 preemption(s) runs", printed)
        self.assertEqual(list(Path(self.out).iterdir()), [])

    def test_mistakes(self) -> None:
        for argv, text in [(["--setup", "tests.reach_cases"], "expected 'module:function'"),
                           (["--setup", "tests.nowhere:setup"], "No module named"),
                           (["--setup", "tests.reach_cases:nothing"], "has no attribute")]:
            with self.subTest(argv), self.assertRaisesRegex(SystemExit, text):
                command("reach", *argv, "x.py:1")
        with contextlib.redirect_stderr(io.StringIO()) as err, \
                self.assertRaises(SystemExit) as caught:
            command("reach", "--setup", "tests.reach_cases:never")
        self.assertEqual(caught.exception.code, 2)
        self.assertIn("no line to reach", err.getvalue())

    def test_the_lines_a_coverage_data_file_says_no_test_ran(self) -> None:
        data = coverage.CoverageData(basename=f"{self.out}/.coverage")
        reach_cases = str(ROOT / "tests" / "reach_cases.py")
        never = int(cases.place("never").rsplit(":", 1)[1])
        data.add_lines({reach_cases: [n for n in range(1, never + 50) if n != never],
                        str(ROOT / "tests" / "reach_other.py"): [1]})
        data.write()
        status, printed = command("reach", "--setup", "tests.reach_cases:never", "--coverage",
                                  f"{self.out}/.coverage", "--out", self.out)
        self.assertEqual(status, 1)
        self.assertIn(f"missed by the tests, in tests/reach_cases.py: {cases.place('never')}\n",
                      printed)
        with unittest.mock.patch.dict(sys.modules, {"coverage": None}), \
                self.assertRaisesRegex(SystemExit, "needs the coverage package"):
            command("reach", "--setup", "tests.reach_cases:never", "--coverage", "x")


@unittest.skipIf(coverage is None, "needs the coverage package")
class Recipe(unittest.TestCase):
    """The page shows what the commands print, run here for real."""

    def run_in(self, folder: str, *argv: str) -> str:
        done = subprocess.run([sys.executable, "-m", *argv], cwd=folder, capture_output=True,
                              text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        return done.stdout

    def test_from_99_to_100(self) -> None:
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        shutil.copytree(EXAMPLE, Path(folder) / "to100",
                        ignore=shutil.ignore_patterns("__pycache__"))
        page = PAGE.read_text()
        self.run_in(folder, "coverage", "run", "--include=to100/*", "-m", "unittest", "-q",
                    "to100.test_lazy")
        before = self.run_in(folder, "coverage", "report", "-m")
        self.assertIn("to100/lazy.py           14      1    93%   19", before)
        printed = self.run_in(folder, "blanket", "reach", "--setup", "to100.scenarios:two_getters",
                              "--coverage", ".coverage", "--out", "to100")
        written = (Path(folder) / "to100" / "test_reach_to100_lazy_py_19.py").read_text()
        self.run_in(folder, "coverage", "run", "--include=to100/*", "-m", "unittest", "-q",
                    "to100.test_lazy", "to100.test_reach_to100_lazy_py_19")
        after = self.run_in(folder, "coverage", "report", "-m")
        self.assertIn("TOTAL                                     30      0   100%", after)
        for shown in (before, printed, after):
            shown = re.sub(r" in \d+\.\d\d s;", " in 0.01 s;", shown)
            for line in shown.splitlines():
                with self.subTest(line):
                    self.assertIn(f"   {line}".rstrip() + "\n", page)
        self.assertIn(written.split("class ", 1)[1], printed)

"""``python -m blanket reach`` (blanket/__main__.py), and the recipe "from
99% to 100%" (examples/to100, docs/cookbook/from_99_to_100.rst) run for
real: a coverage report with a missed line, the command, the test it
writes, the report at 100%."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
import unittest.mock
from pathlib import Path

import blanket
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
        status, printed = command("reach", "--setup", "tests.reach_cases:never_beside",
                                  cases.place("never"), "--out", self.out,
                                  "--processes", "1", "--max-preemptions", "0")
        self.assertEqual(status, 1)
        self.assertIn("no order with at most 0 preemption(s) runs", printed)
        self.assertEqual(list(Path(self.out).iterdir()), [])

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

    def test_coverage_data_of_none_of_the_files_beside_a_line_named(self) -> None:
        # Another project's data: said plainly, and the line named is searched for.
        data = coverage.CoverageData(basename=f"{self.out}/.coverage")
        data.add_lines({str(ROOT / "blanket" / "api.py"): [1]})
        data.write()
        status, printed = command("reach", "--setup", "tests.reach_cases:never", "--coverage",
                                  f"{self.out}/.coverage", cases.place("never"), "--out",
                                  f"{self.out}/made/here")
        self.assertEqual(status, 1)
        self.assertIn(f"the coverage data {self.out}/.coverage measured none of the files the "
                      "threads run: tests/reach_cases.py\n", printed)
        self.assertIn(f"no order of these threads runs {cases.place('never')}", printed)
        self.assertTrue(Path(self.out, "made", "here").is_dir())  # --out made (issue 33)

    def test_a_missing_out_folder_is_made(self) -> None:
        out = Path(self.out, "new", "folder")
        status, printed = command("reach", "--setup", "tests.reach_cases:optimistic",
                                  cases.place("retry"), "--out", str(out))
        self.assertEqual(status, 0)
        [written] = out.iterdir()
        self.assertIn(f"# {written}\n", printed)


class _Unsendable:
    """A setup pickle cannot send to another process: it holds a lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def __call__(self, scenario: blanket.Scenario) -> None:
        """Nothing to run."""


unsendable = _Unsendable()
NOT_A_FUNCTION = 42


class Mistakes(unittest.TestCase):
    """A mistake in the command exits 2 before any search runs, with one line
    that names the argument (argparse's convention), never a traceback."""

    def setUp(self) -> None:
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)

    def mistake(self, *argv: str) -> str:
        """The line main(argv) exits 2 with, no search run."""
        with contextlib.redirect_stderr(io.StringIO()) as err, \
                contextlib.redirect_stdout(io.StringIO()), \
                unittest.mock.patch("blanket.__main__.explore",
                                    side_effect=AssertionError("a search ran")), \
                self.assertRaises(SystemExit) as caught:
            main(["reach", *argv])
        self.assertEqual(caught.exception.code, 2, err.getvalue())
        self.assertNotIn("Traceback", err.getvalue())
        last = err.getvalue().splitlines()[-1]
        self.assertTrue(last.startswith("python -m blanket reach: error: "), last)
        return last.removeprefix("python -m blanket reach: error: ")

    def test_the_setup(self) -> None:
        for setup, says in [
                ("tests.reach_cases", "'tests.reach_cases': expected 'module:function', "
                                      "e.g. 'pkg.tests:setup'"),
                ("tests.nowhere:setup", "'tests.nowhere:setup': importing tests.nowhere raised "
                                        "ModuleNotFoundError: No module named 'tests.nowhere'"),
                ("tests.reach_cases:nothing", "'tests.reach_cases:nothing': module "
                                              "'tests.reach_cases' has no attribute 'nothing'"),
                ("tests.test_reach_cli:NOT_A_FUNCTION", "'tests.test_reach_cli:NOT_A_FUNCTION' "
                                                        "is 42: expected a function that fills "
                                                        "a Scenario"),
        ]:
            with self.subTest(setup):
                self.assertEqual(self.mistake("--setup", setup, "x.py:1"),
                                 f"argument --setup: {says}")

    def test_a_setup_that_raises_as_it_is_imported(self) -> None:
        folder = Path(self.out, "broken_setups")
        folder.mkdir()
        (folder / "__init__.py").write_text("raise RuntimeError('half written')\n")
        with unittest.mock.patch.object(sys, "path", [self.out, *sys.path]):
            self.assertEqual(self.mistake("--setup", "broken_setups:setup", "x.py:1"),
                             "argument --setup: 'broken_setups:setup': importing broken_setups "
                             "raised RuntimeError: half written")

    def test_the_lines(self) -> None:
        never = "--setup", "tests.reach_cases:never"
        self.assertEqual(self.mistake(*never, "foo"), "argument FILE:LINE: 'foo': expected "
                         "'file:line', e.g. 'pkg/module.py:42'")
        self.assertRegex(self.mistake(*never, "tests/reach_cases.py:99999"),
                         r"^argument FILE:LINE: tests/reach_cases.py:99999 has no code of a "
                         r"function to run")
        self.assertRegex(self.mistake(*never, "x.py:1"),
                         "^argument FILE:LINE: no function of x.py is loaded")
        self.assertEqual(self.mistake(*never), "no line to reach: name FILE:LINE, or "
                         "--coverage DATA")

    def test_the_counts(self) -> None:
        for argv, says in [
                (("--max-schedules", "0"), "argument --max-schedules: 0: expected at least 1"),
                (("--processes", "0"), "argument --processes: 0: expected at least 1"),
                (("--max-preemptions", "-1"), "argument --max-preemptions: -1: expected 0 or "
                                              "more"),
                (("--max-schedules", "many"), "argument --max-schedules: 'many': expected an "
                                              "int"),
        ]:
            with self.subTest(argv):
                self.assertEqual(self.mistake("--setup", "tests.reach_cases:never", *argv,
                                              cases.place("never")), says)

    def test_processes_with_a_setup_another_process_cannot_import(self) -> None:
        self.assertRegex(self.mistake("--setup", "tests.test_reach_cli:unsendable",
                                      "--processes", "2", cases.place("never")),
                         "^argument --processes: processes=2: the setup .* cannot be sent to "
                         "another process")

    def test_the_out_folder(self) -> None:
        never = "--setup", "tests.reach_cases:never", cases.place("never")
        afile = Path(self.out, "afile")
        afile.write_text("")
        self.assertEqual(self.mistake(*never, "--out", str(afile)),
                         f"argument --out: {str(afile)!r} is a file: expected a folder "
                         "(made if missing) to write the tests in")
        self.assertEqual(self.mistake(*never, "--out", f"{afile}/sub"),
                         f"argument --out: cannot make the folder '{afile}/sub': Not a "
                         "directory")
        with unittest.mock.patch.object(os, "access", return_value=False):
            self.assertEqual(self.mistake(*never, "--out", self.out),
                             f"argument --out: {self.out!r}: the folder cannot be written in")

    def test_without_the_coverage_package(self) -> None:
        with unittest.mock.patch.dict(sys.modules, {"coverage": None}):
            self.assertEqual(self.mistake("--setup", "tests.reach_cases:never", "--coverage",
                                          ".coverage"),
                             "argument --coverage: needs the coverage package: pip install "
                             "coverage")

    @unittest.skipIf(coverage is None, "needs the coverage package")
    def test_coverage_data_missing_unreadable_or_of_none_of_the_files(self) -> None:
        never = "--setup", "tests.reach_cases:never", "--coverage"
        missing = f"{self.out}/.coverage"
        self.assertEqual(self.mistake(*never, missing),
                         f"argument --coverage: {missing!r} is no file: expected the data "
                         "file coverage run writes (.coverage)")
        self.assertEqual(self.mistake(*never, self.out),
                         f"argument --coverage: {self.out!r} is no file: expected the data "
                         "file coverage run writes (.coverage)")
        corrupt = Path(self.out, "corrupt")
        corrupt.write_text("not coverage data\n")
        self.assertRegex(self.mistake(*never, str(corrupt)),
                         f"^argument --coverage: coverage cannot read {str(corrupt)!r}: "
                         ".*file is not a database")
        none = ("argument --coverage: the coverage data {} measured none of the files the "
                "threads run: tests/reach_cases.py: no line to reach")
        empty = Path(self.out, "empty")
        empty.write_text("")
        self.assertEqual(self.mistake(*never, str(empty)), none.format(empty))
        self.assertEqual(empty.read_text(), "")  # left as it was
        data = coverage.CoverageData(basename=f"{self.out}/other")
        data.add_lines({str(ROOT / "blanket" / "api.py"): [1]})  # another project's
        data.write()
        self.assertEqual(self.mistake(*never, f"{self.out}/other"),
                         none.format(f"{self.out}/other"))

    def test_through_python_dash_m(self) -> None:
        done = subprocess.run([sys.executable, "-m", "blanket", "reach", "--setup",
                               "tests.reach_cases:never", "foo"], cwd=ROOT, capture_output=True,
                              text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertEqual(done.stdout, "")
        self.assertTrue(done.stderr.startswith("usage: python -m blanket reach "), done.stderr)
        self.assertEqual(done.stderr.splitlines()[-1],
                         "python -m blanket reach: error: argument FILE:LINE: 'foo': expected "
                         "'file:line', e.g. 'pkg/module.py:42'")


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

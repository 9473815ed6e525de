"""``python -m blanket explore`` and ``python -m blanket linearizable``
(blanket/__main__.py): the verdict, the failure's test written, the JSON,
the exit statuses, the mistakes refused, and the progress line on a
terminal (under a pseudo-terminal, for real)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import unittest.mock
from pathlib import Path
from typing import Any

import blanket.__main__ as blanket_main
from blanket.__main__ import main
from blanket.exploration import reporting

from .support import unchecked

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
#: The bound of a command run in a fresh interpreter, on a loaded machine.
BOUND = 300.0


def under_a_terminal(*arguments: str) -> tuple[int, str, str]:
    """``python -m blanket *arguments*`` run with its stderr a pseudo-terminal:
    its exit status, what it showed there, and what it printed on stdout."""
    master, slave = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "blanket", *arguments], cwd=ROOT, env=ENV,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    finally:
        os.close(slave)
    shown = b""
    deadline = time.monotonic() + BOUND
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                continue
            try:
                chunk = os.read(master, 4096)
            except OSError:  # (Linux: the terminal's last writer is gone)
                break
            if not chunk:
                break
            shown += chunk
        printed = process.communicate(timeout=BOUND)[0].decode()
    finally:
        os.close(master)
        if process.poll() is None:  # pragma: no cover - the bound ran out
            process.kill()
            process.wait()
    return process.returncode, shown.decode(), printed
RACY = "tests.explore_bugs:check_then_act"
FIXED = "tests.explore_bugs:check_then_act_fixed"
COUNTER = "tests.lin_structures:COUNTER_OPERATIONS"


class Said:
    """A progress report that is its *text* (not done)."""

    def __init__(self, text: str) -> None:
        self.text, self.done = text, False

    def __str__(self) -> str:
        return self.text


class Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def command(*argv: str, err: io.StringIO | None = None) -> tuple[int, str, str]:
    """main(argv): its exit status, what it printed on stdout and on stderr."""
    out, err = io.StringIO(), err if err is not None else io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


class Explore(unittest.TestCase):
    def setUp(self) -> None:
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)

    def test_a_failure_its_test_written_and_the_json(self) -> None:
        report = Path(self.out, "result.json")
        status, printed, _ = command("explore", RACY, "--out", f"{self.out}/tests",
                                     "--json", str(report))
        self.assertEqual(status, 1)
        test = Path(self.out, "tests", "test_check_then_act_schedule.py")
        self.assertTrue(printed.startswith("dfs: 2 distinct schedule(s) in "), printed)
        self.assertIn("AssertionError: overdrawn: balance -60\n", printed)
        self.assertTrue(printed.endswith(f"\nthe failure's test: {test}\n"), printed)
        self.assertIn("class TestCheckThenActSchedule(blanket.ScenarioTestCase):",
                      test.read_text())
        found = json.loads(report.read_text())
        verdict, timeline = printed.split("\n\nthe schedule as a timeline (one column per "
                                          "thread):\n")
        self.assertEqual(found["verdict"], verdict)
        self.assertRegex(timeline, r"^  A +\| B\n  -+\+-+\n  1\. Lock 1 Lock\.acquire +\|\n")
        self.assertTrue(timeline.endswith(f"\n\nthe failure's test: {test}\n"), timeline)
        self.assertEqual(
            {key: found[key] for key in ("command", "ok", "strategy", "kind", "test",
                                          "exhausted", "stopped", "unseen", "races",
                                          "schedules", "runs")},
            {"command": "explore", "ok": False, "strategy": "dfs", "kind": "invariant",
             "test": str(test), "exhausted": False, "stopped": "", "unseen": [], "races": [],
             "schedules": 2, "runs": 2})
        self.assertIn("overdrawn: balance -60", found["message"])
        self.assertEqual(found["schedule"][:2], ["A: Lock 1 Lock.acquire",
                                                 "A: Lock 1 Lock.release"])
        self.assertEqual(len(found["schedule"]), 5)  # shrunk from the run's 8
        self.assertTrue(found["checked"].startswith("tried:"), found["checked"])
        self.assertIsInstance(found["elapsed"], float)

    def test_no_failure_and_the_json_on_stdout(self) -> None:
        status, printed, said = command("explore", FIXED, "--json", "-", "--out", self.out)
        self.assertEqual(status, 0)
        found = json.loads(printed)  # stdout is the JSON alone
        self.assertEqual(said, found["verdict"] + "\n")
        self.assertEqual((found["ok"], found["kind"], found["schedule"], found["test"],
                          found["exhausted"], found["schedules"]),
                         (True, None, [], None, True, 2))
        self.assertTrue(found["verdict"].startswith("dfs: 2 distinct schedule(s), the whole "
                                                    "space in "))
        self.assertEqual(list(Path(self.out).iterdir()), [])  # no test to write

    def test_the_options_given_to_the_search(self) -> None:
        status, printed, _ = command("explore", "tests.explore_bugs:philosophers_fixed",
                                     "--strategy", "random", "--seed", "-3",
                                     "--max-schedules", "2", "--races", "off", "--timeout",
                                     "5", "--processes", "1", "--json", f"{self.out}/r.json")
        self.assertEqual(status, 0)
        found = json.loads(Path(self.out, "r.json").read_text())
        self.assertEqual((found["strategy"], found["races"], found["stopped"], found["runs"]),
                         ("random", [], "max_schedules=2", 4))  # two samples, a pass run each
        self.assertEqual(printed, found["verdict"] + "\n")
        status, printed, _ = command("explore", "tests.explore_bugs:philosophers_fixed",
                                     "--max-preemptions", "0")
        self.assertIn("all it reached with at most 0 preemption(s)", printed)

    def test_a_wall_clock_budget(self) -> None:
        # (17,153,136 orders: no search runs them within a millisecond)
        status, printed, _ = command("explore", "tests.test_explore_budget:three_threads",
                                     "--max-seconds", "0.001", "--max-schedules", "1000000",
                                     "--json", f"{self.out}/r.json")
        self.assertEqual(status, 0)
        self.assertIn("; stopped by max_seconds=0.001 with orders left; no failure", printed)
        found = json.loads(Path(self.out, "r.json").read_text())
        self.assertEqual((found["exhausted"], found["stopped"]), (False, "max_seconds=0.001"))

    def test_the_progress_line_on_a_terminal(self) -> None:
        terminal = Terminal()
        with unittest.mock.patch.object(reporting, "INTERVAL", 0.0):  # a line a run
            status, printed, said = command("explore", FIXED, err=terminal)
        self.assertEqual(status, 0)
        self.assertEqual(said, "\r1 schedules, " + said[14:])
        lines = said.split("\r")
        self.assertEqual(lines[0], "")
        self.assertRegex(lines[1], r"^1 schedules, [\d,]+ runs/s, 0 races, 0 gaps, 9,999 left$")
        self.assertRegex(lines[2], r"^2 schedules, [\d,]+ runs/s, 0 races, 0 gaps, 9,998 left")
        self.assertEqual(lines[3:], [" " * len(lines[2]), ""])  # rubbed out at the end
        self.assertTrue(printed.startswith("dfs: 2 distinct schedule(s), the whole space"))

    def test_the_rubbing_out_covers_the_longest_line_shown(self) -> None:
        # Before: after a shorter line (fewer runs/s) it rubbed out only
        # that one's length, and the test above failed now and then.
        terminal = Terminal()
        line = blanket_main._Line(terminal)
        with unchecked():  # (a stand-in for a Progress: only its text shows)
            for text in ("1 schedules, 1,000 runs/s", "2 schedules, 9 runs/s"):
                line(Said(text))  # type: ignore[arg-type]
        line.clear()
        self.assertEqual(terminal.getvalue().split("\r"),
                         ["", "1 schedules, 1,000 runs/s", "2 schedules, 9 runs/s    ",
                          " " * 25, ""])

    def test_no_line_when_no_report_came(self) -> None:
        with unittest.mock.patch.object(reporting, "INTERVAL", 1e9):
            status, _, said = command("explore", FIXED, err=Terminal())
        self.assertEqual((status, said), (0, ""))

    def test_the_line_rubbed_out_when_the_search_raises(self) -> None:
        def interrupted(*args: Any, progress: Any, **options: Any) -> None:
            from blanket import Progress
            progress(Progress(3, 4, 1.0, 0, 0, 10, 7))
            raise KeyboardInterrupt
        terminal = Terminal()
        with unittest.mock.patch("blanket.__main__.explore", interrupted), \
                self.assertRaises(KeyboardInterrupt):
            command("explore", FIXED, err=terminal)
        line = "3 schedules, 4 runs/s, 0 races, 0 gaps, 7 left"
        self.assertEqual(terminal.getvalue(), f"\r{line}\r{' ' * len(line)}\r")


class Linearizable(unittest.TestCase):
    def setUp(self) -> None:
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)

    def test_not_linearizable_its_test_and_the_json(self) -> None:
        status, printed, _ = command("linearizable", "tests.lin_structures:UnlockedCounter",
                                     COUNTER, "--scenarios", "2", "--threads", "2",
                                     "--operations-per-thread", "1", "--out", self.out,
                                     "--json", f"{self.out}/r.json")
        self.assertEqual(status, 1)
        test = Path(self.out, "test_UnlockedCounter_schedule.py")
        self.assertIn("a failure: not linearizable:", printed)
        self.assertTrue(printed.endswith(f"\nthe failure's test: {test}\n"), printed)
        found = json.loads(Path(self.out, "r.json").read_text())
        self.assertEqual((found["command"], found["ok"], found["kind"], found["test"],
                          found["scenarios"]),
                         ("linearizable", False, "not linearizable", str(test), 2))
        self.assertIn("the specification returns 1", found["message"])
        self.assertTrue(found["races"])
        self.assertIn("UnlockedCounter", test.read_text())

    def test_linearizable(self) -> None:
        status, printed, _ = command("linearizable", "tests.lin_structures:LockedCounter",
                                     COUNTER, "--scenarios", "1", "--strategy", "dfs",
                                     "--seed", "1", "--max-schedules", "50", "--timeout", "5",
                                     "--json", f"{self.out}/r.json", "--out", self.out)
        self.assertEqual(status, 0)
        self.assertTrue(printed.endswith("; linearizable\n"), printed)
        found = json.loads(Path(self.out, "r.json").read_text())
        self.assertEqual((found["ok"], found["test"], found["exhausted"], found["scenarios"],
                          found["scenarios_exhausted"], found["stopped"]),
                         (True, None, True, 1, 1, ""))

    def test_a_wall_clock_budget(self) -> None:
        # The first scenario's exploration has 6 schedules, each run far
        # longer than 0.1 ms (threads handing over): the time runs out in it.
        status, printed, _ = command("linearizable", "tests.lin_structures:LockedCounter",
                                     COUNTER, "--max-seconds", "0.0001", "--json",
                                     f"{self.out}/r.json", "--out", self.out)
        self.assertEqual(status, 0)
        self.assertIn("; stopped by max_seconds=0.0001 with scenarios left; linearizable",
                      printed)
        found = json.loads(Path(self.out, "r.json").read_text())
        self.assertEqual((found["exhausted"], found["scenarios"], found["stopped"]),
                         (False, 1, "max_seconds=0.0001"))


NOT_A_LIST = 42


class Mistakes(unittest.TestCase):
    """A mistake exits 2 before any search, in one line naming the argument."""

    def setUp(self) -> None:
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)

    def mistake(self, *argv: str) -> str:
        """The line main(argv) exits 2 with, no search run."""
        ran = AssertionError("a search ran")
        with contextlib.redirect_stderr(io.StringIO()) as err, \
                contextlib.redirect_stdout(io.StringIO()), \
                unittest.mock.patch("blanket.__main__.explore", side_effect=ran), \
                unittest.mock.patch("blanket.__main__.check_linearizable", side_effect=ran), \
                self.assertRaises(SystemExit) as caught:
            main(list(argv))
        self.assertEqual(caught.exception.code, 2, err.getvalue())
        last = err.getvalue().splitlines()[-1]
        prefix = f"python -m blanket {argv[0]}: error: "
        self.assertTrue(last.startswith(prefix), last)
        return last.removeprefix(prefix)

    def test_explore(self) -> None:
        afile = Path(self.out, "afile")
        afile.write_text("")
        for argv, says in [
                (("tests.explore_bugs",), "argument MODULE:SETUP: 'tests.explore_bugs': "
                                          "expected 'module:function', e.g. "
                                          "'pkg.tests:setup'"),
                ((FIXED, "--seed", "x"), "argument --seed: 'x': expected an int"),
                ((FIXED, "--timeout", "soon"), "argument --timeout: 'soon': expected a "
                                               "number of seconds"),
                ((FIXED, "--max-schedules", "0"), "argument --max-schedules: 0: expected "
                                                  "at least 1"),
                ((FIXED, "--json", self.out), f"argument --json: {self.out!r} is a folder: "
                                              "expected a file to write the result in, or "
                                              "- for stdout"),
                ((FIXED, "--json", f"{self.out}/no/r.json"),
                 f"argument --json: '{self.out}/no/r.json': no folder '{self.out}/no' to "
                 "write it in"),
                ((FIXED, "--out", f"{afile}/sub"), f"argument --out: cannot make the folder "
                                                   f"'{afile}/sub': Not a directory"),
        ]:
            with self.subTest(argv):
                self.assertEqual(self.mistake("explore", *argv), says)
        for option, given, choices in [("--strategy", "bfs", "dfs, random, pct"),
                                       ("--races", "some", "report, fail, off")]:
            # (some versions of argparse quote the choices, some do not)
            self.assertEqual(self.mistake("explore", FIXED, option, given).replace("'", ""),
                             f"argument {option}: invalid choice: {given} (choose from "
                             f"{choices})")
        self.assertEqual(self.mistake("explore", FIXED, "--max-seconds", "soon"),
                         "argument --max-seconds: 'soon': expected a number of seconds")
        self.assertRegex(self.mistake("explore", FIXED, "--max-seconds", "inf"),
                         r"^argument --max-seconds: it is a finite number of seconds")
        self.assertRegex(self.mistake("explore", FIXED, "--timeout", "0"),
                         r"^argument --timeout: it is a finite number of seconds, "
                         r"more than 0 and at most threading.TIMEOUT_MAX \(\d+\), not 0.0$")
        self.assertRegex(self.mistake("explore", "tests.test_reach_cli:unsendable",
                                      "--processes", "2"),
                         "^argument --processes: processes=2: the setup .* cannot be sent")

    def test_linearizable(self) -> None:
        counter = "tests.lin_structures:LockedCounter"
        for argv, says in [
                (("tests.lin_structures", COUNTER),
                 "argument MODULE:FACTORY: 'tests.lin_structures': expected 'module:name', "
                 "e.g. 'pkg.tests:Queue'"),
                (("tests.test_explore_cli:NOT_A_LIST", COUNTER),
                 "argument MODULE:FACTORY: 'tests.test_explore_cli:NOT_A_LIST' is 42: "
                 "expected a factory of the object under test"),
                ((counter, "tests.lin_structures"),
                 "argument MODULE:OPERATIONS: 'tests.lin_structures': expected "
                 "'module:name', e.g. 'pkg.tests:OPERATIONS'"),
                ((counter, "tests.test_explore_cli:NOT_A_LIST"),
                 "argument MODULE:OPERATIONS: 'tests.test_explore_cli:NOT_A_LIST': "
                 "operations=42: expected a non-empty sequence of callables op(obj)"),
                ((counter, "tests.nowhere:OPS"),
                 "argument MODULE:OPERATIONS: 'tests.nowhere:OPS': importing tests.nowhere "
                 "raised ModuleNotFoundError: No module named 'tests.nowhere'"),
                ((counter, COUNTER, "--threads", "0"), "argument --threads: 0: expected at "
                                                       "least 1"),
        ]:
            with self.subTest(argv):
                self.assertEqual(self.mistake("linearizable", *argv), says)


class ForReal(unittest.TestCase):
    """The command in a fresh interpreter: end to end, and on a terminal."""

    def setUp(self) -> None:
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)

    def test_the_test_written_fails_as_its_user_runs_it(self) -> None:
        done = subprocess.run([sys.executable, "-m", "blanket", "explore", RACY, "--out",
                               self.out, "--json", f"{self.out}/r.json"], cwd=ROOT, env=ENV,
                              capture_output=True, text=True, timeout=BOUND)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertEqual(done.stderr, "")  # no terminal: no progress line
        found = json.loads(Path(self.out, "r.json").read_text())
        self.assertEqual(found["test"], f"{self.out}/test_check_then_act_schedule.py")
        ran = subprocess.run([sys.executable, "-m", "unittest", "test_check_then_act_schedule"],
                             cwd=self.out, env=ENV, capture_output=True, text=True,
                             timeout=BOUND)
        self.assertEqual(ran.returncode, 1, ran.stderr)
        self.assertIn("FAILED (failures=1)", ran.stderr)
        self.assertIn("overdrawn: balance -60", ran.stderr)

    def test_the_progress_line_under_a_pseudo_terminal(self) -> None:
        status, text, printed = under_a_terminal("explore", "tests.explore_bugs:philosophers_fixed")
        self.assertEqual(status, 0, text)
        self.assertIn("\r", text)
        self.assertRegex(text, r"\r[\d,]+ schedules, [\d,]+ runs/s, \d+ races, 0 gaps, "
                               r"[\d,]+ left")
        self.assertTrue(text.endswith(" \r"), text[-80:])  # rubbed out at the end
        self.assertTrue(printed.startswith("dfs: 120 distinct schedule(s), the whole space, 5 "
                                           "data race(s) in "), printed)


if __name__ == "__main__":
    unittest.main()

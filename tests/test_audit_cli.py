"""``python -m blanket audit`` (blanket/__main__.py): the report, the
failures' tests written, the JSON, the exit statuses, the mistakes refused,
the progress line on a terminal (and under a pseudo-terminal, for real)."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import blanket
from blanket.linearizability.scenarios import Workload

from .support import unchecked
from .test_explore_cli import BOUND, ENV, Terminal, command, under_a_terminal

RACY = "tests.audit_classes:RacyCounter"
LOCKED = "tests.audit_classes:LockedCounter"


class Audit(unittest.TestCase):
    def setUp(self) -> None:
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)

    def test_not_linearizable_its_tests_and_the_json(self) -> None:
        status, printed, _ = command("audit", RACY, "--out", self.out, "--json",
                                     f"{self.out}/r.json", "--seed", "1", "--timeout", "5",
                                     "--max-seconds", "30")
        self.assertEqual(status, 1)
        test = Path(self.out, "test_audit_RacyCounter_increment_increment.py")
        self.assertTrue(printed.startswith("tests.audit_classes.RacyCounter: not "
                                           "linearizable; 3 pair(s)"), printed)
        self.assertTrue(printed.endswith(f"the test of increment × increment: {test}\n"))
        found = json.loads(Path(self.out, "r.json").read_text())
        self.assertEqual((found["command"], found["ok"], found["tests"], found["max_seconds"]),
                         ("audit", False, [str(test)], 30.0))
        self.assertIn("class TestRacyCounterIncrementIncrementSchedule", test.read_text())
        ran = subprocess.run([sys.executable, "-m", "unittest", test.stem], cwd=self.out,
                             env=ENV, capture_output=True, text=True, timeout=BOUND)
        self.assertEqual(ran.returncode, 1, ran.stderr)
        self.assertIn("FAILED (failures=1)", ran.stderr)

    def test_linearizable_and_the_json_on_stdout(self) -> None:
        status, printed, said = command("audit", LOCKED, "--include", "increment", "--bind",
                                        "value=[3]", "--json", "-", "--out", self.out,
                                        "--factory", "tests.audit_classes:LockedCounter")
        self.assertEqual(status, 0)
        found = json.loads(printed)
        self.assertEqual(found["built"], "LockedCounter()")
        self.assertEqual((found["verdict"], found["methods"], found["tests"]),
                         ("linearizable", ["increment"], []))
        self.assertIn("increment × increment: linearizable", said)

    def test_the_progress_line_on_a_terminal(self) -> None:
        err = Terminal()
        status, _, _ = command("audit", LOCKED, "--out", self.out, err=err)
        self.assertEqual(status, 0)
        shown = err.getvalue()
        self.assertIn("\rpair 1 of 3 (increment × increment): 0 schedules", shown)
        self.assertTrue(shown.endswith(" \r"), shown[-40:])


class Mistakes(unittest.TestCase):
    """A mistake exits 2 in one line naming the argument."""

    def mistake(self, *argv: str) -> str:
        err = io.StringIO()
        with self.assertRaises(SystemExit) as caught:
            command(*argv, err=err)
        self.assertEqual(caught.exception.code, 2, err.getvalue())
        last = err.getvalue().splitlines()[-1]
        prefix = "python -m blanket audit: error: "
        self.assertTrue(last.startswith(prefix), last)
        return last.removeprefix(prefix)

    def test_each(self) -> None:
        for argv, says in [
                (("tests.audit_classes",), "argument MODULE:CLASS: 'tests.audit_classes': "
                                           "expected 'module:name', e.g. 'pkg.tests:Queue'"),
                ((RACY, "--bind", "key"), "argument --bind: 'key': expected NAME=VALUES, e.g. "
                                          "key=\"['a', 'b']\" or __init__.maxsize=2"),
                ((RACY, "--include", "nothing"), "audit: RacyCounter has no attribute "
                                                 "'nothing' (include=/exclude= name its "
                                                 "methods and properties)"),
                (("tests.audit_classes:GATE",), "audit: <_queue.SimpleQueue object at ...> is "
                                                "not callable: expected a class, or a factory "
                                                "of the objects to audit"),
                (("tests.audit_classes:NeedsCallback",),
                 "audit: NeedsCallback() needs an argument it cannot guess: callback - bind "
                 "it (bind={'__init__.NAME': [value]}, --bind NAME=VALUE) or name a factory "
                 "(factory=, --factory MODULE:NAME)")]:
            with self.subTest(argv), unchecked():  # (audit's own TypeError, not typeguard's)
                said = self.mistake("audit", *argv)
                self.assertEqual(re.sub(r"0x[0-9a-f]+", "...", said), says)

    def test_workloads_of_other_operations(self) -> None:
        # (check_linearizable's hook that the audit gives its scenarios by)
        ops = [blanket.Operation("increment")]
        with self.assertRaisesRegex(TypeError, "expected Workloads of the operations"):
            blanket.check_linearizable(dict, ops, workloads=[
                Workload([[blanket.Operation("increment")]])])


class ForReal(unittest.TestCase):
    def test_the_progress_line_under_a_pseudo_terminal(self) -> None:
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        status, text, printed = under_a_terminal("audit", "tests.audit_classes:Registry",
                                                 "--out", out)
        self.assertEqual(status, 0, text)
        self.assertRegex(text, r"\rpair \d+ of 28 \(\S+ × \S+\): [\d,]+ schedules")
        self.assertTrue(text.endswith(" \r"), text[-80:])
        # (linearizable, or not exhaustive when the machine is loaded: never a failure)
        self.assertRegex(printed, r"^tests.audit_classes.Registry: (linearizable|no failure "
                                  r"found \(not exhaustive: \d+ of 28 pair\(s\) not "
                                  r"exhausted\)); ")


if __name__ == "__main__":
    unittest.main()

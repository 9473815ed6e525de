"""The searches refuse to answer on an interpreter they are not tested on
(blanket.interpreters): explore, check_linearizable and assertLinearizable,
assertReached and ``python -m blanket reach`` raise UnsupportedInterpreter
before running anything; a scenario's script goes on as anywhere. The
interpreter is patched (sys.version_info, sys.implementation), which the
check reads at each call; a child process imports blanket as such an
interpreter would."""

from __future__ import annotations

import collections
import contextlib
import io
import os
import subprocess
import sys
import sysconfig
import types
import unittest
import unittest.mock
from collections.abc import Iterator
from pathlib import Path

import blanket
from blanket import interpreters
from blanket.__main__ import main

from . import reach_cases as cases

# sysconfig's variables are read once, and from sys.version_info: not while it is patched.
sysconfig.get_config_vars()
VersionInfo = collections.namedtuple("VersionInfo", "major minor micro releaselevel serial")
ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def running(version: tuple[int, int, int] | None = None, name: str | None = None
            ) -> Iterator[None]:
    """The interpreter seems to be CPython *version*, or the implementation *name*."""
    with contextlib.ExitStack() as stack:
        if version is not None:
            stack.enter_context(unittest.mock.patch.object(
                sys, "version_info", VersionInfo(*version, "final", 0)))
        if name is not None:
            seeming = types.SimpleNamespace(**{**vars(sys.implementation), "name": name})
            stack.enter_context(unittest.mock.patch.object(sys, "implementation", seeming))
        yield


#: What a refusal names each untested interpreter, and the interpreter.
UNTESTED: dict[str, tuple[tuple[int, int, int] | None, str | None]] = {
    "CPython 3.14.0": ((3, 14, 0), None), "CPython 3.10.13": ((3, 10, 13), None),
    "CPython 4.0.0": ((4, 0, 0), None), "pypy (Python 3.11.9)": ((3, 11, 9), "pypy")}


def never_called(scenario: blanket.Scenario) -> None:
    raise AssertionError("the setup ran on an untested interpreter")


class Refused(unittest.TestCase):
    def check_refused(self, call: object, what: str) -> None:
        """*call* refuses on every untested interpreter, naming it and the tested ones."""
        assert callable(call)
        for named, (version, implementation) in UNTESTED.items():
            with self.subTest(named), running(version, implementation), self.assertRaises(
                    blanket.UnsupportedInterpreter) as caught:
                call()
            message = str(caught.exception)
            self.assertTrue(message.startswith(
                f"{what}: blanket's searches are tested on CPython 3.11, 3.12, 3.13 and the "
                f"free-threaded 3.13t, not on {named}"), message)
            self.assertIn("(a scenario's script - Scenario, its primitives, "
                          "ScenarioTestCase's steps - does not refuse)", message)
            self.assertIsInstance(caught.exception, RuntimeError)

    def test_explore(self) -> None:
        self.check_refused(lambda: blanket.explore(never_called), "explore")

    def test_explore_refuses_before_it_looks_at_its_arguments(self) -> None:
        self.check_refused(lambda: blanket.explore(never_called, strategy="nope"), "explore")

    def test_check_linearizable(self) -> None:
        def make() -> object:
            raise AssertionError("an object was made on an untested interpreter")
        self.check_refused(lambda: blanket.check_linearizable(make, [len]),
                           "check_linearizable")

    def test_the_command_line(self) -> None:
        line = cases.place("never")
        for named, (version, implementation) in UNTESTED.items():
            for extra in ([line], ["--coverage", "nowhere"]):
                stderr = io.StringIO()
                with self.subTest(named, extra=extra), running(version, implementation), \
                        self.assertRaises(SystemExit) as caught, \
                        contextlib.redirect_stderr(stderr):
                    main(["reach", "--setup", "tests.test_interpreters:never_called", *extra])
                self.assertEqual(caught.exception.code, 2)
                self.assertTrue(stderr.getvalue().startswith(
                    "python -m blanket: error: python -m blanket reach: blanket's searches "
                    f"are tested on CPython 3.11, 3.12, 3.13 and the free-threaded 3.13t, "
                    f"not on {named}"), stderr.getvalue())

    def test_the_free_threaded_build_is_named(self) -> None:
        with running((3, 14, 1)), unittest.mock.patch(
                "sysconfig.get_config_var", {"Py_GIL_DISABLED": 1}.get):
            self.assertEqual(interpreters.running(), "CPython 3.14.1 (free-threaded)")
            self.assertFalse(interpreters.tested())

    def test_the_tested_versions_are_not_refused(self) -> None:
        for version in ((3, 11, 0), (3, 12, 9), (3, 13, 5)):
            with self.subTest(version), running(version):
                self.assertTrue(interpreters.tested())
                interpreters.refuse_untested("explore")  # (nothing raised)
        with running((3, 13, 0), name="cpython"):
            self.assertEqual(interpreters.running(), "CPython 3.13.0" + (
                " (free-threaded)" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""))


class AssertReachedRefused(blanket.ScenarioTestCase):
    def test_assert_reached(self) -> None:
        with running((3, 14, 0)), self.assertRaisesRegex(
                blanket.UnsupportedInterpreter,
                r"^seeing lines run \(assertReached, reach=\): .* not on CPython 3\.14\.0"):
            self.assertReached(cases.never, [], cases.place("never"))

    def test_assert_linearizable(self) -> None:
        with running(name="pypy"), self.assertRaisesRegex(
                blanket.UnsupportedInterpreter, r"^check_linearizable: .* not on pypy"):
            self.assertLinearizable(list, [len])


class ScriptsGoOn(blanket.ScenarioTestCase):
    """A scenario's script gives no verdict of a search: it does not refuse."""

    def test_a_scripted_scenario_on_an_untested_interpreter(self) -> None:
        scenario = self.scenario
        lock = scenario.Lock()
        order: list[str] = []

        def worker(name: str) -> None:
            with lock:
                order.append(name)
        with running((3, 14, 0)):
            first, second = scenario.thread(worker, "first"), scenario.thread(worker, "second")
            with scenario:
                scenario.finish(first)
                scenario.finish(second)
        self.assertEqual(order, ["first", "second"])


class Import(unittest.TestCase):
    def test_blanket_imports_on_an_untested_version_and_refuses(self) -> None:
        # What the import of blanket decides by the version runs as it would
        # on 3.14 (the internals themselves are this interpreter's).
        program = (
            "import collections, sys\n"
            "sys.version_info = collections.namedtuple('V', 'major minor micro releaselevel "
            "serial')(3, 14, 0, 'final', 0)\n"
            "import blanket\n"
            "scenario = blanket.Scenario('s')\n"
            "thread = scenario.thread(scenario.Lock().acquire)\n"
            "with scenario:\n"
            "    scenario.finish(thread)\n"
            "try:\n"
            "    blanket.explore(lambda scenario: None)\n"
            "except blanket.UnsupportedInterpreter as error:\n"
            "    print(str(error).split(':')[0], 'refused')\n")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                              env=env, cwd=ROOT, timeout=60, check=False)
        self.assertEqual((done.returncode, done.stdout, done.stderr), (0, "explore refused\n", ""))


if __name__ == "__main__":  # pragma: no cover
    unittest.main()

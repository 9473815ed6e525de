"""The pytest plugin (``blanket/pytest_plugin.py``), driven by pytest on
small test files written for it: in this process (``pytest.main`` with the
plugin given as an object, so that coverage sees it) and in fresh
processes (``python -m pytest -p blanket.pytest_plugin``), plain and under
pytest-xdist (``-n 2``). The suite is unittest's: these are unittest tests,
skipped where pytest (or pytest-xdist) is not installed.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import os
import subprocess
import sys
import tempfile
import textwrap
import tomllib
import types
import unittest
import unittest.mock
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HAVE_PYTEST = importlib.util.find_spec("pytest") is not None
HAVE_XDIST = importlib.util.find_spec("xdist") is not None
#: What every run is given: no cache written beside the files, the plugin
#: by this checkout's module (an installed entry point kept out).
BASE = ["-p", "no:cacheprovider", "-p", "no:blanket"]
# pytest prints its summary lines whole (" - <message>" past the terminal's width) when
# one of these says it runs on CI; the tests read the summary as a user's terminal shows it
CI_VARIABLES = ("CI", "BUILD_NUMBER")


def local_environment(**extra: str) -> dict[str, str]:
    """os.environ as on a developer's machine (no CI variables), with *extra* added."""
    environment = {name: value for name, value in os.environ.items()
                   if name not in CI_VARIABLES}
    return {**environment, **extra}


#: A user's test file: a counter under a lock (``LOCKED``), or not.
USER = '''
import threading

import blanket

LOCKED = {locked}


class Counter:
    def __init__(self, lock=None):
        self.lock = lock if lock is not None else threading.Lock()
        self.value = 0

    def increment(self):
        if LOCKED:
            with self.lock:
                self.value += 1
        else:
            value = self.value
            self.value = value + 1

    def get(self):
        return self.value


OPERATIONS = [blanket.Operation("increment"), blanket.Operation("get")]


def two_increments(scenario):
    counter = Counter(scenario.Lock())
    scenario.thread(counter.increment)
    scenario.thread(counter.increment)

    def check():
        assert counter.value == 2, f"the counter is {{counter.value}}, not 2"
    return check


def test_scenario(scenario):
    lock = scenario.Lock()
    order = []

    def note():
        with lock:
            order.append(threading.current_thread().name)
    A = scenario.thread(note)
    B = scenario.thread(note)
    with scenario:
        list(scenario.api(lock).relay(B, A))
    assert order == ["B", "A"]


def test_explore(blanket_explore):
    assert blanket_explore(two_increments).ok


def test_linearizable(blanket_check_linearizable):
    assert blanket_check_linearizable(Counter, OPERATIONS, scenarios=3).ok
'''


def written(folder: Path, name: str, source: str) -> Path:
    """*source* written to the file *name*.py in *folder*."""
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    return path


@unittest.skipUnless(HAVE_PYTEST, "pytest is not installed")
class InProcess(unittest.TestCase):
    """pytest run in this process, the plugin given as an object."""

    def setUp(self) -> None:
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = Path(folder.name)
        self.name = f"test_blanket_plugin_{self._testMethodName}"

    def run_pytest(self, source: str, *args: str, plugins: tuple[object, ...] | list[object] = ()
                   ) -> tuple[int, str]:
        """Run pytest on *source*; its exit code and what it printed."""
        import pytest

        from blanket import pytest_plugin
        path = written(self.folder, self.name, source)
        shown = io.StringIO()
        path_before = list(sys.path)
        try:
            with contextlib.redirect_stdout(shown), contextlib.redirect_stderr(shown), \
                    unittest.mock.patch.dict(os.environ, local_environment(), clear=True):
                code = pytest.main([*BASE, "-p", "no:xdist", "--rootdir", str(self.folder),
                                    str(path), *args], plugins=[pytest_plugin, *plugins])
        finally:
            sys.path[:] = path_before
            sys.modules.pop(self.name, None)
        return int(code), shown.getvalue()

    def test_green_on_a_fixed_class(self) -> None:
        code, shown = self.run_pytest(USER.format(locked=True))
        self.assertEqual(code, 0, shown)
        self.assertIn("3 passed", shown)
        self.assertIn("blanket: seed 0, budget 10000 schedule(s) and 120 s a search, shard 1/1, "
                      "processes 1", shown)
        self.assertRegex(shown, r"blanket: 1 exploration\(s\), 1 linearizability check\(s\): "
                                r"\d+ schedule\(s\), 2 of 2 search\(es\) covered their whole "
                                r"space, 0 failure\(s\) found")

    def test_red_with_a_readable_report_on_a_buggy_class(self) -> None:
        code, shown = self.run_pytest(USER.format(locked=False))
        self.assertEqual(code, 1, shown)
        self.assertIn("2 failed, 1 passed", shown)
        for part in ("explore(two_increments) failed: dfs: ",
                     "the counter is 1, not 2", "schedule:\n  1. ",
                     "the schedule as a timeline (one column per thread):\n  A ",
                     "a test that replays it:", f"from {self.name} import two_increments",
                     "class TestTwoIncrementsSchedule(blanket.ScenarioTestCase):",
                     "check_linearizable(Counter) failed: dfs: ", "not linearizable",
                     "no order of the calls, one at a time, gives the results seen",
                     "class TestCounterSchedule(blanket.ScenarioTestCase):",
                     "2 failure(s) found"):
            self.assertIn(part, shown)
        self.assertNotIn("pytest_plugin.py", shown)  # pytest's report, not a traceback of it
        # The written tests failed as the searches' runs did, run as a user runs them
        # (pytest's explanations of the invariant's assert aside).
        self.assertNotIn("the written test:", shown)
        self.assertIn('"""AssertionError: the counter is 1, not 2"""', shown)

    def test_the_options_are_applied(self) -> None:
        source = '''
            import blanket
            import pytest

            def rounds(scenario):
                lock, log = scenario.Lock(), []

                def work():
                    for n in range(3):
                        with lock:
                            log.append(n)
                for _ in range(3):
                    scenario.thread(work)

            def test_seed_budget_shard(blanket_explore):
                result = blanket_explore(rounds, strategy="random")
                alike = blanket.explore(rounds, strategy="random", seed=7, max_schedules=5,
                                        shard="2/3")
                other = blanket.explore(rounds, strategy="random", max_schedules=5,
                                        shard="2/3")
                assert result.schedules == alike.schedules != other.schedules

            @pytest.mark.blanket(max_schedules=3)
            def test_the_marker_over_the_command_line(blanket_explore):
                assert blanket_explore(rounds).stopped == "max_schedules=3"

            @pytest.mark.blanket(max_schedules=3)
            def test_the_call_over_the_marker(blanket_explore):
                assert blanket_explore(rounds, max_schedules=2).stopped == "max_schedules=2"

            @pytest.mark.blanket(shard="1/1")
            def test_a_test_of_its_own_shard(blanket_explore):
                assert blanket_explore(rounds).count == 5

            def test_a_check_the_seed_and_budget(blanket_check_linearizable):
                class Box:
                    def __init__(self):
                        self.value = 0
                    def put(self):
                        self.value = 1
                    def get(self):
                        return self.value
                ops = [lambda box: box.put(), lambda box: box.get()]
                result = blanket_check_linearizable(Box, ops, scenarios=2)
                alike = blanket.check_linearizable(Box, ops, scenarios=2, seed=7,
                                                   max_schedules=5)
                assert result.schedules == alike.schedules
        '''
        code, shown = self.run_pytest(source, "--blanket-seed", "7", "--blanket-budget", "5",
                                      "--blanket-shard", "2/3", "-rP")
        self.assertEqual(code, 0, shown)
        self.assertIn("5 passed", shown)
        self.assertIn("blanket: seed 7, budget 5 schedule(s) and 120 s a search, shard 2/3, "
                      "processes 1", shown)
        self.assertIn("explore: random: ", shown)  # -rP: the verdict
        self.assertIn("blanket: 4 exploration(s), 1 linearizability check(s): ", shown)
        self.assertIn(", 4 stopped by the budget, 0 failure(s) found", shown)

    def test_a_tests_own_processes_or_shard_over_the_command_lines(self) -> None:
        source = '''
            import blanket

            def rounds(scenario):
                lock = scenario.Lock()

                def work():
                    with lock:
                        pass
                for _ in range(3):
                    scenario.thread(work)

            WHOLE = sorted(blanket.explore(rounds).schedules)

            def test_its_processes(blanket_explore):  # one process: the whole search
                assert sorted(blanket_explore(rounds, processes=1).schedules) == WHOLE

            def test_its_shard(blanket_explore):
                part = blanket_explore(rounds, shard="1/2").schedules
                assert part == blanket.explore(rounds, shard="1/2").schedules != WHOLE
        '''
        code, shown = self.run_pytest(source, "--blanket-shard", "2/2",
                                      "--blanket-processes", "1")
        self.assertEqual(code, 0, shown)
        self.assertIn("shard 2/2, processes 1", shown)
        self.assertIn("2 passed", shown)

    def test_options_refused_with_a_usage_error(self) -> None:
        cases = {("--blanket-shard", "3/2"): "shard 3/2: expected 1 <= i <= n",
                 ("--blanket-shard", "two"): "shard 'two': expected 'i/n', e.g. '1/4'",
                 ("--blanket-budget", "-1"): "argument --blanket-budget: -1: expected an "
                                             "int of at least 1",
                 ("--blanket-budget", "0"): "0: expected an int of at least 1",
                 ("--blanket-seed", "x"): "argument --blanket-seed: 'x': expected an int",
                 ("--blanket-seconds", "0"): "argument --blanket-seconds: it is a finite "
                                             "number of seconds, more than 0",
                 ("--blanket-seconds", "soon"): "argument --blanket-seconds: 'soon': "
                                                "expected a number of seconds",
                 ("--blanket-processes", "0"): "0: expected an int of at least 1",
                 ("--blanket-shard", "1/2", "--blanket-processes", "2"):
                     "--blanket-shard 1/2 with --blanket-processes 2: the processes run "
                     "the shards of a search themselves"}
        for args, message in cases.items():
            with self.subTest(args=args):
                code, shown = self.run_pytest("def test_nothing():\n    pass\n", *args)
                self.assertEqual(code, 4, shown)  # pytest's usage error
                self.assertIn(message, shown)

    def test_the_scenario_fixture_cleans_up(self) -> None:
        source = '''
            import threading
            import pytest

            def test_threads_named_as_scenario_test_case_names_them(scenario):
                threads = [scenario.thread(lambda: None) for _ in range(3)]
                assert [t.name for t in threads] == ["A", "B", "C"]
                assert scenario.name == "test_threads_named_as_scenario_test_case_names_them"
                with scenario:
                    pass

            def test_never_ran(scenario):
                scenario.thread(lambda: None)

            @pytest.mark.blanket(threads_must_run=False)
            def test_never_meant_to_run(scenario):
                scenario.thread(lambda: None)

            def test_failed_before_entering(scenario):
                scenario.thread(lambda: None)
                assert False, "the test's own failure"

            def test_a_thread_died(scenario):
                def boom():
                    raise RuntimeError("boom")
                scenario.thread(boom)
                with scenario:
                    pass

            def test_left_entered(scenario):
                lock = scenario.Lock()
                def hold():
                    with lock:
                        pass
                scenario.thread(hold)
                scenario.__enter__()

            real = threading.Event()

            @pytest.mark.blanket(timeout=0.2)
            def test_still_running(scenario):
                scenario.thread(real.wait, 3)
                with pytest.raises(Exception):
                    with scenario:
                        pass

            @pytest.mark.blanket("positional")
            def test_a_marker_with_positional_arguments(scenario):
                pass
        '''
        code, shown = self.run_pytest(source, "-rA")
        self.assertEqual(code, 1, shown)
        outcomes = {
            "PASSED": ["test_threads_named_as_scenario_test_case_names_them",
                       "test_never_meant_to_run", "test_left_entered"],
            "FAILED": ["test_failed_before_entering"],
            "ERROR": ["test_never_ran", "test_a_thread_died", "test_still_running",
                      "test_a_marker_with_positional_arguments"]}
        for outcome, tests in outcomes.items():
            for test in tests:
                self.assertRegex(shown, f"{outcome} .*{self.name}.py::{test}\\n")
        self.assertIn("threads 'A' never ran: the test made them but did not enter 'with "
                      "scenario:' afterwards", shown)
        self.assertEqual(shown.count("never ran"), 1, shown)  # the failed test: its failure
        self.assertIn("thread 'A' died of an exception:", shown)
        self.assertIn("RuntimeError: boom", shown)
        self.assertIn("threads still running at the end of the test:", shown)
        self.assertIn("@pytest.mark.blanket('positional',): it takes keyword arguments only",
                      shown)
        self.assertNotIn("blanket: 0 exploration(s)", shown)  # no search: no counts

    def test_the_documented_example(self) -> None:
        source = (ROOT / "examples" / "pytest" / "test_counter.py").read_text()
        code, shown = self.run_pytest(source)
        self.assertEqual(code, 0, shown)
        self.assertIn("3 passed", shown)
        self.assertIn("blanket: 1 exploration(s), 1 linearizability check(s): 26 schedule(s), "
                      "2 of 2 search(es) covered their whole space, 0 failure(s) found", shown)

    def test_the_counts_of_xdist_workers_reach_the_controller(self) -> None:
        import pytest

        from blanket import pytest_plugin

        class Worker:  # what pytest-xdist gives a worker's config
            config: pytest.Config

            @pytest.hookimpl(tryfirst=True)
            def pytest_configure(self, config: pytest.Config) -> None:
                config.workeroutput = {}  # type: ignore[attr-defined]
                self.config = config
        worker = Worker()
        source = '''
            def nothing(scenario):
                scenario.thread(lambda: None)

            def test_explore(blanket_explore):
                blanket_explore(nothing)
        '''
        code, shown = self.run_pytest(source, plugins=[worker])
        self.assertEqual(code, 0, shown)
        output = worker.config.workeroutput  # type: ignore[attr-defined]
        self.assertEqual(output["blanket"], {"explorations": 1, "checks": 0, "schedules": 1,
                                             "exhausted": 1, "stopped": 0, "failures": 0})
        # The controller adds each worker's counts as the worker goes down.
        controller = types.SimpleNamespace(stash={pytest_plugin._TALLY: pytest_plugin.Tally(
            checks=1, schedules=2, failures=1)})
        pytest_plugin.pytest_testnodedown(
            types.SimpleNamespace(workeroutput=output, config=controller), None)
        pytest_plugin.pytest_testnodedown(types.SimpleNamespace(), None)  # died: nothing
        self.assertEqual(str(controller.stash[pytest_plugin._TALLY]),
                         "1 exploration(s), 1 linearizability check(s): 3 schedule(s), 1 of 2 "
                         "search(es) covered their whole space, 1 failure(s) found")


def pytest_command(*args: str, python: str = sys.executable) -> list[str]:
    return [python, "-m", "pytest", *BASE, "-p", "blanket.pytest_plugin", *args]


@unittest.skipUnless(HAVE_PYTEST, "pytest is not installed")
class InProcesses(unittest.TestCase):
    """pytest run as its users run it, plain and under pytest-xdist."""

    def setUp(self) -> None:
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = Path(folder.name)

    def run_pytest(self, path: Path, *args: str, **env: str) -> tuple[int, str]:
        environment = local_environment(PYTHONPATH=str(ROOT), **env)
        done = subprocess.run(pytest_command(str(path), *args), cwd=self.folder,
                              env=environment, capture_output=True, text=True, timeout=900)
        return done.returncode, done.stdout + done.stderr

    def check_green_and_red(self, *args: str) -> None:
        fixed = written(self.folder, "test_fixed", USER.format(locked=True))
        code, shown = self.run_pytest(fixed, *args)
        self.assertEqual(code, 0, shown)
        self.assertIn("3 passed", shown)
        self.assertRegex(shown, r"blanket: 1 exploration\(s\), 1 linearizability check\(s\): "
                                r"\d+ schedule\(s\), 2 of 2 .* 0 failure\(s\) found")
        buggy = written(self.folder, "test_buggy", USER.format(locked=False))
        code, shown = self.run_pytest(buggy, *args)
        self.assertEqual(code, 1, shown)
        self.assertIn("2 failed, 1 passed", shown)
        for part in ("explore(two_increments) failed:", "the schedule as a timeline",
                     "check_linearizable(Counter) failed:", "a test that replays it:",
                     "blanket: 1 exploration(s), 1 linearizability check(s): ",
                     "2 failure(s) found"):
            self.assertIn(part, shown)

    def test_plain(self) -> None:
        self.check_green_and_red()

    @unittest.skipUnless(HAVE_XDIST, "pytest-xdist is not installed")
    def test_xdist(self) -> None:
        self.check_green_and_red("-n", "2")

    def test_processes(self) -> None:
        source = '''
            import os

            import blanket

            def rounds(scenario):
                with open(os.environ["BLANKET_PIDS"], "a") as pids:
                    print(os.getpid(), file=pids)
                lock = scenario.Lock()

                def work():
                    with lock:
                        pass
                for _ in range(3):
                    scenario.thread(work)

            def test_processes(blanket_explore):
                result = blanket_explore(rounds)
                pids = set(open(os.environ["BLANKET_PIDS"]).read().split())
                assert len(pids) == 2 and str(os.getpid()) not in pids, pids
                os.remove(os.environ["BLANKET_PIDS"])
                assert sorted(result.schedules) == sorted(blanket.explore(rounds).schedules)
        '''
        path = written(self.folder, "test_in_processes", source)
        code, shown = self.run_pytest(path, "--blanket-processes", "2",
                                      BLANKET_PIDS=str(self.folder / "pids"))
        self.assertEqual(code, 0, shown)
        self.assertIn("processes 2", shown)
        self.assertIn("1 passed", shown)


class RewrittenAsserts(unittest.TestCase):
    """The one-line summary of a failure leaves out pytest's explanation of
    a failed ``assert`` (a test module's asserts are rewritten under pytest;
    the written test, run by unittest, does not print it)."""

    def test_the_summary_of_a_rewritten_assert(self) -> None:
        from blanket.exploration.reproduce import summary_of
        trace = "Traceback (most recent call last):\n  File ..., in check\n"
        cases = {"AssertionError: the counter is 1, not 2\nassert 1 == 2\n +  where 1 = x":
                 "AssertionError: the counter is 1, not 2",
                 "AssertionError: assert 1 == 2\n +  where 1 = x": "AssertionError",
                 "AssertionError: on two\nlines": "lines",
                 "ValueError: no": "ValueError: no"}
        for message, said in cases.items():
            self.assertEqual(summary_of("invariant", trace + message), said)


class Packaging(unittest.TestCase):
    """The plugin is the package's ``pytest11`` entry point, and pytest stays optional."""

    def test_the_entry_point_is_declared(self) -> None:
        project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
        self.assertEqual(project["entry-points"]["pytest11"],
                         {"blanket": "blanket.pytest_plugin"})
        self.assertNotIn("pytest", " ".join(project["dependencies"]))

    def test_only_the_plugin_imports_pytest_and_nothing_imports_the_plugin(self) -> None:
        importing: dict[str, set[str]] = {}
        for path in sorted((ROOT / "blanket").rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                names: list[Any] = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    names = [node.module or ""] + [alias.name for alias in node.names]
                for name in names:
                    if name.split(".")[0] == "pytest" or "pytest_plugin" in name:
                        importing.setdefault(path.name, set()).add(name)
        self.assertEqual(importing, {"pytest_plugin.py": {"pytest"}})


if __name__ == "__main__":
    unittest.main()

"""explore(reach=...): the search for a schedule that runs a line, the test
it writes (ScenarioTestCase.assertReached), and what it says of a line no
order runs; the probes that see lines run (blanket.exploration.lines)."""

from __future__ import annotations

import os
import sys
import tempfile
import types
import unittest
import unittest.mock
from pathlib import Path
from typing import Any

import blanket
from blanket.exploration import lines, reach

from . import reach_cases as cases
from . import reach_other
from .support import unchecked

BOUND = 5.0
OTHER = Path(reach_other.__file__)


def target(name: str) -> str:
    return cases.place(name, OTHER) if name == "other-module" else cases.place(name)


def run_source(source: str, times: int = 1) -> unittest.TestResult:
    """Compile a written test and run it *times* times; the result."""
    module = types.ModuleType("written")
    exec(compile(source, "<written test>", "exec"), module.__dict__)  # noqa: S102
    [case] = [value for value in vars(module).values() if isinstance(value, type)
              and issubclass(value, blanket.ScenarioTestCase)
              and value is not blanket.ScenarioTestCase]
    result = unittest.TestResult()
    for _ in range(times):
        case("test_schedule").run(result)
    return result


class ReachesEachCase(unittest.TestCase):
    def test_each_line_is_reached_and_its_test_runs_it_every_time(self) -> None:
        for name, setup in cases.CASES.items():
            with self.subTest(name):
                place = target(name)
                result = blanket.explore(setup, reach=place, timeout=BOUND)
                found = result.reached[place]
                assert found is not None, str(result)
                self.assertIn(f"reached {place} (", str(result))
                self.assertFalse(result.exhausted)
                self.assertIn("self.assertReached(", found.source)
                self.assertIn(repr(place), found.source)
                self.assertTrue(str(found).startswith(f"{place} runs under the schedule:\n  1. "))
                outcome = run_source(found.source, times=10)
                self.assertEqual((outcome.testsRun, outcome.failures, outcome.errors),
                                 (10, [], []))

    def test_a_function_and_its_line(self) -> None:
        line = int(target("dcl").rsplit(":", 1)[1])
        result = blanket.explore(cases.double_checked, reach=(cases.Lazy.get, line),
                                 timeout=BOUND)
        self.assertIsNotNone(result.reached[target("dcl")])
        bound = cases.Lazy(blanket.Scenario("unused")).get  # a bound method too
        self.assertEqual(reach.places([(bound, line), target("dcl")]), [target("dcl")])

    def test_the_search_goes_on_until_every_line_is_reached(self) -> None:
        both = [target("retry"), target("never")]
        # (unguided: the guided search's first run runs it)
        result = blanket.explore(cases.optimistic, reach=[target("retry")], timeout=BOUND,
                                 guided=False)
        self.assertEqual(result.runs, 2)  # stopped at the first run that ran it
        result = blanket.explore(cases.never, reach=both, timeout=BOUND)
        self.assertIsNone(result.reached[target("retry")])
        self.assertTrue(result.exhausted)


class NeverRun(unittest.TestCase):
    def test_an_exhausted_search_says_no_order_runs_the_line(self) -> None:
        place = target("never")
        result = blanket.explore(cases.never, reach=place, timeout=BOUND)
        self.assertTrue(result.exhausted)
        self.assertEqual(result.reached, {place: None})
        self.assertTrue(str(result).endswith(f"; no order of these threads runs {place}"))

    def test_a_bounded_search_says_only_what_its_bound_let_it_see(self) -> None:
        place = target("never")
        result = blanket.explore(cases.never_beside, reach=place, max_preemptions=0,
                                 timeout=BOUND)
        self.assertTrue(str(result).endswith(
            f"; no order with at most 0 preemption(s) runs {place} (bounded: not every order)"))

    def test_a_search_cut_short_claims_nothing(self) -> None:
        place = target("retry")
        result = blanket.explore(cases.optimistic, reach=place, max_schedules=1, timeout=BOUND,
                                 guided=False)  # (guided, its first run reaches it)
        self.assertFalse(result.exhausted)
        self.assertTrue(str(result).endswith(
            f"; {place} not reached by the schedules run (not every order)"))
        self.assertNotIn("no order", str(result))

    def test_a_search_that_saw_something_it_cannot_schedule_claims_nothing(self) -> None:
        place = target("never")
        unseen = "blanket.exploration.unseen.Unseen.notes"
        with unittest.mock.patch(unseen, ["a real Lock used at x.py:1"], create=True):
            result = blanket.explore(cases.never, reach=place, timeout=BOUND)
        self.assertFalse(result.exhausted)
        self.assertIn("not exhaustive: a real Lock used at x.py:1", str(result))
        self.assertNotIn("no order", str(result))


def line(name: str) -> int:
    return int(target(name).rsplit(":", 1)[1])


class LinesRun(unittest.TestCase):
    """explore(lines=True): the lines of the watched files the runs ran."""

    def test_an_exhausted_search_names_the_lines_no_order_runs(self) -> None:
        result = blanket.explore(cases.never, lines=True, timeout=BOUND)
        found = result.lines["tests/reach_cases.py"]
        self.assertEqual(found.never, {line("never")})
        self.assertEqual(found.missed, {line("never")})
        self.assertIn(line("never") - 1, found.ran)
        self.assertNotIn(line("retry"), found.ran | found.missed)  # a function not entered
        self.assertEqual(str(found), f"tests/reach_cases.py: {len(found.ran)} line(s) ran; "
                                     f"no order runs: {line('never')}")

    def test_a_class_body_s_code_left_alive_is_no_function_entered(self) -> None:
        # The free-threaded 3.13 frees the function __build_class__ ran a
        # class body as only at the next collection: until then the
        # collector lists it, with the class's methods nested in its code.
        module = cases.__loader__.get_code(cases.__name__)  # type: ignore[union-attr]
        [body] = [c for c in module.co_consts
                  if isinstance(c, types.CodeType) and c.co_name == "Counter"]
        alive = types.FunctionType(body, vars(cases))
        result = blanket.explore(cases.never, lines=True, timeout=BOUND)
        self.assertEqual(result.lines["tests/reach_cases.py"].never, {line("never")})
        self.assertIn(body.co_firstlineno, lines.code_lines(alive.__code__))

    def test_the_lines_of_code_in_another_module(self) -> None:
        result = blanket.explore(cases.other_module, lines=True, timeout=BOUND)
        self.assertEqual(sorted(result.lines), ["tests/reach_cases.py", "tests/reach_other.py"])
        other = result.lines["tests/reach_other.py"]
        self.assertIn(line("other-module"), other.ran)
        self.assertEqual(str(other), f"tests/reach_other.py: {len(other.ran)} line(s) ran; "
                                     "no order runs: none")

    def test_a_search_cut_short_or_bounded_claims_nothing(self) -> None:
        for options in ({"max_schedules": 1}, {"max_preemptions": 0}):
            with self.subTest(options):
                result = blanket.explore(cases.trylock_drain, lines=True, timeout=BOUND,
                                         **options)
                found = result.lines["tests/reach_cases.py"]
                self.assertIsNone(found.never)
                self.assertIn("not run by the schedules run (not every order)", str(found))
        self.assertIn(line("trylock"), found.missed)

    def test_with_a_line_to_reach_in_a_watched_file(self) -> None:
        result = blanket.explore(cases.never, lines=True, reach=target("never"),
                                 timeout=BOUND)
        self.assertIsNone(result.reached[target("never")])
        self.assertEqual(result.lines["tests/reach_cases.py"].never, {line("never")})
        with self.assertRaisesRegex(ValueError, "has no code of a function"):
            blanket.explore(cases.never, lines=True, reach="tests/reach_cases.py:1")

    def test_without_lines_no_file_is_watched_for_them(self) -> None:
        self.assertEqual(blanket.explore(cases.never, timeout=BOUND).lines, {})


class AssertReached(blanket.ScenarioTestCase):
    stall_timeout = BOUND

    def test_it_fails_when_the_line_did_not_run(self) -> None:
        place = target("rollback")
        with self.assertRaises(self.failureException) as caught:
            self.assertReached(cases.rollback, [], place)
        message = str(caught.exception)
        self.assertTrue(message.startswith(f"{place} did not run: passed: it followed all 0 "),
                        message)

    def test_it_passes_when_every_line_ran(self) -> None:
        self.assertReached(cases.rollback, ["A: Lock 1 Lock.acquire", "A: Lock 1 Lock.release",
                                            "B: Lock 2 Lock.acquire"],
                           target("rollback"), target("withdrawn"))

    def test_it_needs_a_line(self) -> None:
        with self.assertRaisesRegex(TypeError, "name at least one line"):
            self.assertReached(cases.rollback, [])


class Targets(unittest.TestCase):
    def test_what_reach_refuses(self) -> None:
        here = target("dcl")
        for reach_, error, text in [
                ("tests/reach_cases.py", ValueError, "expected 'file:line'"),
                ("tests/reach_cases.py:0", ValueError, "expected 'file:line'"),
                (42, TypeError, "expected 'file:line', .function, line. or a list"),
                ([here, 42], TypeError, "reach: 42: expected"),
                ((len, 3), TypeError, "is no Python function"),
                ((cases.Lazy.get, 1), ValueError, "line 1 is no line of Lazy.get's code"),
                ((cases.Lazy.get, True), TypeError, "expected"),
                ("tests/nowhere.py:3", ValueError,
                 "tests/nowhere.py: no loaded module or function is of that file"),
                ("reach_cases.py:3", ValueError, "loaded files of that name: tests/reach_cases.py"),
                ("tests/reach_cases.py:1", ValueError, "has no code of a function"),
        ]:
            with self.subTest(reach_), unchecked():
                with self.assertRaisesRegex(error, text):
                    blanket.explore(cases.double_checked, reach=reach_)

    def test_a_functions_start_is_refused_not_said_never_to_run(self) -> None:
        # (the call's start runs on the 'def' line, which no probe sees: a
        # search for it said "no order of these threads runs" it)
        start = cases.Lazy.get.__code__.co_firstlineno
        for reach_ in (f"tests/reach_cases.py:{start}", (cases.Lazy.get, start)):
            with self.subTest(reach_), self.assertRaisesRegex(
                    ValueError, f"tests/reach_cases.py:{start} is where a function starts "
                    r"\(its 'def' line, or its first decorator's\).*body \(the next lines that "
                    rf"have code: {start + 1}, {start + 2}, {start + 3}\)"):
                blanket.explore(cases.double_checked, reach=reach_)

    def test_a_file_without_functions_is_refused(self) -> None:
        folder = Path(self.enterContext(tempfile.TemporaryDirectory()))
        (folder / "blanket_constants.py").write_text("X = 1\n")
        module = types.ModuleType("blanket_constants")
        module.__file__ = str(folder / "blanket_constants.py")
        with unittest.mock.patch.dict(sys.modules, {"blanket_constants": module}), \
                self.assertRaisesRegex(ValueError, "no function of blanket_constants.py is "
                                       "loaded: a line runs in a scenario's threads only"):
            blanket.explore(cases.double_checked, reach=f"{folder}/blanket_constants.py:1")

    def test_no_line_probed_once_the_search_ends(self) -> None:
        original = cases.Lazy.get.__code__
        blanket.explore(cases.double_checked, reach=target("dcl"), timeout=BOUND)
        self.assertIs(cases.Lazy.get.__code__, original)


class PathTargets(unittest.TestCase):
    """A target's file named by its path (absolute, as coverage.py records
    it, or relative to the current directory) is the file its module's path
    names: a path was once taken for another file, and its line said to be
    one no order runs."""

    def setUp(self) -> None:
        self.place = target("dcl")
        self.line = line("dcl")
        self.file = Path(cases.__file__).resolve()

    def test_every_spelling_of_the_path_is_the_module_path(self) -> None:
        self.addCleanup(os.chdir, os.getcwd())
        tests, above = self.file.parent, self.file.parent.parent.parent
        for folder, path in [(tests, str(self.file)), (tests, "reach_cases.py"),
                             (tests, "./reach_cases.py"), (tests, "../tests/reach_cases.py"),
                             (above, os.path.relpath(self.file, above)),
                             (above, "tests/reach_cases.py")]:  # (the module's path)
            with self.subTest(path, folder=folder):
                os.chdir(folder)
                self.assertEqual(reach.places(f"{path}:{self.line}"), [self.place])

    def test_a_link_to_the_file_is_the_file(self) -> None:
        folder = Path(self.enterContext(tempfile.TemporaryDirectory()))
        (folder / "link.py").symlink_to(self.file)
        self.assertEqual(reach.places(f"{folder / 'link.py'}:{self.line}"), [self.place])

    def test_a_search_by_the_absolute_path_reaches_the_line(self) -> None:
        result = blanket.explore(cases.double_checked, reach=f"{self.file}:{self.line}",
                                 timeout=BOUND)
        self.assertEqual(list(result.reached), [self.place])
        self.assertIsNotNone(result.reached[self.place])
        self.assertIn(f"reached {self.place} (", str(result))

    def test_one_line_named_twice_is_one_target(self) -> None:
        both = [f"{self.file}:{self.line}", self.place, (cases.Lazy.get, self.line)]
        self.assertEqual(reach.places(both), [self.place])

    def test_an_existing_file_of_no_loaded_module_is_refused(self) -> None:
        folder = Path(self.enterContext(tempfile.TemporaryDirectory()))
        (folder / "reach_cases.py").write_text(self.file.read_text())
        with self.assertRaisesRegex(
                ValueError, rf"the file {folder}/reach_cases.py exists, but no module of it "
                r"is loaded: .* import it before exploring \(loaded files of that name: "
                r"tests/reach_cases.py\)"):
            blanket.explore(cases.double_checked, reach=f"{folder}/reach_cases.py:{self.line}")

    def test_a_file_of_two_modules_is_refused(self) -> None:
        twice = {name: types.ModuleType(name) for name in ("tests.twice", "twice")}
        for module in twice.values():
            module.__file__ = str(self.file.parent / "twice.py")
        with unittest.mock.patch.dict(sys.modules, twice), self.assertRaisesRegex(
                ValueError, r"names the file of 2 loaded modules \(tests/twice.py, twice.py\): "
                "name the one whose code the threads run by its module's path"):
            reach.places(f"{self.file.parent / 'twice.py'}:3")

    def test_code_compiled_from_a_file_of_no_module(self) -> None:
        folder = Path(self.enterContext(tempfile.TemporaryDirectory()))
        source = "def work(out):\n    out.append(1)\n"
        (folder / "blanket_compiled.py").write_text(source)
        scope: dict[str, Any] = {"__name__": "blanket_compiled"}
        exec(compile(source, str(folder / "blanket_compiled.py"), "exec"), scope)  # noqa: S102
        # (not a module: sys.modules may hold other objects, which are no file's)
        def setup(scenario: blanket.Scenario) -> None:
            scenario.thread(scope["work"], [])

        with unittest.mock.patch.dict(sys.modules, {"x": types.SimpleNamespace(__file__="x")}):
            result = blanket.explore(setup, reach=f"{folder}/blanket_compiled.py:2",
                                     timeout=BOUND)
        self.assertIsNotNone(result.reached["blanket_compiled.py:2"])

    def test_a_name_no_file_can_have_is_refused(self) -> None:
        with self.assertRaisesRegex(ValueError, "no loaded module or function is of that"):
            reach.places("a\0b.py:3")


class Probes(unittest.TestCase):
    """Probes see every line run: loops, handlers, generators, closures."""

    def ran(self, call: Any, *lines_: int) -> set[int]:
        every = () if lines_ else ("tests/test_reach.py",)
        with lines.Probes({"tests/test_reach.py": set(lines_)}, every) as probes:
            call()
            return {int(place.rsplit(":", 1)[1]) for place in probes.take()}

    def test_lines_of_loops_handlers_generators_and_closures(self) -> None:
        first = sample.__code__.co_firstlineno
        self.assertEqual(self.ran(lambda: sample([0, 2], 1)) & set(range(first, first + 14)),
                         {first + n for n in (1, 2, 3, 4, 6, 7, 8, 11, 12)})
        self.assertEqual(self.ran(lambda: sample([1], 0), first + 9, first + 10),
                         {first + 9, first + 10})
        self.assertEqual(self.ran(lambda: list(counting(3)), counting_line()),
                         {counting_line()})

    def test_the_lines_probed_are_the_body_lines(self) -> None:
        # (what tells a line a search can see run from a function's start)
        for function in lines.loaded_functions():
            if function.__module__ in ("tests.reach_cases", "tests.test_reach",
                                       "blanket.exploration.lines"):
                code = function.__code__
                with self.subTest(function.__qualname__):
                    self.assertEqual(lines.body_lines(code),
                                     lines.probed_lines(code, None, "x.py"))
        start = cases.Lazy.get.__code__.co_firstlineno
        self.assertEqual(min(lines.body_lines(cases.Lazy.get.__code__)), start + 1)

    def test_code_that_cannot_be_probed_is_left_as_it_was(self) -> None:
        original = sample.__code__
        with unittest.mock.patch.object(lines, "probe", side_effect=RuntimeError("no")), \
                self.assertRaises(RuntimeError):
            lines.Probes({}, ["tests/test_reach.py"]).__enter__()
        self.assertIs(sample.__code__, original)


def sample(items: list[int], x: int) -> int:
    total = 0
    for i in items:
        if i > x:
            total += i
        else:
            total -= 1
    try:
        total //= x
    except ZeroDivisionError:
        total = -100
    again = (lambda: total + 1)  # noqa: E731 - a nested code object
    return again()


def counting(n: int) -> Any:
    for i in range(n):
        yield i
        if i == 2:
            yield -1


def counting_line() -> int:
    return counting.__code__.co_firstlineno + 4

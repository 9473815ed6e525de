"""blanket.audit on the classes of tests/audit_classes.py: the verdicts, the
operations inferred and set aside, the failures' tests (tried as a user
runs them, and failing when run here), the budget, the progress."""

from __future__ import annotations

import json
import re
import types
import unittest
from typing import Any
from unittest import mock

import blanket
from blanket.audit import infer
from blanket.audit import run as audit_run
from blanket.audit.report import AuditProgress
from blanket.exploration.reporting import Progress
from blanket.linearizability.check import Linearizability

from . import audit_classes
from .support import unchecked


def run_source(source: str) -> unittest.TestResult:
    """Run the test case *source* defines, here."""
    module = types.ModuleType("generated_audit_test")
    exec(compile(source, "<generated>", "exec"), module.__dict__)  # noqa: S102
    outcome = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromModule(module).run(outcome)
    return outcome


class Verdicts(unittest.TestCase):
    def test_a_racy_class_is_not_linearizable_with_a_test_that_fails(self) -> None:
        result = blanket.audit(audit_classes.RacyCounter)
        self.assertFalse(result.ok)
        self.assertEqual(result.verdict, "not linearizable")
        self.assertEqual(result.methods, ["increment", "value"])
        [pair] = result.failures
        self.assertEqual(pair.names, ("increment", "increment"))
        self.assertTrue(pair.checked.startswith("tried: the test fails"), pair.checked)
        self.assertIn("from tests.audit_classes import RacyCounter", pair.test)
        self.assertIn("from blanket.audit.operations import Invoke", pair.test)
        outcome = run_source(pair.test)
        self.assertEqual((outcome.testsRun, len(outcome.failures)), (1, 1))
        text = str(result)
        self.assertIn("increment × increment: not linearizable (", text)
        self.assertIn("increment() -> 2 | increment() -> 2", text)
        self.assertIn("the test: tried: the test fails", text)
        self.assertIn("tests.audit_classes.RacyCounter: not linearizable; 3 pair(s) of 2 "
                      "operation(s) (2 linearizable, 1 not linearizable), 0 set aside",
                      result.summary())
        data = json.loads(json.dumps(result.as_dict()))
        self.assertEqual((data["verdict"], data["ok"], data["fill"]),
                         ("not linearizable", False, "increment()"))
        failed = [p for p in data["pairs"] if p["verdict"] == "not linearizable"]
        self.assertIn("increment() -> 2", failed[0]["table"])
        self.assertTrue(failed[0]["schedule"])

    def test_a_locked_class_is_linearizable(self) -> None:
        result = blanket.audit(audit_classes.LockedCounter)
        self.assertTrue(result.ok)
        self.assertEqual(result.verdict, "linearizable")
        self.assertEqual([p.verdict for p in result.pairs], ["linearizable"] * 3)
        self.assertEqual(result.unseen, [])
        self.assertIn("increment × increment: linearizable (", str(result))
        self.assertIn("built as LockedCounter(); half the scenarios start after increment()",
                      str(result))

    def test_a_blocking_get_is_pending(self) -> None:
        result = blanket.audit(audit_classes.Mailbox)
        self.assertEqual(result.verdict, "linearizable")
        self.assertEqual(result.fill, "put(1)")
        self.assertEqual([p.label for p in result.pairs],
                         ["get × get", "get × put", "put × put"])

    def test_what_is_set_aside_and_why(self) -> None:
        result = blanket.audit(audit_classes.Registry)
        self.assertEqual(result.built, "Registry(maxsize=1)")
        self.assertEqual(result.methods, ["__contains__", "with", "__getitem__", "__iter__",
                                          "__setitem__", "keys", "size"])
        why = dict(result.skipped)
        self.assertEqual(sorted(why), ["acquire", "build", "close", "helper", "strict",
                                       "subscribe"])
        self.assertIn("depends on the calling thread", why["acquire"])
        self.assertIn("classmethod", why["build"])
        self.assertIn("not called unless included", why["close"])
        self.assertEqual(why["subscribe"], "needs an argument it cannot guess: callback "
                                           "(bind it)")
        self.assertIn("raised TypeError('strict: 1 refused') when called alone", why["strict"])
        # (every pair is linearizable; whether each is run whole within the default
        # budget depends on the machine's load: under coverage, not always)
        self.assertTrue(result.ok)
        self.assertNotIn("error", [pair.verdict for pair in result.pairs])
        self.assertIn("not checked:\n  acquire: depends", str(result))

    def test_a_wait_for_what_blanket_does_not_see_is_set_aside(self) -> None:
        self.addCleanup(audit_classes.GATE.put, None)  # the screen's thread ends
        result = blanket.audit(audit_classes.Unseen, timeout=0.2)
        self.assertIn("did not return within 0.2 s", dict(result.skipped)["wait"])
        self.assertEqual(result.methods, ["touch"])

    def test_names_it_cannot_look_at(self) -> None:
        result = blanket.audit(audit_classes.Odd)
        self.assertEqual(dict(result.skipped), {
            "ghost": "listed by dir() but not found on the class",
            "refusing": "reading it on the object raised RuntimeError('not here')"})
        self.assertEqual(result.methods, ["bump"])

    def test_arguments_handed_on_are_those_of_the_method_overridden(self) -> None:
        result = blanket.audit(audit_classes.Timed)
        [get] = [m for m in infer.infer(audit_classes.Timed).methods if m.name == "get"]
        self.assertEqual([repr(op) for op in get.operations], ["get('a')", "get('b')"])
        self.assertEqual(result.methods, ["echo", "get", "put"])
        self.assertTrue(result.ok)

    def test_enter_without_exit(self) -> None:
        result = blanket.audit(audit_classes.EnterOnly)
        self.assertEqual(dict(result.skipped), {"__enter__": "__enter__ without __exit__"})
        self.assertEqual(result.fill, "")

    def test_methods_written_in_c_are_said_unseen(self) -> None:
        result = blanket.audit(audit_classes.Table, include=["get", "__setitem__"])
        self.assertTrue(result.ok)
        self.assertEqual(result.verdict, "no failure found (not exhaustive: some of it "
                                         "unseen)")
        self.assertIn("get is written in C: blanket sees each of its calls as one step",
                      result.unseen)
        self.assertIn("not seen by blanket:\n  ", str(result))


class Building(unittest.TestCase):
    def test_a_factory(self) -> None:
        result = blanket.audit(audit_classes.RacyCounter, factory=audit_classes.make_counter,
                               include=["increment"])
        self.assertEqual(result.built, "make_counter()")
        self.assertIn("from tests.audit_classes import make_counter", result.failures[0].test)

    def test_a_factory_as_the_target(self) -> None:
        result = blanket.audit(audit_classes.make_counter, exclude=["value"])
        self.assertEqual((result.kind, result.methods), (audit_classes.RacyCounter,
                                                         ["increment"]))

    def test_bound_arguments(self) -> None:
        result = blanket.audit(audit_classes.Registry, include=["__setitem__", "strict"],
                               bind={"__init__.maxsize": [3], "strict.count": ["x"],
                                     "value": [7]})
        self.assertEqual(result.built, "Registry(maxsize=3)")
        self.assertEqual(result.fill, "__setitem__('a', 7)")
        self.assertIn("strict('x') raised", dict(result.skipped)["strict"])

    def test_a_constructor_it_cannot_call(self) -> None:
        with self.assertRaisesRegex(ValueError, r"^audit: NeedsCallback\(\) needs an argument "
                                    r"it cannot guess: callback - bind it"):
            blanket.audit(audit_classes.NeedsCallback)
        with self.assertRaisesRegex(ValueError, r"^audit: Broken\(\) raised RuntimeError"):
            blanket.audit(audit_classes.Broken)

    def test_names_it_does_not_have(self) -> None:
        for option in ("include", "exclude"):
            with self.subTest(option), self.assertRaisesRegex(
                    ValueError, "RacyCounter has no attribute 'nothing'"):
                blanket.audit(audit_classes.RacyCounter, **{option: ["nothing"]})

    def test_arguments_of_the_wrong_type(self) -> None:
        counter = audit_classes.RacyCounter
        for given, says in [({"include": "value"}, "include='value'"),
                            ({"exclude": [1]}, "exclude=[1]"),
                            ({"bind": {"key": "ab"}}, "bind="),
                            ({"bind": [1]}, "bind="),
                            ({"factory": 1}, "factory=1"),
                            ({"seed": True}, "seed=True"),
                            ({"max_seconds": "1"}, "max_seconds"),
                            ({"timeout": 0}, "timeout"),
                            ({"progress": 1}, "progress=1")]:
            with self.subTest(given), self.assertRaisesRegex(
                    (TypeError, ValueError), re.escape(says)), unchecked():
                blanket.audit(counter, **given)
        with self.assertRaisesRegex(TypeError, "audit: 1 is not callable"), unchecked():
            blanket.audit(1)  # type: ignore[arg-type]


class Budget(unittest.TestCase):
    def test_pairs_the_budget_did_not_reach(self) -> None:
        result = blanket.audit(audit_classes.Registry, max_seconds=0.001)
        self.assertTrue(all(p.verdict in ("not run", "not exhaustive") for p in result.pairs))
        self.assertIn("not run: the budget was spent", str(result))
        self.assertRegex(result.verdict, r"^no failure found \(not exhaustive: \d+ of 28 "
                                         r"pair\(s\) not exhausted\)$")

    def test_a_pair_stopped_is_checked_again_with_what_is_left(self) -> None:
        calls: list[float] = []
        real = audit_run.check_linearizable

        def stopped(*args: Any, **kwargs: Any) -> Linearizability:
            calls.append(kwargs["max_seconds"])
            result = real(*args, **kwargs)
            if len(calls) == 1:
                result.stopped = "max_seconds=1"
            return result
        with mock.patch.object(audit_run, "check_linearizable", stopped):
            result = blanket.audit(audit_classes.LockedCounter, include=["increment"])
        self.assertEqual(len(calls), 2)
        self.assertEqual(result.pairs[0].verdict, "linearizable")

    def test_no_pair(self) -> None:
        result = blanket.audit(audit_classes.RacyCounter, include=["value"],
                               exclude=["value"])
        self.assertEqual(result.verdict, "no failure found (not exhaustive: 0 of 0 pair(s) "
                                         "not exhausted)")


class Errors(unittest.TestCase):
    def test_what_a_pair_was_given_failing(self) -> None:
        for raised, says in [(blanket.LinearizabilityError("model broke"), "model broke"),
                             (KeyError("x"), "blanket could not check it: KeyError('x')")]:
            with self.subTest(says), mock.patch.object(audit_run, "check_linearizable",
                                                       side_effect=raised):
                result = blanket.audit(audit_classes.RacyCounter, include=["increment"])
                self.assertEqual([(p.verdict, p.error) for p in result.pairs],
                                 [("error", says)])
                self.assertIn(f"increment × increment: error: {says}", str(result))

    def test_a_run_that_stalled_is_no_verdict(self) -> None:
        real = audit_run.check_linearizable

        def stalled(*args: Any, **kwargs: Any) -> Linearizability:
            result = real(*args, **kwargs)
            assert result.failure is not None
            result.failure.kind = "stall"
            result.failure.explanation = "nothing signalled\nthreads: ..."
            return result
        with mock.patch.object(audit_run, "check_linearizable", stalled):
            result = blanket.audit(audit_classes.RacyCounter, include=["increment"])
        self.assertEqual([(p.verdict, p.error) for p in result.pairs],
                         [("error", "stall: nothing signalled")])
        self.assertTrue(result.ok)

    def test_the_screen_meets_blanket_failing(self) -> None:
        with mock.patch("blanket.audit.infer.Model.step", side_effect=KeyError("k")):
            result = blanket.audit(audit_classes.RacyCounter)
        self.assertEqual(result.skipped, [
            ("increment", "increment() blanket could not try it alone: KeyError('k')"),
            ("value", ".value blanket could not try it alone: KeyError('k')")])
        self.assertEqual(result.pairs, [])


class Told(unittest.TestCase):
    def test_progress(self) -> None:
        said: list[Progress] = []
        blanket.audit(audit_classes.LockedCounter, progress=said.append)
        self.assertTrue(all(isinstance(p, AuditProgress) for p in said))
        self.assertEqual([p.done for p in said].count(True), 1)
        self.assertTrue(said[-1].done)
        self.assertRegex(str(said[0]), r"^pair 1 of 3 \(increment × increment\): 0 schedules")
        failed = AuditProgress(1, 1, 1.0, 0, 0, 1, None, pair="a × b", number=2, pairs=3,
                               failed=1)
        self.assertTrue(str(failed).startswith("pair 2 of 3 (a × b), 1 not linearizable: 1 "
                                               "schedules"))


if __name__ == "__main__":
    unittest.main()

"""The parts of blanket.audit: the argument domains
(blanket/audit/domains.py), the operations and their settled results
(operations.py), the written tests and how they are tried (report.py)."""

from __future__ import annotations

import inspect
import threading
import unittest
from typing import Any, Optional
from unittest import mock

import blanket
from blanket.audit import domains, operations, report
from blanket.audit.operations import SELF, Enter, Invoke, Iterate, Read, settled, typed

from . import audit_classes

P = inspect.Parameter


def parameter(name: str, annotation: Any = P.empty, default: Any = P.empty,
              kind: Any = P.POSITIONAL_OR_KEYWORD) -> inspect.Parameter:
    return P(name, kind, annotation=annotation, default=default)


class Domains(unittest.TestCase):
    def test_guessed_from_names_annotations_and_protocols(self) -> None:
        for given, method, position, domain in [
                (parameter("key"), "get", 0, domains.KEYS),
                (parameter("key", "int"), "get", 0, domains.VALUES),
                (parameter("value"), "put", 0, domains.VALUES),
                (parameter("index"), "pop", 0, domains.INDEXES),
                (parameter("maxsize"), "__init__", 0, domains.COUNTS),
                (parameter("ttl"), "__init__", 1, domains.SECONDS),
                (parameter("q", str), "find", 0, domains.KEYS),
                (parameter("q", Optional[float]), "find", 0, (1.0, 2.0)),  # noqa: UP045
                (parameter("q", "bool | None"), "find", 0, (True, False)),
                (parameter("q", "int"), "find", 0, domains.VALUES),
                (parameter("s"), "__setitem__", 1, domains.VALUES),
                (parameter("q", "Hashable"), "find", 0, domains.VALUES),
                (parameter("q", "~T"), "find", 0, domains.VALUES),
                (parameter("callback"), "on", 0, None),
                (parameter("q", list[int]), "find", 0, None)]:
            with self.subTest(given=given, method=method):
                self.assertEqual(domains.guess(method, given, position, {}), domain)

    def test_bound_values_come_first(self) -> None:
        bind = {"get.key": [5], "key": [6]}
        self.assertEqual(domains.guess("get", parameter("key"), 0, bind), (5,))
        self.assertEqual(domains.guess("pop", parameter("key"), 0, bind), (6,))

    def test_choices(self) -> None:
        made = domains.choices("put", [parameter("key"), parameter("value"),
                                       parameter("block", default=True),
                                       parameter("args", kind=P.VAR_POSITIONAL),
                                       parameter("flag", default=1, kind=P.KEYWORD_ONLY)],
                               {"flag": [0]})
        self.assertEqual(made, [(("a", 1), {"flag": 0}), (("a", 2), {"flag": 0}),
                                (("b", 1), {"flag": 0}), (("b", 2), {"flag": 0})])
        self.assertEqual(domains.choices("__init__", [parameter("maxsize")], {}, True),
                         [((), {"maxsize": 1}), ((), {"maxsize": 2})])
        self.assertEqual(domains.choices("f", [parameter("key")], {"key": []}),
                         "the domain bound to key is empty")
        self.assertEqual(domains.choices("f", [parameter("k", default=1,
                                                         kind=P.POSITIONAL_ONLY)],
                                         {"k": [2]}),
                         "an optional positional-only argument cannot be bound: k")
        self.assertEqual(domains.choices("f", [parameter("fn")], {}),
                         "needs an argument it cannot guess: fn (bind it)")

    def test_a_binding_of_the_command_line(self) -> None:
        self.assertEqual(domains.binding("key=['x', 'y']"), ("key", ("x", "y")))
        self.assertEqual(domains.binding("__init__.maxsize=2"), ("__init__.maxsize", (2,)))
        for text, says in [("key", "expected NAME=VALUES"), ("a.b.c=1", "expected NAME"),
                           ("1x=1", "expected NAME"),
                           ("key=x", "'x' is not a Python literal (quote a string: "
                                     "key=\"'x'\")")]:
            with self.subTest(text), self.assertRaisesRegex(ValueError, f"^'{text}': .*"
                                                                        f"{says[:20]}"):
                domains.binding(text)

    def test_a_signature_that_cannot_be_read(self) -> None:
        self.assertIsNone(domains.signature({}.pop))
        result = blanket.audit(audit_classes.Table, include=["pop", "get"])
        self.assertEqual(dict(result.skipped), {
            "pop": "its signature cannot be read (a method written in C)"})


class Operations(unittest.TestCase):
    def test_results_are_settled_as_the_call_returns(self) -> None:
        box: dict[str, Any] = {"a": [1]}
        self.assertIs(settled(box, box), SELF)
        self.assertEqual(settled(box, iter([1, 2])), [1, 2])
        self.assertEqual(settled(box, box.keys()), ["a"])
        copied = settled(box, box["a"])
        box["a"].append(2)
        self.assertEqual(copied, [1])
        lock = threading.Lock()
        held = [lock]
        self.assertEqual(settled(box, held), [lock])  # (a lock cannot be copied deeply)
        self.assertEqual(settled(box, 3), 3)

    def test_self_is_a_value(self) -> None:
        self.assertEqual(SELF, type(SELF)())
        self.assertNotEqual(SELF, 1)
        self.assertEqual(hash(SELF), hash(type(SELF)()))
        self.assertEqual(repr(SELF), "self")

    def test_how_each_reads_and_is_written(self) -> None:
        self.assertEqual([repr(op) for op in (Invoke("get", "a"), Read("size"), Iterate(),
                                              Enter())],
                         ["get('a')", ".size", "list(obj)", "with obj"])
        self.assertEqual([op.source for op in (Invoke("get", "a", default=1), Read("size"),
                                               Iterate(), Enter())],
                         ["Invoke('get', 'a', default=1)", "Read('size')", "Iterate()",
                          "Enter()"])
        self.assertIsNone(Invoke("put", object()).source)
        self.assertNotEqual(Invoke("size"), Read("size"))
        self.assertEqual(Invoke("get", "a"), Invoke("get", "a"))
        self.assertNotEqual(hash(Invoke("size")), hash(Read("size")))

    def test_exceptions_are_compared_by_type(self) -> None:
        one, other = typed(KeyError("a")), typed(KeyError(2))
        self.assertIs(type(one), type(other))
        self.assertIsInstance(one, KeyError)
        self.assertEqual((one.args, repr(one), str(one)), ((), "KeyError('a')", "'a'"))
        self.assertEqual(type(one).__name__, "KeyError")
        with self.assertRaises(KeyError) as raised:
            Invoke("__getitem__", "b")(audit_classes.Registry(1))
        self.assertEqual(repr(raised.exception), "KeyError('b')")
        self.assertIsInstance(raised.exception.__cause__, KeyError)
        with mock.patch.object(operations, "type", side_effect=TypeError, create=True), \
                mock.patch.dict(operations._TYPED, clear=True):
            plain = ValueError("x")
            self.assertIs(typed(plain), plain)
            self.assertEqual(plain.args, ())

    def test_each_raises_by_type(self) -> None:
        for op in (Read("size"), Iterate(), Enter()):
            with self.subTest(op), self.assertRaises((AttributeError, TypeError)) as raised:
                op(None)
            self.assertNotIn(type(raised.exception), (AttributeError, TypeError))

    def test_each_calls_the_object(self) -> None:
        registry = audit_classes.Registry(2)
        Invoke("__setitem__", "a", 1)(registry)
        self.assertEqual(Read("size")(registry), 1)
        self.assertEqual(Iterate()(registry), ["a"])
        self.assertIs(Enter()(registry), SELF)
        self.assertEqual(Invoke("keys")(registry), ["a"])


class WrittenTests(unittest.TestCase):
    def test_a_constructor_with_arguments_is_a_partial(self) -> None:
        result = blanket.audit(audit_classes.RacyBounded, bind={"limit": [2]})
        self.assertEqual(result.built, "RacyBounded(limit=2)")
        [pair] = result.failures
        self.assertIn("import functools\nfrom tests.audit_classes import RacyBounded",
                      pair.test)
        self.assertIn("workload.setup(functools.partial(RacyBounded, limit=2))", pair.test)
        self.assertTrue(pair.checked.startswith("tried: the test fails"), pair.checked)

    def test_a_class_no_test_can_import(self) -> None:
        class Local(audit_classes.RacyCounter):
            pass
        result = blanket.audit(Local, include=["increment"])
        [pair] = result.failures
        self.assertEqual(pair.checked, "not tried: the factory has no name a test can "
                                       "import it by (see the test's comments)")
        self.assertIn("# WrittenTests.test_a_class_no_test_can_import.<locals>.Local is not "
                      "importable",
                      pair.test)

    def sources(self) -> list[str]:
        result = blanket.audit(audit_classes.RacyCounter, include=["increment"])
        return [result.failures[0].test]

    def test_what_a_try_can_show(self) -> None:
        [source] = self.sources()
        name = source.split("\n\n\nclass ", 1)[1].split("(", 1)[0]
        separator = "=" * 70
        for status, output, says in [
                (None, "", "not tried to its end: the tests ran past 9 s or did not import"),
                (1, "no run\n", "not tried to its end"),
                (1, f"{separator}\nERROR: test_schedule (m.{name}.test_schedule)\nboom\n"
                    f"{separator}\nRan 1 test in 0.1s\n",
                 "the test fails when run as a user runs it (python -m unittest, in a fresh "
                 "interpreter), but not as the audit's run did:\n#   ERROR"),
                (0, "Ran 1 test in 0.1s\nOK\n", "the test written for it passed")]:
            with self.subTest(says), mock.patch.object(report, "run_test",
                                                       return_value=(status, output)):
                [(checked, handed)] = report.tried([source], 9.0)
                self.assertTrue(checked.startswith(says), checked)
                if status == 0:
                    self.assertTrue(handed.startswith("# blanket could not write a test"))
                    self.assertNotIn("\nclass ", handed)
                else:
                    self.assertEqual(handed, source)

    def test_an_argument_a_test_cannot_spell(self) -> None:
        [source] = self.sources()
        broken = source.replace("Invoke('increment')", "Invoke('increment', <object>)", 1)
        [(checked, handed)] = report.tried([broken], 9.0)
        self.assertEqual(checked, "not tried: an argument has no literal form a test can "
                                  "spell (see the test)")
        self.assertEqual(handed, broken)

    def test_tests_tried_together(self) -> None:
        [source] = self.sources()
        other = source.replace("class TestRacyCounterIncrementIncrementSchedule",
                               "class TestOtherSchedule")
        said = report.tried([source, other], 60.0)
        self.assertEqual([checked.split(":")[0] for checked, _ in said], ["tried", "tried"])


if __name__ == "__main__":
    unittest.main()

"""CPython's own lock tests, pointed at blanket primitives outside a scenario.

Each test class of ``Lib/test/lock_tests.py`` runs twice in a sub-run: once
over ``threading``'s primitive (as ``test_threading`` does) and once over the
blanket one. Every test must end the same way for both.
"""

from __future__ import annotations

import threading
import unittest

import blanket

try:
    from test import lock_tests
except ImportError:  # pragma: no cover - an interpreter without its test package
    lock_tests = None

# (lock_tests class, the attribute it builds its primitive with, kind)
CLASSES = [
    ("LockTests", "locktype", "Lock"),
    ("RLockTests", "locktype", "RLock"),
    ("RLockTests", "locktype", "Condition"),  # test_threading's ConditionAsRLockTests
    ("EventTests", "eventtype", "Event"),
    ("ConditionTests", "condtype", "Condition"),
    ("SemaphoreTests", "semtype", "Semaphore"),
    ("BoundedSemaphoreTests", "semtype", "BoundedSemaphore"),
    ("BarrierTests", "barriertype", "Barrier"),
]


def outcomes(base: type, attribute: str, factory: object) -> dict[str, str]:
    """Run *base*'s tests with *factory* as the primitive; each test's outcome."""
    cls = type(f"Parity{base.__name__}", (base,), {attribute: staticmethod(factory)})
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(cls)
    ended = {test.id().rsplit(".", 1)[1]: "passed" for test in suite}
    result = unittest.TestResult()
    suite.run(result)
    for kind, entries in (("failed", result.failures), ("error", result.errors),
                          ("skipped", result.skipped)):
        for test, _ in entries:
            ended[test.id().rsplit(".", 1)[1]] = kind
    return ended


@unittest.skipIf(lock_tests is None, "this interpreter has no test.lock_tests")
class LockTestsParity(unittest.TestCase):
    """Blanket primitives pass CPython's lock tests wherever ``threading``'s do."""

    def test_every_class(self) -> None:
        scenario = blanket.Scenario("lock_tests")
        for name, attribute, kind in CLASSES:
            with self.subTest(lock_tests=name, kind=kind):
                base = getattr(lock_tests, name)
                expected = outcomes(base, attribute, getattr(threading, kind))
                actual = outcomes(base, attribute, getattr(scenario, kind))
                self.assertEqual(actual, expected)
                self.assertIn("passed", actual.values())


if __name__ == "__main__":  # pragma: no cover
    unittest.main()

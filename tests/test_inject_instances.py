"""scenario.inject(module) and the real primitives a module made at import
time: each rebound to a scenario primitive in the same state, put back on
close, refused when in use; explored, a module's own lock is scheduled."""

from __future__ import annotations

import threading
import types
import unittest

import blanket

from .test_explore import explore
from .test_inject import BOUND, module_from

MODULE = """
import threading
_lock = threading.Lock()
_also = _lock
_rlock = threading.RLock()
_ready = threading.Condition(_lock)
_slots = threading.Semaphore(2)
_bounded = threading.BoundedSemaphore(3)
_started = threading.Event()
_started.set()
_stopped = threading.Event()
_gate = threading.Barrier(2, timeout=1.5)
"""


class Instances(unittest.TestCase):
    def setUp(self) -> None:
        self.scenario = blanket.Scenario("instances", timeout=BOUND)

    def test_each_real_primitive_becomes_the_scenarios_in_the_same_state(self) -> None:
        module = module_from(MODULE)
        originals = dict(vars(module))
        scenario = self.scenario
        with scenario.inject(module) as injection:
            self.assertEqual(injection.names, ("threading", "_lock", "_also", "_rlock", "_ready",
                                               "_slots", "_bounded", "_started", "_stopped",
                                               "_gate"))
            for name, kind in (("_lock", "Lock"), ("_rlock", "RLock"), ("_ready", "Condition"),
                               ("_slots", "Semaphore"), ("_bounded", "BoundedSemaphore"),
                               ("_started", "Event"), ("_gate", "Barrier")):
                self.assertIsInstance(getattr(module, name), getattr(scenario, kind), name)
            self.assertIs(module._also, module._lock)  # one twin per real primitive
            self.assertIs(module._ready._user_lock, module._lock)
            self.assertEqual(module._slots._real._value, 2)
            self.assertEqual(module._bounded._real._value, 3)
            self.assertTrue(module._started._real.is_set())
            self.assertFalse(module._stopped._real.is_set())
            self.assertEqual((module._gate.parties, module._gate._real._timeout), (2, 1.5))
        for name, value in originals.items():
            self.assertIs(vars(module)[name], value, name)

    def test_primitives_in_use_are_refused_and_the_module_left_alone(self) -> None:
        cases = {
            "_held = threading.Lock()\n_held.acquire()\n": "a real Lock held",
            "_held = threading.RLock()\n_held.acquire()\n": "a real RLock held",
            "_held = threading.BoundedSemaphore(2)\n_held.acquire()\n":
                "a real BoundedSemaphore acquired",
            "_held = threading.Barrier(2)\n_held.abort()\n": "a real Barrier in use",
            "class Own:\n    def acquire(self): pass\n    def release(self): pass\n"
            "_held = threading.Condition(Own())\n": "a real Condition over <under_test.Own",
        }
        for source, says in cases.items():
            with self.subTest(says=says):
                module = module_from("import threading\n" + source)
                with self.assertRaises(ValueError) as caught:
                    self.scenario.inject(module)
                self.assertIn("cannot inject into module 'under_test': under_test._held is "
                              + says, str(caught.exception))
                self.assertIs(module.threading, threading)
                self.assertEqual(self.scenario.inject(module_from("import threading\n"))
                                 .names, ("threading",))

    def test_a_refusal_inside_an_open_injection_leaves_that_one_open(self) -> None:
        module = module_from("import threading\n_lock = threading.Lock()\n")
        outer = self.scenario.inject(module)
        module.held = threading.Lock()
        module.held.acquire()
        with self.assertRaises(ValueError):
            blanket.Scenario("inner", timeout=BOUND).inject(module)
        self.assertFalse(outer.closed)
        outer.close()
        self.assertIs(module.threading, threading)


def bumping(source: str) -> types.ModuleType:
    return module_from(source + "log = []\n"
                       "def bump(name):\n"
                       "    with _lock:\n"
                       "        log.append(name)\n")


class Explored(unittest.TestCase):
    def test_a_modules_own_lock_injected_is_scheduled_and_the_verdict_whole(self) -> None:
        module = bumping("import threading\n_lock = threading.Lock()\n")
        real = module._lock

        def setup(scenario: blanket.Scenario) -> None:
            scenario.inject(module)
            scenario.thread(module.bump, "A")
            scenario.thread(module.bump, "B")

        result = explore(setup)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.count, 2)
        self.assertIs(module._lock, real)  # each run's injection closed

    def test_not_injected_it_is_the_scenarios_where_watched_code_uses_it(self) -> None:
        # (blanket.exploration.realprims: its twin; before, "not exhaustive:
        # real Lock used at <under_test>:5".)
        module = bumping("import threading\n_lock = threading.Lock()\n")

        def setup(scenario: blanket.Scenario) -> None:
            scenario.thread(module.bump, "A")
            scenario.thread(module.bump, "B")

        result = explore(setup)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.count, 2)
        self.assertEqual(result.unseen, [])


if __name__ == "__main__":
    unittest.main()

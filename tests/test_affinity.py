"""An exploration's threads on one CPU (blanket.exploration.affinity): the threads of its
runs are kept on the CPU the exploration started on, and the caller gets its
CPUs back however the exploration ends."""

from __future__ import annotations

import os
import threading
import unittest
from unittest import mock

import blanket
from blanket.exploration import affinity

_PINNABLE = hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) > 1
_NEEDS = "needs os.sched_setaffinity and more than one CPU"


class CurrentCpu(unittest.TestCase):
    @unittest.skipUnless(hasattr(os, "sched_getaffinity"), "needs os.sched_getaffinity")
    def test_a_cpu_the_thread_may_run_on(self) -> None:
        self.assertIn(affinity.current_cpu(), os.sched_getaffinity(0))

    def test_none_when_the_system_does_not_tell(self) -> None:
        for text in (OSError("no /proc"), b"1 (name) S", b"1 (a) b) S x"):
            with self.subTest(text=text), mock.patch.object(
                    affinity, "open", mock.mock_open(read_data=b""), create=True) as opened:
                if isinstance(text, Exception):
                    opened.side_effect = text
                else:
                    opened.return_value.read.return_value = text
                self.assertIsNone(affinity.current_cpu())


@unittest.skipUnless(_PINNABLE, _NEEDS)
class OneCpu(unittest.TestCase):
    def setUp(self) -> None:
        self.allowed = os.sched_getaffinity(0)
        self.addCleanup(os.sched_setaffinity, 0, self.allowed)

    def test_the_thread_and_those_it_starts_run_on_one_cpu_then_get_their_cpus_back(
            self) -> None:
        inside: list[set[int]] = []
        with affinity.one_cpu():
            inside.append(os.sched_getaffinity(0))
            started = threading.Thread(target=lambda: inside.append(os.sched_getaffinity(0)))
            started.start()
            started.join()
        self.assertEqual(len(inside[0]), 1)
        self.assertEqual(inside[1], inside[0])
        self.assertLessEqual(inside[0], self.allowed)
        self.assertEqual(os.sched_getaffinity(0), self.allowed)

    def test_cpus_are_given_back_when_the_block_raises(self) -> None:
        with self.assertRaises(KeyError), affinity.one_cpu():
            raise KeyError("in the block")
        self.assertEqual(os.sched_getaffinity(0), self.allowed)

    def test_nothing_changes_on_one_cpu_or_where_the_cpu_is_not_told(self) -> None:
        one = {min(self.allowed)}
        os.sched_setaffinity(0, one)
        with affinity.one_cpu():
            self.assertEqual(os.sched_getaffinity(0), one)
        os.sched_setaffinity(0, self.allowed)
        with mock.patch.object(affinity, "current_cpu", return_value=None), \
                affinity.one_cpu():
            self.assertEqual(os.sched_getaffinity(0), self.allowed)

    def test_an_explorations_threads_run_on_one_cpu_and_the_caller_gets_its_cpus_back(
            self) -> None:
        seen: list[set[int]] = []

        def setup(scenario: blanket.Scenario) -> None:
            lock = scenario.Lock()

            def worker() -> None:
                seen.append(os.sched_getaffinity(0))
                with lock:
                    pass

            scenario.thread(worker)
            scenario.thread(worker)

        result = blanket.explore(setup)
        self.assertTrue(result.ok, result)
        self.assertEqual(len(seen), 2 * result.runs)
        self.assertEqual(len({frozenset(cpus) for cpus in seen}), 1)
        self.assertEqual(len(seen[0]), 1)
        self.assertEqual(os.sched_getaffinity(0), self.allowed)


if __name__ == "__main__":
    unittest.main()

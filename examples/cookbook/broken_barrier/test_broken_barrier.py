"""Three workers sum [1, 2], [3, 4] and [5, 6]; A and B arrive, C is late."""

import threading

import blanket

from . import buggy, fixed

PARTS = [[1, 2], [3, 4], [5, 6]]


class LateWorker:
    """The scripts, run against either version of the sum."""

    module = None  # set by each test class

    def start(self):
        barrier = self.scenario.Barrier(3)
        total = self.module.ParallelSum(barrier, PARTS)
        A = self.worker(total.work, 0)
        B = self.worker(total.work, 1)
        return barrier, total, A, B

    def time_out(self):
        """B waits; A arrives, and its wait times out before C comes."""
        barrier, total, A, B = self.start()
        with self.scenario:
            wait = self.scenario.skip(B, barrier.wait)[B]
            self.scenario.wait(blanket.Waiting(wait))  # B waits at the barrier
            self.scenario.api(barrier).expire(barrier.wait, A)  # A's time is up
            self.scenario.finish(A, B)
            C = self.worker(total.work, 2)  # C comes late
            self.scenario.finish(C)
        return barrier, A, B, C

    def abort(self):
        """A and B wait; C, the third party, aborts instead of arriving."""
        barrier, total, A, B = self.start()
        with self.scenario:
            waits = self.scenario.skip(A, barrier.wait, B, barrier.wait)
            for wait in waits.values():
                self.scenario.wait(blanket.Waiting(wait))
            C = self.worker(barrier.abort)
            self.scenario.finish(C, A, B)
        return barrier, A, B, C


class TestBuggySum(LateWorker, blanket.ScenarioTestCase):
    module = buggy

    def test_a_timeout_gives_wrong_totals(self):
        barrier, A, B, C = self.time_out()
        self.assertTimedOut(A, barrier.wait)
        self.assertEqual(self.outcome, {"A": 10, "B": 10, "C": 21})  # 21 is right

    def test_an_abort_gives_wrong_totals(self):
        barrier, A, B, C = self.abort()
        self.assertCallRaised(B, barrier.wait, threading.BrokenBarrierError)
        self.assertEqual(self.outcome, {"A": 10, "B": 10, "C": None})


class TestFixedSum(LateWorker, blanket.ScenarioTestCase):
    module = fixed

    def test_a_timeout_gives_no_total(self):
        barrier, A, B, C = self.time_out()
        self.assertTimedOut(A, barrier.wait)
        self.assertEqual(self.outcome, {"A": None, "B": None, "C": None})

    def test_an_abort_gives_no_total(self):
        barrier, A, B, C = self.abort()
        self.assertEqual(self.outcome, {"A": None, "B": None, "C": None})

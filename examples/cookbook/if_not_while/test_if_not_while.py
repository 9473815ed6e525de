"""Consumer A waits; producer B puts a job and wakes A; before A has the lock
back, consumer C comes and takes the job."""

import blanket

from . import buggy, fixed


class TestBuggyQueue(blanket.ScenarioTestCase):
    def test_the_woken_consumer_finds_the_queue_empty(self):
        condition = self.scenario.Condition()
        queue = buggy.JobQueue(condition)
        A = self.worker(queue.get)
        B = self.worker(queue.put, "job 1")
        with self.scenario:
            # A waits; B puts "job 1" and wakes A, which the cycle holds
            # before it takes the lock back; B lets the lock go...
            with self.scenario.api(condition).cycle(A, B):
                self.scenario.api(condition).unblock(condition.release, B)
                C = self.worker(queue.get)  # ...while C comes along
                self.scenario.finish(C)     # and takes "job 1".
            # Leaving the cycle lets A go on.
        self.assertEqual(self.outcome["C"], "job 1")
        self.assertIsInstance(self.outcome["A"], IndexError)  # pop from empty list


class TestFixedQueue(blanket.ScenarioTestCase):
    def test_the_woken_consumer_waits_again(self):
        condition = self.scenario.Condition()
        queue = fixed.JobQueue(condition)
        A = self.worker(queue.get)
        B = self.worker(queue.put, "job 1")
        with self.scenario:
            with self.scenario.api(condition).cycle(A, B):
                self.scenario.api(condition).unblock(condition.release, B)
                C = self.worker(queue.get)
                self.scenario.finish(C)
            # A found the queue empty and waits again: the next job is its.
            D = self.worker(queue.put, "job 2")
            with self.scenario.api(condition).cycle(A, D):
                pass
        self.assertEqual(self.outcome["C"], "job 1")
        self.assertEqual(self.outcome["A"], "job 2")
        self.assertCallOrder(condition.wait, [A, A])

"""Two consumers race for the one job a producer put in a queue.Queue(maxsize=1).

``scenario.inject(queue)`` makes the queue module build its lock and its
three conditions on the scenario while the queue is created, so every
``put``, ``empty`` and ``get`` the threads make is a call the script steers.
"""

import queue

import blanket

from . import buggy, fixed


class QueueTestCase(blanket.ScenarioTestCase):
    def make_queue(self) -> queue.Queue:
        with self.scenario.inject(queue):
            return queue.Queue(maxsize=1)


class TestBuggyConsumers(QueueTestCase):
    def test_both_see_the_job_and_the_second_take_fails(self):
        jobs = self.make_queue()
        A = self.worker(buggy.consume, jobs)
        B = self.worker(buggy.consume, jobs)
        C = self.worker(buggy.produce, jobs, "job")
        with self.scenario:
            self.scenario.finish(C)  # the buffer is full
            # A looks (jobs.empty() takes the queue's mutex), then B looks.
            self.scenario.skip(A, jobs.mutex.acquire, jobs.mutex.release, wait=True)
            self.scenario.skip(B, jobs.mutex.acquire, jobs.mutex.release, wait=True)
            self.scenario.finish(A)  # A takes the job
            self.scenario.finish(B)  # B takes what is no longer there
        self.assertEqual(self.outcome["A"], "job")
        self.assertIsInstance(self.outcome["B"], queue.Empty)


class TestFixedConsumers(QueueTestCase):
    def test_the_second_consumer_learns_there_is_nothing(self):
        jobs = self.make_queue()
        A = self.worker(fixed.consume, jobs)
        B = self.worker(fixed.consume, jobs)
        C = self.worker(fixed.produce, jobs, "job")
        with self.scenario:
            self.scenario.finish(C)
            # A is taking the job (it holds the queue's mutex) when B arrives.
            self.scenario.skip(A, jobs.not_empty.acquire, wait=True)
            self.scenario.skip(B, jobs.not_empty.acquire)  # B waits for the mutex
            self.scenario.finish(A)
            self.scenario.finish(B)
        self.assertEqual(self.outcome, {"A": "job", "B": None, "C": None})
        self.assertAcquiredOrder(jobs.not_empty, [A, B])

"""A pool of one slot: A's job fails; then B takes the slot and C asks for it."""

import blanket

from . import buggy, fixed


def failing_job():
    return False


def working_job():
    return True


class OneSlotPool:
    """The script, run against either version of the pool and either kind
    of semaphore."""

    module = None  # set by each test class: buggy or fixed
    kind = None  # and "Semaphore" or "BoundedSemaphore"

    def fail_then_share(self):
        slots = getattr(self.scenario, self.kind)(1)
        pool = self.module.Pool(slots)
        A = self.worker(pool.run, failing_job)
        B = self.worker(pool.run, working_job)
        C = self.worker(pool.run, working_job)
        with self.scenario:
            self.scenario.finish(A)                     # A's job fails
            list(self.scenario.api(slots).allocate(B))  # B takes the slot
            acquire, = self.scenario.api(slots).unblock(slots.acquire, C)
            # C gets a slot at once, or waits for B's.
            self.scenario.wait(acquire, blanket.Waiting(acquire))
            self.c_had_to_wait = acquire.state is blanket.State.WAITING
            self.scenario.finish(B)
            self.scenario.finish(C)
        return slots, A, B, C


class TestBuggyPoolPlainSemaphore(OneSlotPool, blanket.ScenarioTestCase):
    module, kind = buggy, "Semaphore"

    def test_the_pool_grows(self):
        slots, A, B, C = self.fail_then_share()
        self.assertEqual(self.outcome, {"A": False, "B": True, "C": True})
        self.assertCallOrder(slots.release, [A, A, B, C])  # two releases by A
        self.assertFalse(self.c_had_to_wait)  # B and C ran at once in a pool of one


class TestBuggyPoolBoundedSemaphore(OneSlotPool, blanket.ScenarioTestCase):
    module, kind = buggy, "BoundedSemaphore"

    def test_the_second_release_raises(self):
        slots, A, B, C = self.fail_then_share()
        self.assertCallRaised(A, slots.release, ValueError)
        self.assertIsInstance(self.outcome["A"], ValueError)
        self.assertTrue(self.c_had_to_wait)  # the pool kept its size


class TestFixedPool(OneSlotPool, blanket.ScenarioTestCase):
    module, kind = fixed, "BoundedSemaphore"

    def test_c_waits_for_the_slot(self):
        slots, A, B, C = self.fail_then_share()
        self.assertEqual(self.outcome, {"A": False, "B": True, "C": True})
        self.assertCallOrder(slots.release, [A, B, C])
        self.assertTrue(self.c_had_to_wait)

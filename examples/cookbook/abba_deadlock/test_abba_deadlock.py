"""A transfers 10 from x to y while B transfers 20 from y to x."""

import blanket

from . import buggy, fixed


class OppositeTransfers:
    """What both versions share: the accounts, the threads and the script."""

    def start(self, module):
        x = module.Account(1, self.scenario.Lock(), balance=100)
        y = module.Account(2, self.scenario.Lock(), balance=100)
        self.scenario.api(x.lock).name = "x.lock"  # names for the report
        self.scenario.api(y.lock).name = "y.lock"
        A = self.worker(module.transfer, x, y, 10)
        B = self.worker(module.transfer, y, x, 20)
        return x, y, A, B

    def take_first_locks(self, A, B):
        """A takes its first lock; then B goes for its own first lock."""
        for thread in (A, B):
            self.scenario.wait(thread)  # the thread is at its first acquire
            first = self.scenario.transaction(thread)
            first.unblock()
            self.scenario.wait(first, blanket.Waiting(first))  # done, or asleep


class TestBuggyTransfers(OppositeTransfers, blanket.ScenarioTestCase):
    # A deadlock is a hang: blanket reports it once this bound is hit.
    stall_timeout = 1.0

    def test_the_transfers_deadlock(self):
        x, y, A, B = self.start(buggy)
        with self.scenario:
            self.take_first_locks(A, B)  # A holds x.lock, B holds y.lock
            with self.assertRaises(blanket.StallError) as stall:
                self.scenario.finish(A, B)
            self.untangle(A, y)
        report = stall.exception.report
        self.assertIn("'A': Lock.acquire WAITING on 'y.lock'", report)
        self.assertIn("'B': Lock.acquire WAITING on 'x.lock'", report)
        self.assertIn("holds 'x.lock'", report)
        self.assertIn("holds 'y.lock'", report)

    def untangle(self, A, y):
        """Let the deadlocked threads end: take y.lock from B (any thread may
        release a Lock) until A is done with it, then give it back to B."""
        raw = self.scenario.raw(y.lock)
        raw.release()  # A's acquire goes through
        self.scenario.wait(blanket.Call(A, y.lock.release))
        release = self.scenario.transaction(A)
        release.unblock()
        self.scenario.wait(release)
        raw.acquire()  # B holds y.lock again, as it believes it does
        # Leaving the scenario lets both threads finish on their own.


class TestFixedTransfers(OppositeTransfers, blanket.ScenarioTestCase):
    def test_both_transfers_go_through(self):
        x, y, A, B = self.start(fixed)
        with self.scenario:
            self.take_first_locks(A, B)  # A holds x.lock, B waits for it
            self.scenario.finish(A, B)
        self.assertEqual((x.balance, y.balance), (110, 90))
        self.assertAcquiredOrder(x.lock, [A, B])
        self.assertAcquiredOrder(y.lock, [A, B])

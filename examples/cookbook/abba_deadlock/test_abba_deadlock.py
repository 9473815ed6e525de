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
    def test_the_transfers_deadlock(self):
        x, y, A, B = self.start(buggy)
        with self.scenario:
            self.take_first_locks(A, B)  # A holds x.lock, B holds y.lock
            with self.assertRaises(blanket.DeadlockError) as deadlock:
                self.scenario.finish(A, B)
        self.assertIn("deadlock: A holds x.lock and waits for y.lock; "
                      "B holds y.lock and waits for x.lock", str(deadlock.exception))
        report = deadlock.exception.report
        self.assertIn("'A': Lock.acquire BLOCKED on 'y.lock'", report)
        self.assertIn("'B': Lock.acquire BLOCKED on 'x.lock'", report)
        self.assertFalse(A.is_alive() or B.is_alive())  # abandoned and joined


class TestFixedTransfers(OppositeTransfers, blanket.ScenarioTestCase):
    def test_both_transfers_go_through(self):
        x, y, A, B = self.start(fixed)
        with self.scenario:
            self.take_first_locks(A, B)  # A holds x.lock, B waits for it
            self.scenario.finish(A, B)
        self.assertEqual((x.balance, y.balance), (110, 90))
        self.assertAcquiredOrder(x.lock, [A, B])
        self.assertAcquiredOrder(y.lock, [A, B])

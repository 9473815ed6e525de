"""Two withdrawals of 80 from a balance of 100: A checks, B runs, A acts."""

import blanket

from . import buggy, fixed


class TwoWithdrawals:
    """The script, run against either version of the account."""

    Account = None  # set by each test class

    def withdraw_twice(self):
        lock = self.scenario.Lock()
        account = self.Account(lock, balance=100)
        A = self.worker(account.withdraw, 80)
        B = self.worker(account.withdraw, 80)
        with self.scenario:
            # A's first critical section: it finds the balance big enough.
            self.scenario.skip(A, lock.acquire, lock.release, wait=True)
            # B withdraws, start to finish, while A is between its sections.
            self.scenario.finish(B)
            self.scenario.finish(A)
        return account, A, B


class TestBuggyAccount(TwoWithdrawals, blanket.ScenarioTestCase):
    Account = buggy.Account

    def test_both_withdrawals_succeed_and_the_balance_goes_negative(self):
        account, A, B = self.withdraw_twice()
        self.assertEqual(self.outcome, {"A": True, "B": True})
        self.assertEqual(account.balance, -60)
        self.assertAcquiredOrder(account.lock, [A, B, B, A])


class TestFixedAccount(TwoWithdrawals, blanket.ScenarioTestCase):
    Account = fixed.Account

    def test_the_second_withdrawal_is_refused(self):
        account, A, B = self.withdraw_twice()
        self.assertEqual(self.outcome, {"A": True, "B": False})
        self.assertEqual(account.balance, 20)
        self.assertAcquiredOrder(account.lock, [A, B])

"""A bank account whose withdraw checks and acts under two separate locks."""

import threading


class Account:
    """A balance guarded by *lock*."""

    def __init__(self, lock: threading.Lock, balance: int) -> None:
        self.lock = lock
        self.balance = balance

    def withdraw(self, amount: int) -> bool:
        """Take *amount* out if the balance covers it; say whether it did."""
        with self.lock:
            enough = self.balance >= amount
        # The lock is free here: another withdraw can run and spend the money.
        if not enough:
            return False
        with self.lock:
            self.balance -= amount
        return True

"""A bank account whose withdraw checks and acts in one critical section."""

import threading


class Account:
    """A balance guarded by *lock*."""

    def __init__(self, lock: threading.Lock, balance: int) -> None:
        self.lock = lock
        self.balance = balance

    def withdraw(self, amount: int) -> bool:
        """Take *amount* out if the balance covers it; say whether it did."""
        with self.lock:
            if self.balance < amount:
                return False
            self.balance -= amount
            return True

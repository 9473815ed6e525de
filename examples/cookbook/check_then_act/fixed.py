"""A bank account whose withdraw checks and acts in one critical section."""


class Account:
    """A balance guarded by *lock*."""

    def __init__(self, lock, balance):
        self.lock = lock
        self.balance = balance

    def withdraw(self, amount):
        """Take *amount* out if the balance covers it; say whether it did."""
        with self.lock:
            if self.balance < amount:
                return False
            self.balance -= amount
            return True

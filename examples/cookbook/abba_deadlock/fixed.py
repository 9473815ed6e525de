"""Transfers between accounts that lock in one global order."""

import threading


class Account:
    """A balance guarded by its own *lock*."""

    def __init__(self, number: int, lock: threading.Lock, balance: int) -> None:
        self.number = number
        self.lock = lock
        self.balance = balance


def transfer(source: Account, target: Account, amount: int) -> None:
    """Move *amount* from *source* to *target*, holding both locks."""
    # Every transfer takes the lock of the lower-numbered account first, so
    # no thread can hold the second lock while waiting for the first.
    first, second = sorted((source, target), key=lambda account: account.number)
    with first.lock:
        with second.lock:
            source.balance -= amount
            target.balance += amount

"""Transfers between accounts that lock the source first, then the target."""

import threading


class Account:
    """A balance guarded by its own *lock*."""

    def __init__(self, number: int, lock: threading.Lock, balance: int) -> None:
        self.number = number
        self.lock = lock
        self.balance = balance


def transfer(source: Account, target: Account, amount: int) -> None:
    """Move *amount* from *source* to *target*, holding both locks."""
    # transfer(x, y) takes x then y; transfer(y, x) takes y then x. Each can
    # end up holding the lock the other one waits for.
    with source.lock:
        with target.lock:
            source.balance -= amount
            target.balance += amount

"""Seats of an event, each sold to one buyer at most: sold under a lock."""

import threading

import blanket


class Seats:
    """Sells the seats of one event; *lock* makes the check and the sale one."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.owners: dict[str, str] = {}

    def buy(self, seat: str, buyer: str) -> bool:
        """Sell *seat* to *buyer* if it is free."""
        with self.lock:
            if seat in self.owners:
                return False
            self.owners[seat] = buyer
            return True

    def owner(self, seat: str) -> str | None:
        """Who bought *seat*."""
        with self.lock:
            return self.owners.get(seat)


#: What buyers do: ann or bob tries for seat 1A; anyone looks who has it.
OPERATIONS = [*blanket.Operation.choices("buy", ["1A"], ["ann", "bob"]),
              blanket.Operation("owner", "1A")]

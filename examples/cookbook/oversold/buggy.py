"""Seats of an event, each sold to one buyer at most: no lock."""

import blanket


class Seats:
    """Sells the seats of one event."""

    def __init__(self) -> None:
        self.owners: dict[str, str] = {}

    def buy(self, seat: str, buyer: str) -> bool:
        """Sell *seat* to *buyer* if it is free."""
        if seat in self.owners:  # check ...
            return False
        self.owners[seat] = buyer  # ... then act: another buyer may be in between
        return True

    def owner(self, seat: str) -> str | None:
        """Who bought *seat*."""
        return self.owners.get(seat)


#: What buyers do: ann or bob tries for seat 1A; anyone looks who has it.
OPERATIONS = [*blanket.Operation.choices("buy", ["1A"], ["ann", "bob"]),
              blanket.Operation("owner", "1A")]

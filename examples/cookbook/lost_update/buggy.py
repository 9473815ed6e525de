"""A hit counter shared by the threads of a server, with no lock."""


class HitCounter:
    """Counts the hits every thread reports."""

    def __init__(self) -> None:
        self.count = 0

    def hit(self) -> None:
        """Count one hit."""
        # A read, an add and a write: another thread can read in between.
        self.count += 1

"""A parallel sum whose workers shrug off a broken barrier."""

import threading


class ParallelSum:
    """Each worker sums one part of *parts*; after *barrier* every worker
    reads the total."""

    def __init__(self, barrier: threading.Barrier, parts: list[list[int]]) -> None:
        self.barrier = barrier
        self.parts = parts
        self.sums = [0] * len(parts)

    def work(self, index: int) -> int:
        """Sum part *index*, wait for the other parts, return the total."""
        self.sums[index] = sum(self.parts[index])
        try:
            self.barrier.wait(timeout=5.0)
        except threading.BrokenBarrierError:
            pass  # "waited long enough": go on without the missing parts
        return sum(self.sums)

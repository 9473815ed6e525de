"""The ``"pct"`` strategy: probabilistic concurrency testing (Burckhardt et
al.): random thread priorities, the highest one's call taken at each step,
with *depth* - 1 points where the leader's priority drops, so that a bug
of depth *d* is found with a probability of at least 1/(n k^(d-1)) a run
(n threads, k steps)."""

from __future__ import annotations

import random
from collections.abc import Callable

from .run import Option, Run


def chooser(rng: random.Random, depth: int, length: int
            ) -> Callable[[int, list[Option], Run], int]:
    """A chooser for runs of at most *length* steps so far, with bug *depth*,
    from *rng*."""
    priorities: dict[int, int] = {}
    changes = {step: n for n, step in
               enumerate(rng.sample(range(1, max(length, depth) + 1), depth - 1))}

    def choose(step: int, options: list[Option], run: Run) -> int:
        for option in options:
            if option.thread not in priorities:
                priorities[option.thread] = depth + rng.randrange(1_000_000)
        best = max(range(len(options)), key=lambda n: priorities[options[n].thread])
        if step in changes:
            priorities[options[best].thread] = changes[step]
            best = max(range(len(options)), key=lambda n: priorities[options[n].thread])
        # A call that depends on time: waiting and expiring are equally likely.
        ways = [n for n, option in enumerate(options) if option.thread == options[best].thread]
        return ways[rng.randrange(len(ways))]
    return choose

"""pyrate-limiter InMemoryBucket: the leaker's ``leak()`` against a ``peek()``.

Bug: https://github.com/vutran1710/PyrateLimiter/issues/300 (fix: PR #302,
CHANGELOG 4.4.0: "InMemoryBucket: guard the internal item list with a lock so
the background Leaker thread can no longer race put/peek/leak"). In the default
configuration the Leaker thread calls ``bucket.leak(now)`` without the Limiter's
lock, while the Limiter calls ``put``/``peek`` under it. In 4.3.0 ``peek(0)``
checks ``self.items``, then ``count()``, then indexes ``self.items[-1]``: a
``leak`` that empties the list in between makes the ``peek`` raise IndexError
(the issue: "can yield wrong window counts or a rare IndexError"). 4.4.0 does
put/peek/leak/count under one RLock of the bucket.

The two threads are the two callers of the public bucket API: the leaker
(``leak``) and the limiter (``peek``, as ``waiting()`` does).
"""
import pyrate_limiter
from pyrate_limiter import Duration, InMemoryBucket, Rate, RateItem

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/vutran1710/PyrateLimiter/issues/300 (fix PR #302, CHANGELOG 4.4.0)"
VARIANTS = [Variant("pyrate-limiter 4.3.0", "pyrate-limiter-4.3.0", everywhere(True)),
            Variant("pyrate-limiter 4.4.0", "pyrate-limiter-4.4.0", everywhere(False))]


def LIB_FILE():
    return pyrate_limiter.__file__


def setup(scenario):
    bucket = InMemoryBucket([Rate(5, Duration.SECOND)])
    bucket.put(RateItem("api", 1_000))
    peeked = {}

    def limiter():
        peeked["item"] = bucket.peek(0)

    def leaker():
        bucket.leak(60_000)  # a minute later: the item is out of every window

    scenario.thread(limiter)
    scenario.thread(leaker)

    def peeked_cleanly():
        assert "item" in peeked, "peek() did not return"
        assert bucket.count() == 0, bucket.count()
    return peeked_cleanly

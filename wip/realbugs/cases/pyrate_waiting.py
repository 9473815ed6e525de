"""pyrate-limiter: ``waiting()`` against a ``put()`` that resets ``failing_rate``.

Bug: CHANGELOG 4.6.0, Fixed: "``waiting()`` could fail its own assertion. It
read ``failing_rate`` again after ``peek()``, and a ``put()`` outside the
limiter's lock could reset it to ``None`` in between. requests-ratelimiter makes
such puts when it fills a bucket after a 429. ``waiting()`` now reads the rate
once." In 4.5.1 ``AbstractBucket.waiting`` checks ``self.failing_rate is None``
and then reads ``self.failing_rate`` again for ``max_weight``/``blocking_offset``/
``retry_after``: a ``put`` that succeeds in between (``failing_rate = None``)
makes the second read None (AttributeError ``'NoneType' object has no attribute
'limit'``, or the assertion). 4.6.0 reads the attribute once.

Thread A asks how long to wait for a rejected item; thread B puts an item whose
window has moved on (accepted: the bucket clears ``failing_rate``).
"""
import pyrate_limiter
from pyrate_limiter import Duration, InMemoryBucket, Rate, RateItem

from realbugs_variant import Variant, everywhere

BUG = "pyrate-limiter CHANGELOG 4.6.0: 'waiting() could fail its own assertion' (failing_rate read twice)"
VARIANTS = [Variant("pyrate-limiter 4.5.1", "pyrate-limiter-4.5.1", everywhere(True)),
            Variant("pyrate-limiter 4.6.0", "pyrate-limiter-4.6.0", everywhere(False))]


def LIB_FILE():
    return pyrate_limiter.__file__


def setup(scenario):
    bucket = InMemoryBucket([Rate(1, Duration.SECOND)])
    assert bucket.put(RateItem("api", 1_000))
    rejected = RateItem("api", 1_100)
    assert not bucket.put(rejected)  # the bucket is full: failing_rate is set
    got = {}

    def wait_time():
        got["wait"] = bucket.waiting(rejected)

    def later_put():
        got["put"] = bucket.put(RateItem("api", 5_000))  # a new window: accepted

    scenario.thread(wait_time)
    scenario.thread(later_put)

    def both_answered():
        assert got.get("put") is True, got
        assert isinstance(got.get("wait"), int) and got["wait"] >= 0, got
    return both_answered

"""pyrate-limiter 1.0.0 LeakyBucketLimiter: two appends into a bucket with one free place.

Bug: CHANGELOG 1.1.0, Added: "Thread lock for Bucket's state modification in
case of Multi-threading" (PR https://github.com/vutran1710/PyrateLimiter/pull/7,
"Feature/multithreading": "allow multiple threads to interact with the same
LeakyBucketLimiter or TokenBucketLimiter objects without stepping on each other's
toes"). In 1.0.0 ``LeakyBucketLimiter.append`` leaks, checks
``queue.getlen() >= capacity`` and appends with no lock: two threads both see the
bucket below capacity and both append, so the limiter lets two calls through
where its capacity is one. 1.1.0 does ``append``/``leak`` under an RLock.

The bucket is a fresh ``LocalBucket([])`` (1.0.0's default ``initial_values=[]``
is one list shared by every bucket, a separate bug also fixed in 1.1.0, so the
setup passes its own list).
"""
import pyrate_limiter
from pyrate_limiter.core import LeakyBucketLimiter
from pyrate_limiter.engines.local import LocalBucket
from pyrate_limiter.exceptions import BucketFullException

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/vutran1710/PyrateLimiter/pull/7 (CHANGELOG 1.1.0: 'Thread lock for Bucket's state modification in case of Multi-threading')"
VARIANTS = [Variant("pyrate-limiter 1.0.0", "pyrate-limiter-1.0.0", everywhere(True)),
            Variant("pyrate-limiter 1.1.0", "pyrate-limiter-1.1.0", everywhere(False))]


def LIB_FILE():
    return pyrate_limiter.__file__


def setup(scenario):
    limiter = LeakyBucketLimiter(LocalBucket([]), capacity=1, window=3600)
    admitted = {}

    def call(tag):
        try:
            limiter.append(tag)
        except BucketFullException:
            admitted[tag] = False
        else:
            admitted[tag] = True

    scenario.thread(call, "A")
    scenario.thread(call, "B")

    def capacity_held():
        winners = [tag for tag, ok in admitted.items() if ok]
        assert len(winners) == 1, f"capacity 1 and {winners} admitted"
        assert limiter.queue.getlen() == 1, limiter.queue.values()
    return capacity_held

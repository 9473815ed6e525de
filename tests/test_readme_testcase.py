"""ScenarioTestCase used as the README shows it."""

import blanket


class Cache:
    """A cache whose first reader fills it under a lock."""

    def __init__(self, lock):
        self.lock = lock
        self.filled_by = None

    def get(self, key):
        with self.lock:
            if self.filled_by is None:
                self.filled_by = key
            return self.filled_by


class TestCache(blanket.ScenarioTestCase):
    def test_second_reader_waits_for_fill(self):
        lock = self.scenario.Lock()
        cache = Cache(lock)
        A = self.thread(cache.get, "key")     # named "A"
        B = self.thread(cache.get, "key")     # named "B"
        with self.scenario:
            list(self.scenario.api(lock).relay(B, A))
        self.assertAcquiredOrder(lock, [B, A])
        self.assertEqual((A.name, B.name), ("A", "B"))

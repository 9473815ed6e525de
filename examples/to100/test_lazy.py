import unittest

from to100.lazy import Lazy


class LazyTest(unittest.TestCase):
    def test_made_once(self):
        lazy = Lazy(object)
        self.assertIs(lazy.get(), lazy.get())

"""How two threads use a Lazy, for blanket to explore."""

from to100.lazy import Lazy


def two_getters(scenario):
    lazy = Lazy(object)
    scenario.thread(lazy.get)
    scenario.thread(lazy.get)

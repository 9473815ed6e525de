"""Model of functools.cached_property on 3.12+ (gh-87634): two threads read the
property of one instance first and both compute it. The classes are defined at
import time, as real code does (``setup_fixed``'s lock is made then)."""
import cached_prop_lib

computed = []


class Settings:
    @cached_prop_lib.cached_prop
    def value(self):
        computed.append(1)
        return 42


class LockedSettings:
    @cached_prop_lib.locked_cached_prop
    def value(self):
        computed.append(1)
        return 42


def _setup(scenario, kind):
    computed.clear()
    settings = kind()
    got = {}

    def read(tag):
        got[tag] = settings.value

    scenario.thread(read, "A")
    scenario.thread(read, "B")

    def computed_once():
        assert got == {"A": 42, "B": 42}, got
        assert len(computed) == 1, f"computed {len(computed)} times"
    return computed_once


def setup(scenario):
    return _setup(scenario, Settings)


def setup_fixed(scenario):
    return _setup(scenario, LockedSettings)

"""An attribute whose access runs Python code (a property, a data descriptor
written in Python, a type's own ``__getattribute__``/``__setattr__``) is
accessed by that code, not by the instruction: the instruction reads only
the object's type. Before, ``obj.value`` on a property guarded by a lock was
recorded as a raw read racing with the setter's raw write, a race the lock
rules out; and the lock-free versions are still found."""

from __future__ import annotations

import threading
import unittest
from typing import Any

import blanket
from blanket.exploration.sites import _runs_python


class Locked:
    """A counter behind a property whose accessors hold a lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value = 0

    @property
    def value(self) -> int:
        with self._lock:
            return self._value

    @value.setter
    def value(self, new: int) -> None:
        with self._lock:
            self._value = new


class Unlocked:
    """The same counter, no lock: the property reads and writes ``_value``."""

    def __init__(self) -> None:
        self._value = 0

    @property
    def value(self) -> int:
        return self._value

    @value.setter
    def value(self, new: int) -> None:
        self._value = new


class Guarded:
    """Its own ``__setattr__`` and ``__getattribute__``, each under a lock."""

    def __init__(self) -> None:
        object.__setattr__(self, "_lock", threading.Lock())
        object.__setattr__(self, "count", 0)

    def __getattribute__(self, name: str) -> Any:
        with object.__getattribute__(self, "_lock"):
            return object.__getattribute__(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        with object.__getattribute__(self, "_lock"):
            object.__setattr__(self, name, value)


class Slotted:
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


def write_and_read(make: type) -> Any:
    """A setup: one thread sets ``value`` (or ``count``), another reads it."""
    name = "count" if make is Guarded else "value"

    def setup(scenario: blanket.Scenario) -> None:
        shared = make()
        scenario.thread(setattr_, shared, name)
        scenario.thread(getattr_, shared, name)
    return setup


def setattr_(shared: Any, name: str) -> None:
    if name == "count":
        shared.count = 1
    else:
        shared.value = 1


def getattr_(shared: Any, name: str) -> None:
    if name == "count":
        shared.count  # noqa: B018 - the read is the point
    else:
        shared.value  # noqa: B018


class Explored(unittest.TestCase):
    def test_accessors_that_hold_a_lock_race_with_nothing(self) -> None:
        for kind in (Locked, Guarded):
            with self.subTest(kind.__name__):
                result = blanket.explore(write_and_read(kind))
                self.assertTrue(result.exhausted, result)
                self.assertEqual(result.races, [], result)

    def test_accessors_without_a_lock_race_on_what_they_touch(self) -> None:
        result = blanket.explore(write_and_read(Unlocked))
        self.assertEqual({race.what for race in result.races}, {"Unlocked._value"}, result)

    def test_a_slot_is_the_attribute_itself(self) -> None:
        result = blanket.explore(write_and_read(Slotted))
        self.assertEqual({race.what for race in result.races}, {"Slotted.value"}, result)


class Descriptor:
    """A non-data descriptor written in Python: the instance's dict is read first."""

    def __get__(self, instance: object, owner: type | None = None) -> int:
        return 1


class SetOnly(Descriptor):
    def __set__(self, instance: object, value: object) -> None:
        pass


class DeleteOnly(Descriptor):
    def __delete__(self, instance: object) -> None:
        pass


class Holder:
    plain = Descriptor()
    settable = SetOnly()
    deletable = DeleteOnly()


class RunsPython(unittest.TestCase):
    def test_which_accesses_run_python_code(self) -> None:
        read, write = "__getattribute__", "__setattr__"
        self.assertTrue(_runs_python(Guarded, "count", read))  # the type's own hook
        self.assertTrue(_runs_python(Locked, "value", read))  # a property
        self.assertTrue(_runs_python(Holder, "settable", read))  # data descriptors
        self.assertTrue(_runs_python(Holder, "deletable", read))
        self.assertTrue(_runs_python(Holder, "settable", write))
        self.assertFalse(_runs_python(Holder, "plain", read))  # the instance's dict first
        self.assertFalse(_runs_python(Holder, "other", read))  # nothing on the type
        self.assertFalse(_runs_python(Slotted, "value", read))  # a C descriptor
        self.assertFalse(_runs_python(type, "settable", read))  # a class's own attribute
        self.assertFalse(_runs_python(Holder, "deletable", write))  # __set__ is C's


if __name__ == "__main__":
    unittest.main()

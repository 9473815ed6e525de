"""multimethod: two threads dispatch on new argument types at once.

A ``multimethod`` is a dict of signatures that also caches each new call
signature it resolves (``__missing__`` ... ``self.setdefault(types, func)``).
Resolving iterates the dict (``parents``: ``{key for key in self ...}``);
another thread caching its own resolution meanwhile makes the iteration
raise ``RuntimeError: dictionary changed size during iteration``. Fixed in
1.9.1 (``for key in list(self)``), released for
https://github.com/coady/multimethod/issues/77 ("Thread safety fix").
"""
import multimethod as _multimethod
from multimethod import multimethod

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/coady/multimethod/issues/77 (fixed in 1.9.1: parents() iterates list(self))"
VARIANTS = [Variant("multimethod 1.9.0", "multimethod-1.9.0", everywhere(True)),
            Variant("multimethod 1.9.1", "multimethod-1.9.1", everywhere(False))]


def LIB_FILE():
    return _multimethod.__file__


class Base:
    pass


class Left(Base):
    pass


class Right(Base):
    pass


def setup(scenario):
    @multimethod
    def describe(x: Base):
        return "base"

    @describe.register
    def _(x: object):
        return "object"

    got = {}

    def call(tag, value):
        got[tag] = describe(value)

    scenario.thread(call, "A", Left())
    scenario.thread(call, "B", Right())

    def both_dispatched():
        assert got == {"A": "base", "B": "base"}, got
    return both_dispatched

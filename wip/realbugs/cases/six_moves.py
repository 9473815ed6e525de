"""six: the lazy attributes of ``six.moves`` race on first use.

Bug: https://github.com/benjaminp/six/issues/98 (six 1.7.3; fixed in 1.9.0:
``_LazyDescr.__get__`` ignores the AttributeError of a second ``delattr``).
Two threads read the same not-yet-resolved move; both run the descriptor; the
second ``delattr(obj.__class__, name)`` raises ``AttributeError`` in its thread.
A move of our own (``six.add_move``, public API) makes the state fresh each run.
"""
import os.path

import six

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/benjaminp/six/issues/98"
VARIANTS = [Variant("six 1.7.3", "six-1.7.3", everywhere(True)),
            Variant("six 1.9.0", "six-1.9.0", everywhere(False))]
NAME = "realbugs_join"


def LIB_FILE():
    return six.__file__


def fresh_move():
    try:
        six.remove_move(NAME)
    except AttributeError:
        pass
    six.add_move(six.MovedAttribute(NAME, "os.path", "os.path", "join", "join"))


def setup(scenario):
    fresh_move()
    got = {}

    def use(tag):
        got[tag] = getattr(six.moves, NAME)

    scenario.thread(use, "A")
    scenario.thread(use, "B")

    def both_resolved():
        assert got == {"A": os.path.join, "B": os.path.join}, got
    return both_resolved

"""six, as six_moves, with the setup asking blanket to watch the library
(``scenario.instrument(six)``), as the docs say to do for code the threads call.

Issue 21 saw this raise ModuleNotFoundError inside blanket (walking six's
globals triggers the lazy ``six.moves`` attributes).
"""
import six

import six_moves
from realbugs_variant import Variant, everywhere

BUG = six_moves.BUG + " (+ scenario.instrument(six))"
VARIANTS = six_moves.VARIANTS
LIB_FILE = six_moves.LIB_FILE


def setup(scenario):
    scenario.instrument(six)
    return six_moves.setup(scenario)

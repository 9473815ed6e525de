"""importlib.util.LazyLoader: two threads touch a lazily loaded module.

Bug: https://github.com/python/cpython/issues/114763 (fix: PR #114781, in 3.13.0
and backported to 3.12.3: a per-module RLock and Event made in ``exec_module``).
``_LazyModule.__getattribute__`` first sets ``self.__class__ = types.ModuleType``
and only then runs the module; a second thread reading an attribute in between
gets a plain, empty module: AttributeError. 3.11 (no more bug fixes) and
3.12.1 (here) have the bug; 3.13.0 and 3.13t have the fix.
"""
import importlib.util
import os
import sys

from realbugs_variant import Variant

BUG = "https://github.com/python/cpython/issues/114763"
VARIANTS = [Variant("stdlib", None, {"3.11": True, "3.12": True, "3.13": False, "3.13t": False})]
PAYLOAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lazy_payload.py")


def LIB_FILE():
    return importlib.util.__file__


def setup(scenario):
    # The recipe of the importlib docs ("Implementing lazy imports").
    spec = importlib.util.spec_from_file_location("lazy_payload", PAYLOAD)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["lazy_payload"] = module
    loader.exec_module(module)
    got = {}

    def read(tag):
        got[tag] = module.VALUE

    scenario.thread(read, "A")
    scenario.thread(read, "B")

    def both_read():
        assert got == {"A": 42, "B": 42}, got
    return both_read

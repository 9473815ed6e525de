"""sysconfig.get_config_var: two threads make the first call of a process.

Bug: https://github.com/python/cpython/issues/92452 (fix: PR #92453, in 3.12.0;
3.11 only gets security fixes). In 3.11 ``get_config_vars`` sets the global
``_CONFIG_VARS = {}`` and only then fills it: a second thread calling
``get_config_var("srcdir")`` in between sees the empty dict and gets None.
3.12+ fill it under ``_CONFIG_VARS_LOCK`` (an RLock) and publish it when full.
Each run starts from the state of a fresh process: the setup sets the module's
``_CONFIG_VARS`` back to None (and, on 3.12+, ``_CONFIG_VARS_INITIALIZED`` to
False); the threads call only ``get_config_var``. (``importlib.reload(sysconfig)``
did the same but made every run slow under blanket: no result in 200 s.)
"""
import sysconfig

from realbugs_variant import Variant

BUG = "https://github.com/python/cpython/issues/92452"
VARIANTS = [Variant("stdlib", None, {"3.11": True, "3.12": False, "3.13": False, "3.13t": False})]


# What one thread alone gets, in this process.
EXPECTED = sysconfig.get_config_var("srcdir")


def LIB_FILE():
    return sysconfig.__file__


def setup(scenario):
    sysconfig._CONFIG_VARS = None
    if hasattr(sysconfig, "_CONFIG_VARS_INITIALIZED"):
        sysconfig._CONFIG_VARS_INITIALIZED = False
    config = sysconfig
    got = {}

    def read(tag):
        got[tag] = config.get_config_var("srcdir")

    scenario.thread(read, "A")
    scenario.thread(read, "B")

    def both_see_srcdir():
        assert got == {"A": EXPECTED, "B": EXPECTED}, got
    return both_see_srcdir

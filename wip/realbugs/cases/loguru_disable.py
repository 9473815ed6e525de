"""loguru 0.2.5: logger.disable() called while the module logs for the first time.

Bug: loguru CHANGELOG 0.3.0: "Fix thread-safety of enable() and disable() being
called during logging". In 0.2.5 the first message from a module looks its name up
in ``_activation_list`` and caches the answer in the class's ``_enabled`` dict with
no lock; ``disable(name)`` (under the lock) updates the cached names and the list.
A message that read the list before ``disable`` changed it caches ``True`` after
``disable`` returned: the module stays enabled for ever (every later message is
logged); or ``disable``'s ``for n in self._enabled`` meets the new key
(RuntimeError). 0.3.0 copies ``_enabled`` and publishes the copy, and the logging
thread writes into the dict it read.
Each run starts from a fresh process's state: the setup empties ``Logger._enabled``
and ``Logger._activation_list`` (class attributes filled lazily by logging and by
enable/disable) and the handlers (``logger.remove()``); the threads call only the
public API. On 3.12+ the case imports setuptools first (distutils, see loguru_add).
"""
import sys

if sys.version_info >= (3, 12):
    import setuptools  # noqa: F401  (provides distutils)

import loguru
from loguru import logger

from realbugs_variant import Variant, everywhere

BUG = "loguru CHANGELOG 0.3.0: 'Fix thread-safety of enable() and disable() being called during logging'"
VARIANTS = [Variant("loguru 0.2.5", "loguru-0.2.5", everywhere(True)),
            Variant("loguru 0.3.0", "loguru-0.3.0", everywhere(False))]


def LIB_FILE():
    return loguru.__file__


def setup(scenario):
    Logger = type(logger)
    Logger._enabled = {}
    if hasattr(Logger, "_activation_none"):
        Logger._activation_none = True
    Logger._activation_list = []
    logger.remove()
    got = []
    logger.add(got.append, format="{message}")

    scenario.thread(logger.disable, __name__)
    scenario.thread(logger.info, "first")

    def disabled_for_good():
        logger.info("after disable() returned")
        assert not any("after" in message for message in got), "the module was disabled, its message was logged"
    return disabled_for_good

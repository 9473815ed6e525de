"""loguru 0.2.3: one thread adds a handler while another logs.

Bug: loguru CHANGELOG 0.2.4: "Fix adding handler while logging which was not
thread-safe" (https://github.com/Delgan/loguru/issues/22). In 0.2.3 ``logger.add``
puts the new handler into the logger's shared ``_handlers`` dict (under the
logger's lock) while ``_log`` iterates ``_handlers.values()`` without it:
"RuntimeError: dictionary changed size during iteration" in the logging thread.
0.2.4 iterates a copy. Each run starts from no handler (``logger.remove()``) and
adds one, as the application would. On 3.12+ the case imports setuptools first:
loguru 0.2.x's dependency better_exceptions_fork imports distutils (setuptools,
in the same --target dir, provides it).
"""
import sys

if sys.version_info >= (3, 12):
    import setuptools  # noqa: F401  (provides distutils)

import loguru
from loguru import logger

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/Delgan/loguru/issues/22 (CHANGELOG 0.2.4: adding handler while logging was not thread-safe)"
VARIANTS = [Variant("loguru 0.2.3", "loguru-0.2.3", everywhere(True)),
            Variant("loguru 0.2.4", "loguru-0.2.4", everywhere(False))]


def LIB_FILE():
    return loguru.__file__


def setup(scenario):
    logger.remove()
    first, second = [], []
    logger.add(first.append, format="{message}")

    scenario.thread(logger.add, second.append, format="{message}")
    scenario.thread(logger.info, "hello")

    def logged_once():
        assert len(first) == 1 and len(second) <= 1, (first, second)
    return logged_once

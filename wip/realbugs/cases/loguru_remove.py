"""loguru: one thread removes every handler while another logs.

Bug: https://github.com/Delgan/loguru/issues/1183 ("RuntimeError: dictionary changed
size during iteration" in ``_log``'s ``for handler in core.handlers.values()``);
the maintainer: "the logger was designed so that adding or removing handlers could
be done in parallel with logging, but there's a flaw in the current implementation",
fixed in 0.7.3 (CHANGELOG: "Fix possible RuntimeError when removing all handlers
with logger.remove() due to thread-safety issue (#1183)"). In 0.7.2 ``remove()``
publishes its private copy of the handler table after the first handler it drops,
then keeps popping from that same dict, which a logging thread may be iterating.
"""
import loguru
from loguru import logger

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/Delgan/loguru/issues/1183 (fixed in 0.7.3)"
VARIANTS = [Variant("loguru 0.7.2", "loguru-0.7.2", everywhere(True)),
            Variant("loguru 0.7.3", "loguru-0.7.3", everywhere(False))]


def LIB_FILE():
    return loguru.__file__


def setup(scenario):
    logger.remove()
    first, second = [], []
    logger.add(first.append, format="{message}")
    logger.add(second.append, format="{message}")

    scenario.thread(logger.remove)
    scenario.thread(logger.info, "hello")

    def logged_or_not():
        assert len(first) <= 1 and len(second) <= 1, (first, second)
    return logged_or_not

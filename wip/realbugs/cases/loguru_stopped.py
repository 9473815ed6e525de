"""loguru 0.2.4: a handler keeps writing after logger.remove() stopped it.

Bug: loguru CHANGELOG 0.2.5: "Fix race condition permitting writing on a stopped
handler". In 0.2.4 ``_log`` iterates a copy of the handlers, and ``Handler.emit``
writes under the handler's lock, but ``Handler.stop`` (called by ``logger.remove``)
neither takes that lock nor marks the handler stopped: a thread that took the copy
before the removal still writes to the sink after ``remove()`` has returned (for a
file sink: to the closed file). 0.2.5 sets ``stopped`` under the handler's lock in
``stop`` and ``emit`` returns when it is set. The sink (``catch=False``) raises if it
is called once ``remove()`` has returned: the logging thread's exception.
On 3.12+ the case imports setuptools first (distutils, see loguru_add).
"""
import sys
import types

if sys.version_info >= (3, 12):
    import setuptools  # noqa: F401  (provides distutils)

import loguru
from loguru import logger

from realbugs_variant import Variant, everywhere

BUG = "loguru CHANGELOG 0.2.5: 'Fix race condition permitting writing on a stopped handler'"
VARIANTS = [Variant("loguru 0.2.4", "loguru-0.2.4", everywhere(True)),
            Variant("loguru 0.2.5", "loguru-0.2.5", everywhere(False))]


def LIB_FILE():
    return loguru.__file__


def setup(scenario):
    logger.remove()
    state = types.SimpleNamespace(removed=False)
    got = []

    def sink(message):
        assert not state.removed, "the sink got a message after logger.remove() returned"
        got.append(message)

    handler_id = logger.add(sink, format="{message}", catch=False)

    def remove():
        logger.remove(handler_id)
        state.removed = True

    scenario.thread(remove)
    scenario.thread(logger.info, "hello")

    def at_most_once():
        assert len(got) <= 1, got
    return at_most_once

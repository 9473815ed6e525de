"""logging: two threads configure the app's logger (check-then-add handler) and log.

The bug class of https://github.com/felixbur/nkululeko/pull/394 ("Fix logger
handler race condition with threading lock": duplicate handler creation when
multiple threads concurrently configure the same logger): both threads see no
handler, both add one, each line is then written twice. The racing state
(``Logger.handlers``) lives in the stdlib ``logging`` module; the app's code is
in another module (logapp) than the thread targets.
"""
import logging

import logapp
from realbugs_variant import Variant, everywhere

BUG = "https://github.com/felixbur/nkululeko/pull/394"
VARIANTS = [Variant("app unlocked", None, everywhere(True), entry="setup"),
            Variant("app locked", None, everywhere(False), entry="setup_locked")]
NAME = "realbugs.app"


def LIB_FILE():
    return logging.__file__


def _setup(scenario, configure):
    stream = logapp.reset(NAME)

    def work(tag):
        configure(NAME, stream).info("hello from %s", tag)

    scenario.thread(work, "A")
    scenario.thread(work, "B")

    def one_handler():
        handlers = logging.getLogger(NAME).handlers
        assert len(handlers) == 1, f"{len(handlers)} handlers"
        lines = stream.getvalue().splitlines()
        assert len(lines) == 2, lines
    return one_handler


def setup(scenario):
    return _setup(scenario, logapp.configure)


def setup_locked(scenario):
    return _setup(scenario, logapp.configure_locked)

"""An application module configuring its logger: add a handler unless there is
one (the bug class of https://github.com/felixbur/nkululeko/pull/394); the fix
holds an app-level lock, made at import, around the check and the add."""
import threading

import handler_registry_lib

_lock = threading.Lock()


def configure(name, sink):
    logger = handler_registry_lib.get_logger(name)
    if not logger.handlers:
        logger.add_handler(sink)
    return logger


def configure_locked(name, sink):
    with _lock:
        return configure(name, sink)

"""An application's logging set-up, the way many are written: add a handler to
the app's logger unless it has one. ``configure`` is the racy one,
``configure_locked`` the fix (a module-level lock, made at import)."""
import io
import logging
import threading

_lock = threading.Lock()


def configure(name, stream):
    logger = logging.getLogger(name)
    if not logger.handlers:
        handler = logging.StreamHandler(stream)
        handler.setFormatter(logging.Formatter("%(threadName)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    return logger


def configure_locked(name, stream):
    with _lock:
        return configure(name, stream)


def reset(name):
    logger = logging.getLogger(name)
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
    return io.StringIO()

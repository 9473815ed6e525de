"""Handlers called while another thread removes one (the shape of
``logging.Logger.callHandlers``: it loops over ``self.handlers`` with no lock
while ``removeHandler`` changes the list under the module's lock, made at
import time): a handler that stays registered can be skipped."""
import threading

_lock = threading.RLock()


class Logger:
    def __init__(self):
        self.handlers = []

    def add_handler(self, handler):
        with _lock:
            self.handlers.append(handler)

    def remove_handler(self, handler):
        with _lock:
            self.handlers.remove(handler)

    def log(self, message):
        for handler in self.handlers:
            handler.append(message)


class LockedLogger(Logger):
    """The fix: the loop runs over a copy taken under the lock."""

    def log(self, message):
        with _lock:
            handlers = list(self.handlers)
        for handler in handlers:
            handler.append(message)

"""A process-wide logger registry (the shape of ``logging``: a module-level
RLock made at import, loggers in a module-global dict, each logger's handlers
in a list appended under that lock)."""
import threading

_lock = threading.RLock()
_loggers = {}


class Logger:
    def __init__(self, name):
        self.name = name
        self.handlers = []

    def add_handler(self, handler):
        with _lock:
            if handler not in self.handlers:
                self.handlers.append(handler)

    def remove_handler(self, handler):
        with _lock:
            self.handlers.remove(handler)

    def log(self, message):
        for handler in self.handlers:
            handler.append(message)


def get_logger(name):
    with _lock:
        if name not in _loggers:
            _loggers[name] = Logger(name)
        return _loggers[name]

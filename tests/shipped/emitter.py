"""An event emitter with ``once`` listeners (the shape of pyee 8.0.1; fixed in
8.1.0: https://github.com/jfhbrook/pyee/issues/76, PR #77).

Listeners live in a ``defaultdict`` of ``OrderedDict`` (a dict subclass); a
once-listener's wrapper pops itself before calling the listener."""
import threading
from collections import OrderedDict, defaultdict


class Emitter:
    def __init__(self):
        self._events = defaultdict(OrderedDict)

    def on(self, event, f):
        self._events[event][f] = f

    def once(self, event, f):
        def wrapper(*args):
            self._events[event].pop(f)  # the second concurrent emit: KeyError
            return f(*args)
        self._events[event][f] = wrapper

    def emit(self, event, *args):
        handlers = list(self._events[event].values())
        for handler in handlers:
            handler(*args)
        return bool(handlers)


class LockedEmitter(Emitter):
    """The fix: the table under a lock made in __init__, and a once-wrapper that
    runs the listener only if it removed it."""

    def __init__(self):
        super().__init__()
        self._lock = threading.Lock()

    def on(self, event, f):
        with self._lock:
            super().on(event, f)

    def once(self, event, f):
        def wrapper(*args):
            with self._lock:
                if self._events[event].pop(f, None) is None:
                    return None
            return f(*args)
        with self._lock:
            self._events[event][f] = wrapper

    def emit(self, event, *args):
        with self._lock:
            handlers = list(self._events[event].values())
        for handler in handlers:
            handler(*args)
        return bool(handlers)

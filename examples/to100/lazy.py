"""A value made once, on first use, by whichever thread asks first."""

import threading


class Lazy:
    def __init__(self, make):
        self._make = make
        self._lock = threading.Lock()
        self._value = None
        self.made_by_others = 0

    def get(self):
        if self._value is None:
            with self._lock:
                if self._value is None:
                    self._value = self._make()
                else:
                    self.made_by_others += 1
        return self._value

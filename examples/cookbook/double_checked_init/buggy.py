"""Settings loaded on first use, published before they are loaded."""

import threading


class Source:
    """A settings file, read under its own *lock*."""

    def __init__(self, lock: threading.Lock, values: dict[str, str]) -> None:
        self.lock = lock
        self.values = values

    def read(self) -> dict[str, str]:
        """A copy of the settings."""
        with self.lock:
            return dict(self.values)


class Settings:
    """The settings of *source*, loaded by the first caller of :meth:`get`."""

    def __init__(self, lock: threading.Lock, source: Source) -> None:
        self.lock = lock
        self.source = source
        self.values: dict[str, str] | None = None

    def get(self) -> dict[str, str]:
        """The settings, loaded once."""
        if self.values is None:  # first check, without the lock
            with self.lock:
                if self.values is None:  # second check, with it
                    # Published while still empty: a reader that skips the
                    # lock (first check) sees {} until the update is done.
                    self.values = {}
                    self.values.update(self.source.read())
        return self.values

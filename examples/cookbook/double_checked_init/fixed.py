"""Settings loaded on first use, published once they are loaded."""

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
                    values = self.source.read()
                    self.values = values  # published only when complete
        return self.values

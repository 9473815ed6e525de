"""Settings reloaded by one thread and read by others, under a lock."""

import threading


class Settings:
    """One version of the settings."""

    def __init__(self) -> None:
        self.timeout = 0.0


class Registry:
    """Where the threads find the current settings (``None`` until loaded);
    *lock* guards the publication and the reads."""

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock
        self.current: Settings | None = None

    def load(self, timeout: float) -> None:
        """Make new settings, set them up, then publish them."""
        settings = Settings()
        settings.timeout = timeout
        with self.lock:
            self.current = settings

    def timeout(self) -> float | None:
        """The current timeout, or ``None`` before the first load."""
        with self.lock:
            settings = self.current
        if settings is None:
            return None
        return settings.timeout

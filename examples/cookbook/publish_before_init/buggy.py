"""Settings reloaded by one thread and read by others, with no lock."""


class Settings:
    """One version of the settings."""

    def __init__(self) -> None:
        self.timeout = 0.0


class Registry:
    """Where the threads find the current settings (``None`` until loaded)."""

    def __init__(self) -> None:
        self.current: Settings | None = None

    def load(self, timeout: float) -> None:
        """Make new settings and publish them."""
        settings = Settings()
        self.current = settings  # published: readers can see it from here on
        settings.timeout = timeout  # ...but its timeout is set only now

    def timeout(self) -> float | None:
        """The current timeout, or ``None`` before the first load."""
        settings = self.current
        if settings is None:
            return None
        return settings.timeout

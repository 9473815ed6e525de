"""A cache of expensive connections, filled on first use, with no lock."""


class Connection:
    """An expensive thing to make: the cache should make one per host."""

    def __init__(self, host: str) -> None:
        self.host = host


class ConnectionCache:
    """One connection per host, made the first time a host is asked for."""

    def __init__(self) -> None:
        self.connections: dict[str, Connection] = {}
        self.made = 0

    def get(self, host: str) -> Connection:
        """The connection to *host*, made if there is none yet."""
        if host not in self.connections:
            # Another thread can find the host missing too, before this store.
            self.made += 1
            self.connections[host] = Connection(host)
        return self.connections[host]

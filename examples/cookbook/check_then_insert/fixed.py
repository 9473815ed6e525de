"""A cache of expensive connections, filled on first use under a lock."""

import threading


class Connection:
    """An expensive thing to make: the cache should make one per host."""

    def __init__(self, host: str) -> None:
        self.host = host


class ConnectionCache:
    """One connection per host, made the first time a host is asked for;
    *lock* guards the check and the insert together."""

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock
        self.connections: dict[str, Connection] = {}
        self.made = 0

    def get(self, host: str) -> Connection:
        """The connection to *host*, made if there is none yet."""
        with self.lock:
            if host not in self.connections:
                self.made += 1
                self.connections[host] = Connection(host)
            return self.connections[host]

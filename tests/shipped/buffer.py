"""A write buffer flushed to a sink once full (the shape of buffered log and
socket writers over a ``bytearray``): a flush that copies the buffer, then
empties it, drops what another thread wrote in between."""
import threading


class Buffer:
    def __init__(self, limit):
        self.limit = limit
        self.data = bytearray()
        self.sink = []

    def write(self, chunk):
        self.data.extend(chunk)
        if len(self.data) >= self.limit:
            self.flush()

    def flush(self):
        chunk = bytes(self.data)
        del self.data[:]
        self.sink.append(chunk)


class LockedBuffer(Buffer):
    """The fix: writes and flushes under one lock."""

    def __init__(self, limit):
        super().__init__(limit)
        self._lock = threading.RLock()

    def write(self, chunk):
        with self._lock:
            super().write(chunk)

    def flush(self):
        with self._lock:
            super().flush()

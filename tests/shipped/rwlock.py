"""A reader/writer lock (the shape of fasteners 0.16.3's ReaderWriterLock;
https://github.com/harlowja/fasteners/issues/86, fixed in 0.17.3).

Its Condition comes from a default argument bound when this module is imported
(``condition_cls=threading.Condition``). ``admit_writer=False`` is the bug: the
active writer asking for a read lock waits for pending writers, who wait for it."""
import threading


class ReaderWriterLock:
    def __init__(self, condition_cls=threading.Condition, admit_writer=True):
        self._cond = condition_cls()
        self._writer = None
        self._pending = []
        self._readers = {}
        self._admit_writer = admit_writer

    def acquire_read(self):
        me = threading.current_thread()
        with self._cond:
            while True:
                if self._writer is None or self._writer is me:
                    if me in self._readers:
                        self._readers[me] += 1
                        return
                    if (self._admit_writer and self._writer is me) or not self._pending:
                        self._readers[me] = 1
                        return
                self._cond.wait()

    def release_read(self):
        me = threading.current_thread()
        with self._cond:
            if self._readers[me] > 1:
                self._readers[me] -= 1
            else:
                del self._readers[me]
            self._cond.notify_all()

    def acquire_write(self):
        me = threading.current_thread()
        with self._cond:
            self._pending.append(me)
            while self._readers or self._writer is not None or self._pending[0] is not me:
                self._cond.wait()
            self._writer = self._pending.pop(0)

    def release_write(self):
        with self._cond:
            self._writer = None
            self._cond.notify_all()

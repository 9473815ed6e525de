"""DBUtils PooledDB: a thread waiting for a shared connection that was in a transaction.

Bug: DBUtils changelog 3.2.0, Bugfixes: "Fixed an ``IndexError`` in
``PooledDB.connection()`` when a thread waiting for a shared connection that was
in a transaction got woken up after that connection had become idle and left the
shared cache." In 3.1.2, ``connection()`` pops the least shared connection; if it
is in a transaction it puts it back and waits on the pool's Condition, then
sorts and pops again. If the holder meanwhile commits and closes its connection,
``unshare`` removes it from the shared cache (idle cache instead) and notifies:
the waiter's ``self._shared_cache.pop(0)`` raises IndexError on the empty list.
3.2.0 only looks at the first entry and starts over after each wait.

The database module is a stand-in with ``threadsafety = 2`` (connections may be
shared), as the DB-API says; no database is involved. The pool shares one
connection (``maxshared=1, maxconnections=1, blocking=True``); the setup takes
it and begins a transaction; thread "holder" commits and closes it, thread
"getter" asks the pool for a shared connection.
"""
import dbutils
from dbutils.pooled_db import PooledDB

from realbugs_variant import Variant, everywhere

BUG = "DBUtils changelog 3.2.0: 'Fixed an IndexError in PooledDB.connection() when a thread waiting for a shared connection ... got woken up'"
VARIANTS = [Variant("DBUtils 3.1.2", "dbutils-3.1.2", everywhere(True)),
            Variant("DBUtils 3.2.0", "dbutils-3.2.0", everywhere(False))]


def LIB_FILE():
    return dbutils.__file__


class _Cursor:
    def execute(self, *args):
        pass

    def close(self):
        pass


class _Connection:
    def cursor(self):
        return _Cursor()

    def commit(self):
        pass

    def rollback(self):
        pass

    def close(self):
        pass


class FakeDBAPI:
    """A DB-API 2 module stand-in: thread-safe connections (level 2)."""
    threadsafety = 2

    class Error(Exception):
        pass

    class OperationalError(Error):
        pass

    class InterfaceError(Error):
        pass

    class InternalError(Error):
        pass

    @staticmethod
    def connect(*args, **kwargs):
        return _Connection()


def setup(scenario):
    pool = PooledDB(FakeDBAPI, maxshared=1, maxconnections=1, blocking=True)
    held = pool.connection()
    held.begin()
    got = {}

    def holder():
        held.commit()
        held.close()

    def getter():
        con = pool.connection()
        got["con"] = con
        con.close()

    scenario.thread(holder)
    scenario.thread(getter)

    def getter_served():
        assert "con" in got, "the getter got no connection"
    return getter_served

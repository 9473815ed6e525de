"""peewee: one ``@db.atomic()`` decorated function called from two threads.

Bug: https://github.com/coleifer/peewee/issues/2709 ("db.atomic decorator is not
a thread-safe"), CHANGELOG 3.16.2: "Fixes a longstanding issue with thread-safety
of various decorators, including atomic(), transaction(), savepoint(). The
context-managers are unaffected." In 3.16.1 the decorator is the one ``_atomic``
object made at decoration time; its ``__enter__`` stores the transaction or
savepoint it opens in ``self._helper`` and ``__exit__`` closes ``self._helper``.
Two threads inside the function at once share it: thread A's exit releases
thread B's savepoint, on A's own connection, where it does not exist
(``OperationalError: no such savepoint``). 3.16.2 makes a new ``_atomic`` per
call.

Each thread has its own connection (peewee's per-thread connection state) to an
in-memory SQLite database; each calls the decorated function inside its own
``with db.atomic():`` block, so the decorator opens a savepoint (as in the issue's
log).
"""
import peewee
from peewee import SqliteDatabase

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/coleifer/peewee/issues/2709 (CHANGELOG 3.16.2)"
VARIANTS = [Variant("peewee 3.16.1", "peewee-3.16.1", everywhere(True)),
            Variant("peewee 3.16.2", "peewee-3.16.2", everywhere(False))]


def LIB_FILE():
    return peewee.__file__


def setup(scenario):
    db = SqliteDatabase(":memory:")
    done = []

    @db.atomic()
    def record(tag):
        db.execute_sql("SELECT 1")
        done.append(tag)

    def worker(tag):
        with db.atomic():
            record(tag)
        db.close()

    scenario.thread(worker, "A")
    scenario.thread(worker, "B")

    def both_recorded():
        assert sorted(done) == ["A", "B"], done
    return both_recorded

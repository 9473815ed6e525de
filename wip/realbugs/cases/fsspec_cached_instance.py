"""fsspec: two threads make the same filesystem, and get two instances.

Bug: fsspec changelog 2026.7.0, Other: "fix: Make Cached metaclass instance
instantiation thread-safe and fork-safe (#2064)"
(https://github.com/fsspec/filesystem_spec/pull/2064). Filesystem classes are
made by the ``_Cached`` metaclass: "instances are cached", the same arguments
give the same object (``cls._cache[token]``). In 2026.6.0 ``_Cached.__call__``
tests ``token in cls._cache``, builds the instance, and stores it, with no lock:
two threads that both miss build two instances, and each caller keeps its own.
2026.7.0 checks again under the class's ``_instantiation_lock`` (an RLock the
metaclass makes when the class is created, at import) before building.

Which filesystems share one instance across threads: the token of a
synchronous filesystem includes ``threading.get_ident()`` (one instance a
thread, by design); an async filesystem used synchronously (``async_impl``,
``asynchronous=False``: HTTPFileSystem, s3fs, gcsfs...) has one token for all
threads, so this is where the race shows. ``Store`` is a minimal async
filesystem, a subclass of the public ``fsspec.asyn.AsyncFileSystem`` with no
methods of its own (no network library needed); it is given an event loop
(made once, never run) so that ``AsyncFileSystem.__init__`` does not start
fsspec's IO thread (``get_loop()``), and ``mirror_sync_methods = False`` (a
class option of AsyncFileSystem) so that each instantiation does not wrap every
async method (a smaller run; the cache code is the same).

Both threads call ``Store(loop=LOOP)`` (one token). The class's instance cache
lives as long as the class: the setup empties it with the public
``Store.clear_instance_cache()``, so each run starts as a fresh process does (no
instance made yet).
"""
import asyncio

import fsspec
from fsspec.asyn import AsyncFileSystem

from realbugs_variant import Variant, everywhere

BUG = "fsspec changelog 2026.7.0: 'Make Cached metaclass instance instantiation thread-safe and fork-safe (#2064)'"
VARIANTS = [Variant("fsspec 2026.6.0", "fsspec-2026.6.0", everywhere(True)),
            Variant("fsspec 2026.7.0", "fsspec-2026.7.0", everywhere(False))]


def LIB_FILE():
    return fsspec.__file__


LOOP = asyncio.new_event_loop()


class Store(AsyncFileSystem):
    protocol = "store"
    mirror_sync_methods = False  # no sync wrappers made at each instantiation: a smaller run


def setup(scenario):
    Store.clear_instance_cache()  # module state: the class's instance cache
    made = {}

    def user(tag):
        made[tag] = Store(loop=LOOP)

    scenario.thread(user, "A")
    scenario.thread(user, "B")

    def one_instance():
        assert made["A"] is made["B"], "two Store instances for one token"
    return one_instance

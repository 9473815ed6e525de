"""injector: two threads get a @singleton from a fresh Injector.

In 0.20.1 ``Injector.get`` finds the injector's SingletonScope instance with
``binder.get_binding(scope)``; on first use there is none, and each thread
binds a SingletonScope of its own (``self.bind(scope, to=scope(self.injector))``),
each with its own ``_context``: two instances of the singleton. 0.21.0
("Fixed a thread-safety regression", CHANGES) wraps ``Injector.get`` in
``@synchronized(lock)``.
"""
import injector
from injector import Injector, singleton

from realbugs_variant import Variant, everywhere

BUG = "injector CHANGES 0.21.0: 'Fixed a thread-safety regression' (Injector.get is @synchronized(lock))"
VARIANTS = [Variant("injector 0.20.1", "injector-0.20.1", everywhere(True)),
            Variant("injector 0.21.0", "injector-0.21.0", everywhere(False))]


def LIB_FILE():
    return injector.__file__


@singleton
class Database:
    pass


@singleton
class _Warm:
    pass


# As in an application, the container has served a request before the threads
# start (the first Injector.get imports and caches what inspect needs; run
# from the threads, that makes each run ~40 steps longer: see the README).
Injector().get(_Warm)


def setup(scenario):
    container = Injector()
    got = {}

    def use(tag):
        got[tag] = container.get(Database)

    scenario.thread(use, "A")
    scenario.thread(use, "B")

    def one_instance():
        assert got["A"] is got["B"], "two instances of a @singleton from one Injector"
    return one_instance

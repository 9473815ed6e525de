"""modern-di: two threads resolve one Singleton provider; two instances are made.

Bug: https://github.com/modern-python/modern-di/issues/13 ("Thread-safe singletons
and resources": "use threading Lock when resolving singletons and resources in
sync mode"), fixed by PR #16 ("Thread-safe singletons and resources"), released in
0.8.0. In 0.7.0 ``Singleton.sync_resolve`` reads the provider's state in the
container and, finding no instance, builds one and stores it, with no lock (the
provider state's ``asyncio.Lock`` is used by ``async_resolve`` only). Two threads
resolving the singleton for the first time both build it: two instances, the
first thread's one lost to every later resolve. 0.8.0 gives the provider state a
``threading.Lock`` and checks again under it (and makes the state with
``setdefault``).

Each thread resolves the provider once from one APP-scope container; the creator
counts the objects it makes. The provider is made at import, as a graph's class
attribute is (its id is a uuid4 made then); the container is made and entered in
the setup, so each run starts with no provider state; the count is reset there.
"""
import modern_di
from modern_di import Container, Scope, providers

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/modern-python/modern-di/issues/13 (fix PR #16, released in 0.8.0)"
VARIANTS = [Variant("modern-di 0.7.0", "modern-di-0.7.0", everywhere(True)),
            Variant("modern-di 0.8.0", "modern-di-0.8.0", everywhere(False))]

MADE = []


def LIB_FILE():
    return modern_di.__file__


class Settings:
    def __init__(self):
        MADE.append(self)


settings = providers.Singleton(Scope.APP, Settings)


def setup(scenario):
    MADE.clear()
    container = Container(scope=Scope.APP)
    container.__enter__()  # what `with Container(...) as container:` does first, kept open for the threads
    got = {"A": [], "B": []}  # a list a thread: the two threads' results are no race of their own

    def resolver(tag):
        got[tag].append(settings.sync_resolve(container))

    scenario.thread(resolver, "A")
    scenario.thread(resolver, "B")

    def one_instance():
        assert len(MADE) == 1, f"the Singleton provider made {len(MADE)} instances"
        assert got["A"][0] is got["B"][0], "the two threads got two different instances"
    return one_instance

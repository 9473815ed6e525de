"""that-depends: two threads resolve one Singleton provider; two instances are made.

Bug: https://github.com/modern-python/that-depends/issues/106 ("Make thread safe
singleton"), fixed by PR #125 ("make resources and singletons thread-safe"),
released in 1.25.0. In 1.24.0 ``Singleton.sync_resolve`` is a plain
check-then-create::

    if self._instance is None:
        self._instance = self._factory(...)
    return self._instance

(only ``async_resolve`` has a lock, an ``asyncio.Lock``). Two threads resolving
the provider for the first time both see no instance, both call the factory and
get two objects, the first thread's one lost to every later resolve. 1.25.0
checks again under a ``threading.Lock`` of the provider.

Each thread resolves the provider once; the factory counts the objects it makes.
The provider is made in the setup (as a container's attribute would be at import):
no module state.
"""
import that_depends
from that_depends import providers

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/modern-python/that-depends/issues/106 (fix PR #125, released in 1.25.0)"
VARIANTS = [Variant("that-depends 1.24.0", "that-depends-1.24.0", everywhere(True)),
            Variant("that-depends 1.25.0", "that-depends-1.25.0", everywhere(False))]


def LIB_FILE():
    return that_depends.__file__


class Settings:
    def __init__(self, made):
        made.append(self)


def setup(scenario):
    made = []
    settings = providers.Singleton(Settings, made)
    got = {}

    def resolver(tag):
        got[tag] = settings.sync_resolve()

    scenario.thread(resolver, "A")
    scenario.thread(resolver, "B")

    def one_instance():
        assert len(made) == 1, f"the Singleton provider made {len(made)} instances"
        assert got["A"] is got["B"], "the two threads got two different instances"
    return one_instance

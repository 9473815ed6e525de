"""cached-property: two threaded TTL properties of one object, first read
together: one value is computed twice.

Bug: cached-property HISTORY 1.2.0: "Fixed threaded_cached_property_with_ttl to
actually be thread-safe, thanks to @gsakkis" (pydanny/cached-property PR #18,
https://github.com/pydanny/cached-property/pull/18). In 1.1.0 each
``threaded_cached_property_with_ttl`` has its own lock (made in the descriptor's
``__init__``), but every such property of an object keeps its value in one dict
the first of them makes: ``try: cache = obj._cache except AttributeError: cache
= obj._cache = {}``. Two properties read for the first time in two threads hold
two different locks: both can find no ``_cache``, both make one, and the entry
stored in the first dict is lost; the next read of that property calls its
function again (within the TTL). 1.2.0 stores each value in ``obj.__dict__``
under the property's own name. The PR names no symptom: the lost entry is our
reading of what 1.1.0 gets wrong (the only shared state the two locks do not
cover), checked in both versions' source.

Thread A reads ``obj.a``, thread B reads ``obj.b`` (a TTL of an hour); the
invariant reads both again and counts the calls. The class and its object are
made in the setup: no module state.
"""
import cached_property as cached_property_module
from cached_property import threaded_cached_property_with_ttl

from realbugs_variant import Variant, everywhere

BUG = "cached-property HISTORY 1.2.0 'Fixed threaded_cached_property_with_ttl to actually be thread-safe' (PR #18)"
VARIANTS = [Variant("cached-property 1.1.0", "cached-property-1.1.0", everywhere(True)),
            Variant("cached-property 1.2.0", "cached-property-1.2.0", everywhere(False))]


def LIB_FILE():
    return cached_property_module.__file__


def setup(scenario):
    calls = {"a": 0, "b": 0}

    class Settings:
        @threaded_cached_property_with_ttl(ttl=3600)
        def a(self):
            calls["a"] += 1
            return "A"

        @threaded_cached_property_with_ttl(ttl=3600)
        def b(self):
            calls["b"] += 1
            return "B"

    settings = Settings()
    scenario.thread(lambda: settings.a)
    scenario.thread(lambda: settings.b)

    def computed_once():
        assert (settings.a, settings.b) == ("A", "B")
        assert calls == {"a": 1, "b": 1}, f"a cached value was computed again within its TTL: {calls}"
    return computed_once

"""opentelemetry.trace.set_tracer_provider: two threads set the global provider.

Bug: https://github.com/open-telemetry/opentelemetry-python/issues/2181 ("Race
condition in set_tracer_provider()": "multiple threads can set the global tracer
provider at once, bypassing the check that the global tracer provider can only be
set once"), fixed by PR #2182 in opentelemetry-api 1.6.0 (a ``Once`` with a lock).
In 1.5.0 ``set_tracer_provider`` tests ``_TRACER_PROVIDER is not None`` and then
assigns it: both threads pass the test, both set, and the two callers each read
back a different global provider. Each run starts from the state of a fresh
process: the setup sets ``_TRACER_PROVIDER`` back to None (and, in 1.6.0, makes a
new ``_TRACER_PROVIDER_SET_ONCE``); the threads call only the public API.
(``importlib.reload(opentelemetry.trace)`` did the same but made every run slow
under blanket: no result in 90 s, even with max_schedules=5.)
"""
import logging

import opentelemetry.trace

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/open-telemetry/opentelemetry-python/issues/2181 (fix PR #2182, opentelemetry-api 1.6.0)"
VARIANTS = [Variant("opentelemetry-api 1.5.0", "opentelemetry-api-1.5.0", everywhere(True)),
            Variant("opentelemetry-api 1.6.0", "opentelemetry-api-1.6.0", everywhere(False))]


# The application keeps the "Overriding ... not allowed" warning out of its logs.
logging.getLogger("opentelemetry.trace").setLevel(logging.ERROR)


class Provider(opentelemetry.trace.TracerProvider):  # the application's own provider
    def get_tracer(self, *args, **kwargs):
        return opentelemetry.trace.INVALID_SPAN  # never called here


def LIB_FILE():
    return opentelemetry.trace.__file__


def setup(scenario):
    trace = opentelemetry.trace
    trace._TRACER_PROVIDER = None
    if hasattr(trace, "_TRACER_PROVIDER_SET_ONCE"):
        trace._TRACER_PROVIDER_SET_ONCE = type(trace._TRACER_PROVIDER_SET_ONCE)()

    seen = {}

    def install(tag):
        trace.set_tracer_provider(Provider())
        seen[tag] = trace.get_tracer_provider()

    scenario.thread(install, "A")
    scenario.thread(install, "B")

    def set_once():
        assert seen["A"] is seen["B"], "the two threads each see a different global tracer provider"
    return set_once

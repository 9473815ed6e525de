"""opentelemetry-sdk metrics: two threads create the same counter on one Meter.

Bug: https://github.com/open-telemetry/opentelemetry-python/issues/4892 ("Race
condition during metric instrument creation": KeyError), fixed by PR #4913
("fix: Instrument creation race condition"), released in opentelemetry-sdk 1.40.0.
In 1.39.1 ``Meter.create_counter`` registers the name with the API meter
(``_register_instrument``: a set of ids under the API's lock) and only later puts the
new ``_Counter`` in ``self._instrument_id_instrument`` under the SDK's lock: a second
thread that finds the id "already registered" in between reads the dict before the
first thread filled it: KeyError. 1.40.0 does both under one
``_instrument_registration_lock``. Each run makes its own MeterProvider and Meter:
no module state to reset.
"""
import opentelemetry.sdk.metrics
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.resources import Resource

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/open-telemetry/opentelemetry-python/issues/4892 (fix PR #4913, opentelemetry-sdk 1.40.0)"
VARIANTS = [Variant("opentelemetry-sdk 1.39.1", "opentelemetry-sdk-1.39.1", everywhere(True)),
            Variant("opentelemetry-sdk 1.40.0", "opentelemetry-sdk-1.40.0", everywhere(False))]


def LIB_FILE():
    return opentelemetry.sdk.metrics.__file__


def setup(scenario):
    # The application names its resource (the default one runs the resource detectors
    # in a ThreadPoolExecutor of their own).
    provider = MeterProvider(resource=Resource({"service.name": "app"}), shutdown_on_exit=False)
    meter = provider.get_meter("app")
    got = {}

    def create(tag):
        got[tag] = meter.create_counter("requests")

    scenario.thread(create, "A")
    scenario.thread(create, "B")

    def one_counter():
        assert got["A"] is got["B"], "two counters for one name on one meter"
    return one_counter

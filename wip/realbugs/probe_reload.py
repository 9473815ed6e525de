"""A setup that calls importlib.reload makes blanket.explore slow beyond any budget.

  PYTHONPATH=<checkout>:libs/opentelemetry-api-1.5.0 venv-python3.11/bin/python probe_reload.py [reload|reset] [max_schedules]

With ``reset`` (the module's state put back by hand, as cases/otel_tracer_provider.py
does) 5 schedules take about 2 s; with ``reload`` (``importlib.reload(opentelemetry.trace)``
in the setup) 5 schedules did not end in 120 s (3.11, load average ~6).
"""
import importlib
import logging
import sys
import time

import blanket
import opentelemetry.trace

logging.getLogger("opentelemetry.trace").setLevel(logging.ERROR)
MODE = sys.argv[1] if len(sys.argv) > 1 else "reload"
MAX = int(sys.argv[2]) if len(sys.argv) > 2 else 5


def setup(scenario):
    if MODE == "reload":
        trace = importlib.reload(opentelemetry.trace)
    else:
        trace = opentelemetry.trace
        trace._TRACER_PROVIDER = None

    class Provider(trace.TracerProvider):
        def get_tracer(self, *args, **kwargs):
            return None

    seen = {}

    def install(tag):
        trace.set_tracer_provider(Provider())
        seen[tag] = trace.get_tracer_provider()

    scenario.thread(install, "A")
    scenario.thread(install, "B")
    return lambda: None


started = time.monotonic()
result = blanket.explore(setup, max_schedules=MAX)
print(f"{MODE}: {result.count} schedules in {time.monotonic() - started:.1f} s: {str(result)[:200]}")

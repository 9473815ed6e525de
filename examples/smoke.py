"""Smoke test of an installed blanket (``make smoke``): not the source tree.

Runs blanket 1.0's quickstart script (relay a lock, cycle a barrier) and
checks the documented order of events.
"""

import sys
import threading
from pathlib import Path

import blanket

installed = Path(blanket.__file__).resolve()
if "site-packages" not in installed.parts:
    sys.exit(f"smoke: blanket was not imported from an installed wheel ({installed})")

scenario = blanket.Scenario(timeout=10)
lock = scenario.Lock()
barrier = scenario.Barrier(3)
events: list[str] = []


def worker(name: str) -> None:
    with lock:
        events.append(f"{name} got the lock")
    barrier.wait()
    events.append(f"{name} is past the barrier")


A, B, C = (threading.Thread(target=worker, args=(name,)) for name in "ABC")
with scenario:
    for thread in (C, A, B):
        thread.start()
    list(scenario.api(lock).relay(B, A, C))
    scenario.api(lock).unblock(lock.release, C)
    with scenario.api(barrier).cycle(C, A, B):
        pass
for thread in (A, B, C):
    thread.join()

expected = [f"{n} got the lock" for n in "BAC"] + [f"{n} is past the barrier" for n in "CAB"]
if events != expected:
    sys.exit(f"smoke: expected {expected}, got {events}")
gil = getattr(sys, "_is_gil_enabled", lambda: True)()
print(f"smoke: python {sys.version.split()[0]} (GIL {'on' if gil else 'off'}), "
      f"blanket {blanket.__version__} from {installed.parent}: OK")

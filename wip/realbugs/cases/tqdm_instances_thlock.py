"""tqdm #754 as tqdm_instances, with ``tqdm.set_lock(threading.RLock())``
(public API) so that tqdm's write lock is a threading lock only: by default
it also holds a ``multiprocessing.RLock`` (a SemLock), which blanket does
not schedule."""
import threading

import tqdm_instances
from tqdm import tqdm

from realbugs_variant import Variant, everywhere  # noqa: F401

BUG = tqdm_instances.BUG + " (+ tqdm.set_lock(threading.RLock()))"
VARIANTS = tqdm_instances.VARIANTS
LIB_FILE = tqdm_instances.LIB_FILE


def setup(scenario):
    tqdm.set_lock(threading.RLock())
    return tqdm_instances.setup(scenario)

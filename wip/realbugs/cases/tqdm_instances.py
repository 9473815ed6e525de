"""tqdm: a disabled bar and another bar are made at once.

https://github.com/tqdm/tqdm/pull/754 ("Fix tqdm._instances race and lock
assignments to tqdm class variables", superseding #700, for #481): up to
4.32.1 a ``tqdm(disable=True)`` computes its position with
``_get_free_pos``, which iterates the class's WeakSet ``_instances``, without
``tqdm._lock``, while another thread's ``tqdm()`` adds itself to the set (in
``__new__``, under the lock): "RuntimeError: Set changed size during
iteration". 4.32.2 takes the lock there.
"""
import gc
import io

import tqdm as _tqdm
from tqdm import tqdm

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/tqdm/tqdm/pull/754 (issue #481; released in 4.32.2)"
VARIANTS = [Variant("tqdm 4.32.1", "tqdm-4.32.1", everywhere(True)),
            Variant("tqdm 4.32.2", "tqdm-4.32.2", everywhere(False))]


def LIB_FILE():
    return _tqdm.__file__


def setup(scenario):
    tqdm.monitor_interval = 0  # no monitor thread (documented knob)
    gc.collect()  # bars an earlier run left in the class's WeakSet of instances go
    out = io.StringIO()
    done = []

    def disabled():
        bar = tqdm(range(3), disable=True)
        done.append(sum(bar))

    def shown():
        bar = tqdm(total=3, file=out)
        bar.update(3)
        bar.close()
        done.append(3)

    scenario.thread(disabled)
    scenario.thread(shown)

    def both_done():
        assert sorted(done) == [3, 3], done
    return both_done

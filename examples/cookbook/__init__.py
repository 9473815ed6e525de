"""The cookbook: real concurrency bugs, each caught by a blanket test.

One package per bug. ``buggy.py`` holds the code with the bug, ``fixed.py``
the same code fixed, and ``test_*.py`` a :class:`blanket.ScenarioTestCase`
that forces the interleaving which breaks the buggy code (on every run) and
runs the same script against the fixed code, which passes it (going on
where the fix lets the threads go further).

Run them with ``python -m unittest discover -s examples/cookbook -t examples``
(``make cookbook`` does, on 3.11 and on the free-threaded 3.13t).
"""

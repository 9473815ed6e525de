"""The cookbook: real concurrency bugs, each caught by a blanket test.

One package per bug. ``buggy.py`` holds the code with the bug, ``fixed.py``
the same code fixed, and ``test_*.py`` a :class:`blanket.ScenarioTestCase`
that forces the interleaving which breaks the buggy code (on every run) and
runs the same script against the fixed code, which passes it (going on
where the fix lets the threads go further).

Run them with ``python -m unittest discover -s examples/cookbook -t examples``
(``make cookbook`` does, on 3.11 and on the free-threaded 3.13t).

The data-race recipes (``lost_update``, ``check_then_insert``,
``len_then_pop``, ``publish_before_init``) test with :func:`blanket.explore`
instead of a script: the buggy code is found failing, with the race named by
the ``file:line`` of both sides (:func:`where` finds the line), and the fixed
code is explored exhaustively with no failure and no race.
"""

from pathlib import Path
from types import ModuleType

from blanket.exploration.sites import module_path


def where(module: ModuleType, code: str) -> str:
    """``file:line`` of the first line of *module* that holds *code*: how a
    race found by :func:`blanket.explore` names each of its sides."""
    path = str(module.__file__)
    lines = Path(path).read_text().splitlines()
    number = next(n for n, line in enumerate(lines, 1) if code in line)
    return f"{module_path(path, vars(module))}:{number}"

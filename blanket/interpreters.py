"""The interpreters blanket's searches are tested on, and the refusal to
search on any other.

:func:`~blanket.explore`, :func:`~blanket.check_linearizable` and what
rests on them read and rewrite the running interpreter's bytecode and lean
on its threading internals; they are tested on CPython 3.11, 3.12, 3.13
and the free-threaded 3.13t. On another interpreter (a later CPython,
one before 3.11, another implementation) an answer such as "the whole
space" or "no order runs this line" could be wrong without anything
failing, so they refuse (:class:`~blanket.UnsupportedInterpreter`) instead
of answering. A scenario's script (:class:`~blanket.Scenario`, its
primitives, :class:`~blanket.ScenarioTestCase`'s steps) gives no such
verdict and does not refuse.

The interpreter is read at every check (``sys.implementation``,
``sys.version_info``), not at import.
"""

from __future__ import annotations

import sys
import sysconfig

from .errors import UnsupportedInterpreter

#: The CPython versions (major, minor) the searches are tested on; the
#: free-threaded build of 3.13 too.
TESTED = ((3, 11), (3, 12), (3, 13))


def running() -> str:
    """The interpreter running, as a refusal names it: ``"CPython 3.14.0"``,
    ``"CPython 3.14.0 (free-threaded)"``, ``"pypy (Python 3.10.14)"``."""
    major, minor, micro = sys.version_info[:3]
    version = f"{major}.{minor}.{micro}"
    if sys.implementation.name != "cpython":
        return f"{sys.implementation.name} (Python {version})"
    free = " (free-threaded)" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""
    return f"CPython {version}{free}"


def tested() -> bool:
    """Whether the running interpreter is one the searches are tested on."""
    return sys.implementation.name == "cpython" and tuple(sys.version_info[:2]) in TESTED


def refuse_untested(what: str) -> None:
    """Raise :class:`~blanket.UnsupportedInterpreter` for *what* (the
    function refusing, ``"explore"``) unless the running interpreter is
    one the searches are tested on."""
    if tested():
        return
    versions = ", ".join(f"{major}.{minor}" for major, minor in TESTED)
    raise UnsupportedInterpreter(
        f"{what}: blanket's searches are tested on CPython {versions} and the "
        f"free-threaded 3.13t, not on {running()}: they read and rewrite the "
        f"interpreter's bytecode and lean on its threading internals, and on another "
        f"interpreter what they answer could be wrong; run them on one of those "
        f"(a scenario's script - Scenario, its primitives, ScenarioTestCase's steps - "
        f"does not refuse)")

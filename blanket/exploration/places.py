"""Where in the code: a file named by its module's path (the same wherever
the code is installed), and where a parked thread made its call."""

from __future__ import annotations

import functools
import os
import sys
import threading
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..transaction import Transaction

#: The folder of blanket's own code (the package, this module's parent's).
BLANKET_FOLDER = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
#: The files of code never watched, and never the caller of a call on a
#: primitive (see :func:`parked_at`): blanket's own, and ``threading``'s.
UNWATCHED = (BLANKET_FOLDER, threading.__file__)


@functools.cache
def _module_path(file: str, module: str) -> str:
    parts = file.replace(os.sep, "/").split("/")
    # One part of the path per part of the module's name; a package's own
    # module (its __init__.py) one more, for the package's folder.
    count = module.count(".") + 1 + (parts[-1].startswith("__init__."))
    return "/".join(parts[-count:])


def module_path(file: str, scope: dict[str, Any]) -> str:
    """The end of *file*'s path that its module's name (*scope*'s
    ``__name__``) spans: ``tests/race_bugs.py`` for the module
    ``tests.race_bugs``, the file's name for a top-level module or a script
    (``python -m package.module`` keeps the module's name in ``__spec__``)."""
    module = str(scope.get("__name__", ""))
    spec = scope.get("__spec__")
    if module == "__main__" and spec is not None:
        module = str(spec.name)
    return _module_path(file, module)


def parked_at(tx: Transaction) -> str:
    """Where in the code *tx*'s call was made, its thread parked there (or
    settling the run, in blanket's code): the innermost frame that is
    neither blanket's nor ``threading``'s, as ``file:line`` with the file
    by its module's path; ``""`` when the thread has no such frame.

    It asks for every thread's frame (on a free-threaded build that stops
    the world), so it is for messages, not for every step."""
    frame = parked_frame(tx)
    return "" if frame is None else frame_place(frame)


def frame_place(frame: types.FrameType) -> str:
    """Where *frame* is, as ``file:line`` with the file by its module's path."""
    return f"{module_path(frame.f_code.co_filename, frame.f_globals)}:{frame.f_lineno}"


def parked_frame(tx: Transaction) -> types.FrameType | None:
    """The frame of the code that made *tx*'s call (see :func:`parked_at`)."""
    frame = sys._current_frames().get(tx.thread.ident or -1)
    while frame is not None and frame.f_code.co_filename.startswith(UNWATCHED):
        frame = frame.f_back
    return frame

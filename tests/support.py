"""Helpers shared by the test modules."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager

try:
    from typeguard import suppress_type_checks
except ImportError:  # pragma: no cover - the suite run without its dev tools
    suppress_type_checks = contextlib.nullcontext

#: Tests of blanket's own checks of bad input pass values its annotations
#: forbid; under ``make test`` typeguard would reject them first. Inside
#: ``unchecked()`` blanket's own error is what the test sees.
unchecked: Callable[[], AbstractContextManager[object]] = suppress_type_checks

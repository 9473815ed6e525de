"""What the cookbook's tests share: worker threads that keep their outcome."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import blanket


class CookbookTestCase(blanket.ScenarioTestCase):
    """A ScenarioTestCase whose workers keep what their call returned or raised.

    A worker that dies of an exception fails a ScenarioTestCase; the
    cookbook's buggy code is expected to raise, so its workers keep the
    exception for the test to check instead.
    """

    def setUp(self) -> None:
        super().setUp()
        self._outcomes: dict[threading.Thread, Any] = {}

    @property
    def outcome(self) -> dict[str, Any]:
        """What each finished worker's call returned or raised, by thread name."""
        return {thread.name: value for thread, value in self._outcomes.items()}

    def worker(self, call: Callable[..., Any], *args: Any) -> threading.Thread:
        """A managed thread ("A", "B", ...) running ``call(*args)``; what the
        call returns or raises ends up in ``self.outcome[name]``."""
        def run() -> None:
            thread = threading.current_thread()
            try:
                self._outcomes[thread] = call(*args)
            except Exception as exc:  # the test checks it
                self._outcomes[thread] = exc
        return self.thread(run)

"""The transaction states: their order, names and groups."""

from __future__ import annotations

import unittest

from blanket import State


class StateOrder(unittest.TestCase):
    """States compare by their place in the lifecycle."""

    def test_lifecycle_order(self) -> None:
        names = [state.name for state in sorted(State, key=lambda s: s.index)]
        self.assertEqual(names, ["BLOCKED", "COMMIT", "WAITING", "STALLED", "RESUMED",
                                 "COMMITTED", "PAUSED", "EXITING", "RETURNED", "RAISED"])
        self.assertEqual(sorted(reversed(list(State))), list(State))

    def test_comparisons(self) -> None:
        self.assertLess(State.BLOCKED, State.COMMIT)
        self.assertLessEqual(State.PAUSED, State.PAUSED)
        self.assertGreater(State.RAISED, State.RETURNED)
        self.assertGreaterEqual(State.WAITING, State.COMMIT)
        self.assertFalse(State.EXITING < State.PAUSED)

    def test_no_order_against_other_types(self) -> None:
        with self.assertRaises(TypeError):
            State.BLOCKED < 1  # noqa: B015
        with self.assertRaises(TypeError):
            State.BLOCKED <= 1  # noqa: B015
        with self.assertRaises(TypeError):
            State.BLOCKED > 1  # noqa: B015
        with self.assertRaises(TypeError):
            State.BLOCKED >= 1  # noqa: B015
        self.assertNotEqual(State.BLOCKED, 0)

    def test_index_and_repr(self) -> None:
        self.assertEqual(State.BLOCKED.index, 0)
        self.assertEqual(State.RAISED.index, 9)
        self.assertEqual(repr(State.STALLED), "State.STALLED")

    def test_terminal_states(self) -> None:
        self.assertEqual(State.terminal_states, frozenset({State.RETURNED, State.RAISED}))  # type: ignore[attr-defined]

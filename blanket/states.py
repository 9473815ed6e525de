"""The lifecycle states of a transaction, in the order a transaction visits them.

A transaction only ever moves forward through these states; comparing two
states with ``<`` compares their positions in the lifecycle.
"""

from __future__ import annotations

import enum


class State(enum.Enum):
    """A transaction state; members compare by lifecycle position.

    ``BLOCKED``, ``STALLED`` and ``PAUSED`` are the scheduler's parks: a
    transaction in one of them waits until the scheduler lets it go.
    ``WAITING`` is a park too, but inside the real primitive, so only the
    primitive (a release, a notify, a timeout) ends it.
    """

    #: The scheduler block: every transaction starts here, before the real call.
    BLOCKED = 0
    #: A timeout-bearing call, its timeout decided, about to make the real call.
    COMMIT = 1
    #: Asleep inside the real primitive; not the scheduler's to release.
    WAITING = 2
    #: The scheduler stall: woken inside the real primitive, not yet allowed
    #: to re-acquire (``Condition.wait``).
    STALLED = 3
    #: Back from ``WAITING`` or ``STALLED``, in flight again.
    RESUMED = 4
    #: The real call has returned or raised.
    COMMITTED = 5
    #: The scheduler pause, after the real call, when a pause was asked for.
    PAUSED = 6
    #: On the way out of the call.
    EXITING = 7
    #: Terminal: the call returned.
    RETURNED = 8
    #: Terminal: the call raised.
    RAISED = 9

    @property
    def index(self) -> int:
        """The position of this state in the lifecycle (``BLOCKED`` is 0)."""
        return int(self.value)

    # Each comparison reads _value_ directly: the schedulers' waits compare
    # states on every wake, and ``value`` is a slower descriptor.
    def __lt__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return self._value_ < other._value_

    def __le__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return self._value_ <= other._value_

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return self._value_ > other._value_

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return self._value_ >= other._value_

    def __repr__(self) -> str:
        return f"State.{self.name}"


#: The states a finished transaction is in.
TERMINAL_STATES = frozenset({State.RETURNED, State.RAISED})

State.terminal_states = TERMINAL_STATES  # type: ignore[attr-defined]

"""Spin loops in a run: a thread that parks again at a read of shared
state it has read :data:`SPIN_AFTER` times already, with nothing written and
no call on a primitive let go since (by any thread), is *spinning*: letting it go again changes
nothing, and a chooser that always lets the same thread go on (the
depth-first search does, to spare preemptions) would let it spin for ever.

The run withholds a spinning thread's read while another thread can go (a
fair choice: the thread holding what it waits for gets to run), and gives
it back at the next write or call of another thread. "The same" is the
same object's same attribute or key, read at the same place: a loop over a
dict's keys reads other state each turn. When only spinning threads are
left, they are let go anyway, :data:`SPIN_TURNS` times more at most (a loop
that tries a few times gets out); then nothing can change what they read:
the run is a livelock, reported as such (:meth:`Spins.report`), with where
each one spins and whose write it waits for, and its schedule ends where
only they were left.

A thread can only be withheld where it parks: at the sites of data races
found so far. One spinning elsewhere (the first run, before any race is
known) runs on while the others wait for it to settle, and the race that
would make its reads steps is never met: the thread it waits for is parked.
So while the scheduler waits, the run looks at the threads running
(:class:`FreeSpins`): one whose last :data:`SPIN_READS` accesses are all
reads spins, and the sites of those reads park from then on (the search
starts again with them, as with the sites of a new race).

Withholding is a reduction the search must own up to: a spin loop whose
turns do more than read (a count of tries, ``for _ in range(3)``) would
also run in orders where it spins on before the other threads go. Each
place a thread was withheld at is noted (:attr:`Spins.noted`), and the
search says so in its verdict.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from .. import progress
from .places import parked_at

if TYPE_CHECKING:  # pragma: no cover
    from ..core import ScenarioCore
    from ..transaction import Transaction
    from .sites import Site
    from .watch import Watch

#: How many accesses in a row, all reads, a thread running where it does not
#: park makes between two looks (see :class:`FreeSpins`) before it is taken
#: to spin. (Recording, a thread makes millions a second.)
SPIN_READS = 2000


#: How many times a thread reads the same again, nothing changed, before
#: it is taken to spin. Nothing tells a spin from a loop whose progress is in
#: its local variables (``for _ in range(4)``), or from a method called
#: twice: withholding such a thread leaves out the orders where another one
#: changes what it reads in between, and the verdict is not the whole space.
#: Loops of up to this many turns are searched whole.
SPIN_AFTER = 8


#: How many times in a row a thread may read the same again, nothing
#: changed, once only spinning threads are left, before the run calls it a
#: livelock: a loop that tries a few times and gives up gets out first.
SPIN_TURNS = 64


class Spins:
    """What one run's threads read since the last change, and who wrote last."""

    def __init__(self, watch: Watch) -> None:
        self._watch = watch
        #: How many steps that may change state (a write, a call) were let go.
        self.changes = 0
        # Each thread's reads since the last change, with the count of
        # changes they were made after, and how many were read again.
        self._reads: dict[int, tuple[int, set[tuple[object, ...]], list[int]]] = {}
        # The last write let go of each piece of state: (thread name, where).
        self._writers: dict[object, tuple[str, str]] = {}
        #: The threads withheld at the last look, by number: their read.
        self.withheld: dict[int, Transaction] = {}
        # How long each thread's record was when its last read was let go.
        self._marks: dict[threading.Thread, int] = {}
        #: Each place a thread was withheld at: what it did there (see :meth:`_shown`).
        self.noted: dict[str, str] = {}
        self._shown_reads: set[tuple[object, ...]] = set()  # those noted
        #: The number of steps taken when only spinning threads were left,
        #: and they were let go anyway (see :meth:`let_spin`), or None.
        self.forced_from: int | None = None

    def _read(self, tx: Transaction) -> tuple[object, ...] | None:
        """What *tx* reads, if letting it go changes nothing: for a parked
        read of shared state, what, where, and exactly what (the object and
        the name or key); for a look at a primitive or a try that fails
        (:func:`blanket.progress.looks_only`), the primitive and the call.
        Else None."""
        spec = tx.spec
        if spec.kind == "Memory":
            if spec.name != "read":
                return None
            memory: Any = tx.primitive
            reaching = self._watch.reaching
            return (memory._name, memory.where,
                    reaching[tx.thread] if tx.thread in reaching else None)
        if not progress.looks_only(tx):
            return None
        return (id(tx.primitive), spec.name, tx.args)

    @staticmethod
    def _shown(tx: Transaction) -> tuple[str, str]:
        """What the withheld *tx* does again ("reading x.flag again with
        nothing written since"), and where, as messages say them."""
        primitive: Any = tx.primitive
        if tx.spec.kind == "Memory":
            return (f"reading {primitive._name} again with nothing written since",
                    primitive.where)
        return (f"calling {progress.name_of(primitive)}.{tx.spec.name}() again with "
                "nothing changed since", parked_at(tx))

    def _record(self, tx: Transaction) -> list[Any]:
        """Every access *tx*'s thread made (see :class:`~blanket.exploration.watch.Watch`)."""
        return next((record for thread, record in self._watch.records
                     if thread is tx.thread), [])

    def _wrote(self, tx: Transaction, record: list[Any]) -> bool:
        """Whether *tx*'s thread, whose accesses are *record*, wrote anything
        since its last read let go: a write that does not park (a
        thread-local's, say) changes what it reads next too."""
        return any(record[self._marks.get(tx.thread, 0) + 3::5])  # (five items an access)

    def spinning(self, thread: int, tx: Transaction) -> bool:
        """Whether *thread*, parked at *tx*, spins (see the module): then it
        is withheld until something changes."""
        read = self._read(tx)
        reads = self._reads[thread] if thread in self._reads else None
        if (read is None or reads is None or reads[0] != self.changes or read not in reads[1]
                or reads[2][0] < SPIN_AFTER or self._wrote(tx, self._record(tx))):
            return False
        self.withheld[thread] = tx
        if read not in self._shown_reads:  # (parked_at asks for every thread's frame)
            self._shown_reads.add(read)
            self.noted.setdefault(*self._shown(tx)[::-1])
        return True

    def let_spin(self, depth: int) -> bool:
        """Only the withheld threads are left: whether to let them go
        anyway (one of them read the same again fewer than
        :data:`SPIN_TURNS` times), *depth* steps taken so far."""
        if not any(self._reads[thread][2][0] < SPIN_TURNS for thread in self.withheld):
            return False
        if self.forced_from is None:
            self.forced_from = depth
        return True

    def took(self, thread: int, tx: Transaction) -> None:
        """*thread*'s parked call *tx* is let go."""
        read = self._read(tx)
        if read is not None:
            reads = self._reads[thread] if thread in self._reads else None
            record = self._record(tx)
            if reads is None or reads[0] != self.changes or self._wrote(tx, record):
                reads = self._reads[thread] = (self.changes, set(), [0])
            elif read in reads[1]:
                reads[2][0] += 1
            reads[1].add(read)
            self._marks[tx.thread] = len(record)
            return
        self.changes += 1
        self.forced_from = None
        primitive: Any = tx.primitive
        if tx.spec.kind == "Memory":
            self._writers[primitive._name] = (tx.thread.name, primitive.where)
        else:  # (named as a report names it only when it does: see report)
            self._writers[id(primitive)] = (tx.thread.name, "")

    def report(self) -> str:
        """The livelock of the threads withheld at the last look (none of
        them can change what the others read): each, where it spins, and
        the last write of what it reads."""
        said = []
        for tx in self.withheld.values():
            doing, where = self._shown(tx)
            primitive: Any = tx.primitive
            if tx.spec.kind == "Memory":
                what = primitive._name
                writer = self._writers.get(what)
                last = "written" if writer is None else f"written by {writer[0]} at {writer[1]}"
            else:
                what = progress.name_of(primitive)
                writer = self._writers.get(id(primitive))
                last = "changed" if writer is None else f"changed by {writer[0]}"
            last = (f"not {last} by any thread since it began" if writer is None
                    else f"last {last}")
            said.append(f"{tx.thread.name} spins at {where}, {doing} ({what} {last})")
        return (f"livelock: {'; '.join(said)}; no other thread can go to change it "
                f"({SPIN_TURNS} turns more changed nothing)")


class FreeSpins:
    """The threads of one run spinning where they do not park (see the
    module): their reads' sites made to park."""

    def __init__(self, core: ScenarioCore, watch: Watch) -> None:
        self._core = core
        self._watch = watch
        # How long each running thread's record was at the last look.
        self._lengths: dict[int, int] = {}
        #: The sites made to park, the search's to keep.
        self.sites: set[Site] = set()

    def look(self) -> None:
        """Look at the threads running (lock held)."""
        core = self._core
        for thread, record in self._watch.records:
            if thread in core.finished or core.chain(thread):
                continue
            length, before = len(record), self._lengths.get(id(record))
            self._lengths[id(record)] = length
            if before is None or length - before < 5 * SPIN_READS:
                continue
            recent = record[length - 5 * SPIN_READS:length]  # (five items an access)
            if any(recent[3::5]):
                continue  # it wrote: no spin
            for site in set(recent[0::5]) - self.sites:
                self.sites.add(site)
                self._watch.park_at(site)

"""blanket: deterministic tests of multithreaded code.

Create primitives on a :class:`Scenario` (``scenario.Lock()``, ...), run the
code under test in threads, and inside ``with scenario:`` decide the order in
which their calls on those primitives go through.
"""

from .api import (
                  BarrierAPI,
                  BoundedSemaphoreAPI,
                  ConditionAPI,
                  EventAPI,
                  LockAPI,
                  PrimitiveAPI,
                  RLockAPI,
                  SemaphoreAPI,
)
from .audit.run import audit
from .cycle import Cycle
from .driving import Chain, Dispatch, Driver
from .errors import (
                  Abandoned,
                  CompetingDriversError,
                  DeadlockError,
                  LinearizabilityError,
                  SchedulerError,
                  StallError,
                  ThreadOrderingError,
                  UnsupportedInterpreter,
                  WorkerError,
)
from .exploration.reached import FileLines, Reach
from .exploration.reporting import Progress
from .exploration.result import Exploration, Failure, Step
from .exploration.search import explore
from .inject import Injection, ThreadingView
from .linearizability.check import Linearizability, check_linearizable
from .linearizability.operations import Operation
from .linearizability.report import LinearizabilityFailure
from .linearizability.scenarios import Workload
from .scenario import Scenario
from .signals import (
                  Action,
                  Blocked,
                  Call,
                  Commit,
                  Committed,
                  Exiting,
                  Nested,
                  Not,
                  Parked,
                  Paused,
                  Raised,
                  Reached,
                  Resumed,
                  Returned,
                  Signaled,
                  Stalled,
                  Terminated,
                  TransactionState,
                  Use,
                  Waiting,
)
from .states import State
from .testcase import ScenarioTestCase
from .threads import ManagedThread
from .transaction import TimeoutState, Transaction

#: blanket 1.0's name for the public type of transactions.
TransactionAPI = Transaction

__version__ = "2.0.0.dev0"

__all__ = [
    "Abandoned", "Action", "BarrierAPI", "Blocked", "BoundedSemaphoreAPI", "Call", "Chain",
    "Commit", "Committed", "CompetingDriversError", "ConditionAPI", "Cycle", "DeadlockError",
    "check_linearizable", "Dispatch", "Driver", "EventAPI", "Exiting", "Exploration", "explore",
    "Failure", "FileLines", "Injection", "Linearizability", "LinearizabilityError",
    "LinearizabilityFailure", "LockAPI",
    "ManagedThread", "Nested", "Not", "Operation", "Parked", "Paused", "PrimitiveAPI", "Progress",
    "Raised",
    "Reach", "Reached", "Resumed", "Returned", "RLockAPI", "Scenario", "ScenarioTestCase",
    "SchedulerError", "SemaphoreAPI", "Signaled", "Stalled", "StallError", "State", "Step",
    "Terminated", "ThreadingView", "ThreadOrderingError", "TimeoutState", "Transaction",
    "TransactionAPI", "TransactionState", "UnsupportedInterpreter", "Use", "Waiting",
    "WorkerError", "Workload", "audit",
]

"""Signal tokens and ``scenario.wait``: what signals when, what does not, bad input.

Every test synchronises only through ``scenario.wait`` on blanket items (or a
plain ``threading.Event`` it sets itself). "Does not signal" is shown by
waiting on the token together with one that does signal and checking which
came back, or, where nothing else can signal, by a short explicit bound.
"""

from __future__ import annotations

import threading
import unittest
from collections.abc import Callable

import blanket
from blanket import State

from .support import arrive, keeping, let_go, spawn, unchecked

#: Every scenario's own bound: a bug fails the test instead of hanging it.
BOUND = 5.0
#: The explicit bound of a wait on something that cannot happen.
NEVER = 0.01


def watchers_of(thread: threading.Thread) -> list[threading.Thread]:
    """The helper threads blanket runs to learn when *thread* ends."""
    return [t for t in threading.enumerate() if t.name == f"blanket watcher of {thread.name}"]


class PlainItems(unittest.TestCase):
    """A thread, a transaction, a primitive's method and the scenario as items."""

    def test_thread_signals_while_it_has_a_transaction(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        event = scenario.Event()
        A = spawn(scenario, "A", event.is_set)
        with scenario:
            self.assertEqual(scenario.wait(A), {A})
            tx = arrive(scenario, A)
            let_go(scenario, tx)
            # Once its only call is over A signals no more; only Terminated does.
            self.assertEqual(scenario.wait(A, blanket.Terminated(A)), {blanket.Terminated(A)})

    def test_transaction_signals_once_it_has_finished(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        event = scenario.Event()
        A = spawn(scenario, "A", event.is_set)
        with scenario:
            tx = arrive(scenario, A)
            self.assertEqual(scenario.wait(tx, blanket.Blocked(tx)), {blanket.Blocked(tx)})
            tx.unblock()
            self.assertEqual(scenario.wait(tx), {tx})
            self.assertTrue(tx.done)

    def test_primitive_method_signals_while_some_thread_is_inside_it(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock, other = scenario.Lock(), scenario.Lock()
        A = spawn(scenario, "A", lock.acquire)
        with scenario:
            tx = arrive(scenario, A)
            self.assertEqual(scenario.wait(lock.acquire, lock.release, other.acquire),
                             {lock.acquire})
            let_go(scenario, tx)
            self.assertEqual(scenario.wait(lock.acquire, blanket.Terminated(A)),
                             {blanket.Terminated(A)})

    def test_scenario_signals_while_entered(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        with self.assertRaises(TimeoutError):
            scenario.wait(scenario, timeout=NEVER)
        with scenario:
            self.assertEqual(scenario.wait(scenario), {scenario})
        with self.assertRaises(TimeoutError):
            scenario.wait(scenario, timeout=NEVER)

    def test_wait_returns_every_item_that_signalled(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire)
        with scenario:
            tx = arrive(scenario, A)
            got = scenario.wait(A, lock.acquire, scenario, tx, blanket.Blocked(tx),
                                blanket.Call(A, lock.release), blanket.Terminated(A))
            self.assertEqual(got, {A, lock.acquire, scenario, blanket.Blocked(tx)})


class CallAndUse(unittest.TestCase):
    """Call(thread, method) and Use(thread, primitive), nested calls included."""

    def test_call_signals_while_the_thread_is_in_the_method_either_order(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock, other = scenario.Lock(), scenario.Lock()
        A = spawn(scenario, "A", lock.acquire)
        B = spawn(scenario, "B", other.acquire)
        with scenario:
            tx = arrive(scenario, A)
            arrive(scenario, B)
            self.assertEqual(scenario.wait(blanket.Call(lock.acquire, A)),
                             {blanket.Call(A, lock.acquire)})
            quiet = [blanket.Call(A, lock.release), blanket.Call(B, lock.acquire),
                     blanket.Call(A, other.acquire)]
            self.assertEqual(scenario.wait(*quiet, blanket.Call(A, lock.acquire)),
                             {blanket.Call(A, lock.acquire)})
            let_go(scenario, tx)
            self.assertEqual(scenario.wait(blanket.Call(A, lock.acquire), blanket.Terminated(A)),
                             {blanket.Terminated(A)})

    def test_use_signals_while_the_thread_is_in_any_call_on_the_primitive(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock, other = scenario.Lock(), scenario.Lock()
        errors: list[BaseException] = []
        A = spawn(scenario, "A", keeping(errors, lock.release))  # not held: raises
        with scenario:
            tx = arrive(scenario, A)
            self.assertEqual(scenario.wait(blanket.Use(A, lock), blanket.Use(A, other)),
                             {blanket.Use(A, lock)})
            let_go(scenario, tx)
            self.assertEqual(scenario.wait(blanket.Use(A, lock), blanket.Terminated(A)),
                             {blanket.Terminated(A)})
        self.assertEqual([type(e) for e in errors], [RuntimeError])

    def test_call_and_use_see_the_whole_chain_of_nested_calls(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        cond, event = scenario.Condition(), scenario.Event()
        A = spawn(scenario, "A", cond.wait_for, event.is_set)
        with scenario:
            outer = arrive(scenario, A)
            outer.unblock()
            scenario.wait(blanket.Nested(outer))
            inner = scenario.transaction(A)
            assert inner is not None
            tokens = [blanket.Call(A, cond.wait_for), blanket.Call(A, event.is_set),
                      blanket.Use(A, cond), blanket.Use(A, event)]
            self.assertEqual(scenario.wait(*tokens, blanket.Call(A, cond.wait)), set(tokens))
            scenario.raw(event).set()  # the predicate holds once let go
            let_go(scenario, inner)
            scenario.wait(outer)
        self.assertIs(outer.result, True)


class TerminatedToken(unittest.TestCase):
    """Terminated(thread), for managed threads and for threads the test starts."""

    def test_managed_thread_signals_once_it_has_finished(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        event = scenario.Event()
        A = spawn(scenario, "A", event.is_set)
        with self.assertRaisesRegex(RuntimeError, "needs the scenario .* entered"):
            scenario.wait(blanket.Terminated(A), timeout=NEVER)  # refused at once
        with scenario:
            tx = arrive(scenario, A)
            self.assertEqual(scenario.wait(blanket.Terminated(A), A), {A})
            tx.unblock()
            self.assertEqual(scenario.wait(blanket.Terminated(A)), {blanket.Terminated(A)})
        self.assertFalse(A.is_alive())

    def test_plain_thread_signals_when_it_ends_with_no_thread_to_watch_it(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        go = threading.Event()
        plain = threading.Thread(target=go.wait, args=(BOUND,), name="plain thread 1")
        plain.start()
        try:
            with scenario:
                threads = threading.active_count()
                for _ in range(2):
                    with self.assertRaises(TimeoutError):
                        scenario.wait(blanket.Terminated(plain), timeout=NEVER)
                    self.assertEqual(threading.active_count(), threads)
                go.set()
                self.assertEqual(scenario.wait(blanket.Terminated(plain)),
                                 {blanket.Terminated(plain)})
        finally:
            go.set()
            plain.join(BOUND)
        self.assertFalse(plain.is_alive())
        self.assertEqual(watchers_of(plain), [])

    def test_plain_thread_that_already_ended_signals_at_once(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        plain = threading.Thread(target=lambda: None, name="plain thread 2")
        plain.start()
        plain.join(BOUND)
        with scenario:
            self.assertEqual(scenario.wait(blanket.Terminated(plain)),
                             {blanket.Terminated(plain)})
        self.assertEqual(watchers_of(plain), [])

    def test_plain_thread_not_yet_started_is_refused(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        plain = threading.Thread(target=lambda: None, name="plain thread 3")
        with scenario, self.assertRaisesRegex(ValueError, "'plain thread 3' is not a "
                                              "thread of .* was never started"):
            scenario.wait(blanket.Terminated(plain), timeout=NEVER)
        self.assertEqual(watchers_of(plain), [])


class NotToken(unittest.TestCase):
    """Not(item) signals exactly while its item does not."""

    def test_not_of_a_token_and_of_a_plain_item(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        event = scenario.Event()
        A = spawn(scenario, "A", event.is_set)
        with scenario:
            tx = arrive(scenario, A)
            self.assertEqual(scenario.wait(blanket.Not(A), blanket.Not(blanket.Terminated(A))),
                             {blanket.Not(blanket.Terminated(A))})
            self.assertEqual(scenario.wait(blanket.Not(tx)), {blanket.Not(tx)})
            self.assertEqual(scenario.wait(blanket.Not(blanket.Blocked(tx)), blanket.Blocked(tx)),
                             {blanket.Blocked(tx)})
            let_go(scenario, tx)
            self.assertEqual(scenario.wait(blanket.Not(tx), blanket.Not(blanket.Blocked(tx))),
                             {blanket.Not(blanket.Blocked(tx))})

    def test_not_of_the_scenario(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        self.assertEqual(scenario.wait(blanket.Not(scenario)), {blanket.Not(scenario)})
        with scenario, self.assertRaises(TimeoutError):
            scenario.wait(blanket.Not(scenario), timeout=NEVER)


class NestedAndAction(unittest.TestCase):
    """Nested(tx) while a call runs inside tx; Action(tx) while tx is pushed."""

    def test_nested_signals_while_a_call_runs_inside_the_transaction(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        cond, event = scenario.Condition(), scenario.Event()
        A = spawn(scenario, "A", cond.wait_for, event.is_set)
        with scenario:
            outer = arrive(scenario, A)
            self.assertEqual(scenario.wait(blanket.Nested(outer), blanket.Blocked(outer)),
                             {blanket.Blocked(outer)})
            outer.unblock()
            self.assertEqual(scenario.wait(blanket.Nested(outer)), {blanket.Nested(outer)})
            inner = scenario.transaction(A)
            assert inner is not None
            self.assertIs(inner.parent, outer)
            self.assertEqual(scenario.wait(blanket.Nested(inner), blanket.Blocked(inner)),
                             {blanket.Blocked(inner)})
            scenario.raw(event).set()
            let_go(scenario, inner)
            scenario.wait(outer)
            idle = blanket.Not(blanket.Nested(outer))
            self.assertEqual(scenario.wait(blanket.Nested(outer), idle), {idle})

    def test_action_signals_while_the_barrier_runs_its_action(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        event = scenario.Event()
        barrier = scenario.Barrier(1, action=event.set)
        A = spawn(scenario, "A", barrier.wait)
        with scenario:
            wait_tx = arrive(scenario, A)
            self.assertEqual(scenario.wait(blanket.Action(wait_tx), wait_tx.thread),
                             {wait_tx.thread})
            wait_tx.unblock()
            self.assertEqual(scenario.wait(blanket.Action(wait_tx)), {blanket.Action(wait_tx)})
            set_tx = arrive(scenario, A)  # the action's own call: a fresh root
            self.assertEqual(set_tx.spec.name, "set")
            self.assertIsNone(set_tx.parent)
            self.assertEqual(scenario.wait(blanket.Nested(wait_tx), blanket.Commit(wait_tx)),
                             {blanket.Commit(wait_tx)})
            let_go(scenario, set_tx)
            scenario.wait(wait_tx)
            self.assertEqual(scenario.wait(blanket.Action(wait_tx), wait_tx),
                             {wait_tx})
        self.assertTrue(scenario.raw(event).is_set())


class Lifecycle:
    """Drives the threads of a Condition scenario through every observable state.

    W waits on the condition; N notifies it; W's wake-up is held at STALLED,
    and its lock re-acquire (a nested call) waits inside the real lock while N
    still holds it, which keeps W's wait at RESUMED.
    """

    def __init__(self) -> None:
        self.scenario = scenario = blanket.Scenario(timeout=BOUND)
        self.cond = scenario.Condition()
        self.W = spawn(scenario, "W", self.waiter)
        self.N = spawn(scenario, "N", self.notifier)

    def waiter(self) -> None:
        with self.cond:
            self.cond.wait()

    def notifier(self) -> None:
        with self.cond:
            self.cond.notify()

    def step(self, thread: threading.Thread, name: str) -> blanket.Transaction:
        """Let *thread*'s call of *name* on the condition go from BLOCKED."""
        api = self.scenario.api(self.cond)
        tx: blanket.Transaction = api.unblock(getattr(self.cond, name), thread)[0]
        return tx


#: The token class of each state.
STATE_TOKENS: dict[State, Callable[[blanket.Transaction], blanket.TransactionState]] = {
    State.BLOCKED: blanket.Blocked, State.COMMIT: blanket.Commit,
    State.WAITING: blanket.Waiting, State.STALLED: blanket.Stalled,
    State.RESUMED: blanket.Resumed, State.COMMITTED: blanket.Committed,
    State.PAUSED: blanket.Paused, State.EXITING: blanket.Exiting,
    State.RETURNED: blanket.Returned, State.RAISED: blanket.Raised,
}


class ReachedAndStateTokens(unittest.TestCase):
    """Reached(tx, state) and the per-state tokens, Blocked to Raised."""

    def assert_only(self, scenario: blanket.Scenario, tx: blanket.Transaction,
                    state: State) -> None:
        """Of all the per-state tokens for *tx*, exactly *state*'s signals."""
        tokens = {s: cls(tx) for s, cls in STATE_TOKENS.items()}
        self.assertEqual(scenario.wait(*tokens.values()), {tokens[state]})
        self.assertEqual(scenario.wait(blanket.TransactionState(tx, state)),
                         {blanket.TransactionState(tx, state)})

    def assert_reached(self, scenario: blanket.Scenario, tx: blanket.Transaction,
                       state: State) -> None:
        """Reached signals for *state* and every earlier state, not for later ones."""
        tokens = [blanket.Reached(tx, s) for s in State]
        expected = {blanket.Reached(tx, s) for s in State if s <= state}
        self.assertEqual(scenario.wait(*tokens), expected)

    def test_blocked_paused_and_returned(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        event = scenario.Event()
        A = spawn(scenario, "A", event.is_set)
        with scenario:
            tx = arrive(scenario, A)
            self.assert_only(scenario, tx, State.BLOCKED)
            self.assert_reached(scenario, tx, State.BLOCKED)
            tx.pause = True
            tx.unblock()
            scenario.wait(blanket.Paused(tx))
            self.assert_only(scenario, tx, State.PAUSED)
            self.assert_reached(scenario, tx, State.PAUSED)
            tx.unpause()
            scenario.wait(tx)
            self.assert_only(scenario, tx, State.RETURNED)
            self.assert_reached(scenario, tx, State.RETURNED)
        # COMMITTED and EXITING were passed through on the way.
        self.assertEqual([s for _, s in tx.log], [State.BLOCKED, State.COMMITTED, State.PAUSED,
                                                  State.EXITING, State.RETURNED])

    def test_commit_while_a_nested_call_runs(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        cond, event = scenario.Condition(), scenario.Event()
        A = spawn(scenario, "A", cond.wait_for, event.is_set)
        with scenario:
            outer = arrive(scenario, A)
            outer.unblock()
            scenario.wait(blanket.Nested(outer))
            self.assert_only(scenario, outer, State.COMMIT)
            self.assert_reached(scenario, outer, State.COMMIT)
            inner = scenario.transaction(A)
            assert inner is not None
            scenario.raw(event).set()
            let_go(scenario, inner)
            scenario.wait(outer)

    def test_waiting_stalled_resumed_of_a_condition_wait(self) -> None:
        flow = Lifecycle()
        scenario, W, N = flow.scenario, flow.W, flow.N
        with scenario:
            flow.step(W, "acquire")
            wait_tx = flow.step(W, "wait")
            scenario.wait(blanket.Waiting(wait_tx))
            self.assert_only(scenario, wait_tx, State.WAITING)
            self.assert_reached(scenario, wait_tx, State.WAITING)
            flow.step(N, "acquire")
            flow.step(N, "notify")
            scenario.wait(blanket.Stalled(wait_tx))
            self.assert_only(scenario, wait_tx, State.STALLED)
            self.assert_reached(scenario, wait_tx, State.STALLED)
            wait_tx.unstall()
            # N still holds the lock: the nested re-acquire waits inside it.
            scenario.wait(blanket.Nested(wait_tx))
            reacquire = scenario.transaction(W)
            assert reacquire is not None and reacquire is not wait_tx
            scenario.wait(blanket.Waiting(reacquire))
            self.assert_only(scenario, wait_tx, State.RESUMED)
            self.assert_reached(scenario, wait_tx, State.RESUMED)
            flow.step(N, "release")
            scenario.wait(wait_tx)
            flow.step(W, "release")
        self.assertIs(wait_tx.result, True)
        self.assertEqual(reacquire.parent, wait_tx)

    def test_raised(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        errors: list[BaseException] = []
        A = spawn(scenario, "A", keeping(errors, lock.release))
        with scenario:
            tx = arrive(scenario, A)
            let_go(scenario, tx)
            self.assert_only(scenario, tx, State.RAISED)
            self.assert_reached(scenario, tx, State.RAISED)
        self.assertIs(tx.result, errors[0])

    def test_committed_and_exiting_are_passed_under_the_scenario_lock(self) -> None:
        # The worker holds the scenario's lock from COMMITTED to PAUSED or to
        # the end, so the scheduler never sees a call in COMMITTED or EXITING.
        scenario = blanket.Scenario(timeout=BOUND)
        event = scenario.Event()
        A = spawn(scenario, "A", event.is_set)
        with scenario:
            tx = arrive(scenario, A)
            tx.pause = True
            tx.unblock()
            scenario.wait(blanket.Paused(tx))
            with self.assertRaises(TimeoutError):
                scenario.wait(blanket.Committed(tx), blanket.Exiting(tx), timeout=NEVER)
            tx.unpause()
            scenario.wait(tx)
            with self.assertRaises(TimeoutError):
                scenario.wait(blanket.Committed(tx), blanket.Exiting(tx), timeout=NEVER)
        self.assertIn(State.COMMITTED, [s for _, s in tx.log])
        self.assertIn(State.EXITING, [s for _, s in tx.log])


class ParkedToken(unittest.TestCase):
    """Parked(thread): the call is at a scheduler park, or the thread ended."""

    def test_parked_at_blocked_not_while_waiting_and_after_termination(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire)
        B = spawn(scenario, "B", lock.acquire)
        with self.assertRaisesRegex(RuntimeError, "needs the scenario .* entered"):
            scenario.wait(blanket.Parked(A), timeout=NEVER)  # not entered: refused
        with scenario:
            a = arrive(scenario, A)
            b = arrive(scenario, B)
            self.assertEqual(scenario.wait(blanket.Parked(A)), {blanket.Parked(A)})
            let_go(scenario, a)  # A holds the lock now
            b.unblock()
            scenario.wait(blanket.Waiting(b))
            self.assertEqual(scenario.wait(blanket.Parked(B), blanket.Waiting(b)),
                             {blanket.Waiting(b)})
            self.assertEqual(scenario.wait(blanket.Parked(A)), {blanket.Parked(A)})
            scenario.raw(lock).release()  # on A's behalf: B gets it
            scenario.wait(b)
        self.assertIs(b.result, True)


class TokenIdentity(unittest.TestCase):
    """Tokens are equal over the same type and arguments; hash and repr agree."""

    def test_equal_tokens_hash_alike_and_unequal_ones_differ(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire)
        B = spawn(scenario, "B", lock.acquire)
        pairs = [
            (blanket.Call(A, lock.acquire), blanket.Call(lock.acquire, A)),
            (blanket.Use(A, lock), blanket.Use(A, lock)),
            (blanket.Terminated(A), blanket.Terminated(A)),
            (blanket.Not(A), blanket.Not(A)),
            (blanket.Not(blanket.Terminated(A)), blanket.Not(blanket.Terminated(A))),
            (blanket.Parked(A), blanket.Parked(A)),
        ]
        for left, right in pairs:
            with self.subTest(token=left):
                self.assertEqual(left, right)
                self.assertEqual(hash(left), hash(right))
        self.assertEqual(len({left for left, _ in pairs} | {right for _, right in pairs}),
                         len(pairs))
        self.assertNotEqual(blanket.Call(A, lock.acquire), blanket.Call(B, lock.acquire))
        self.assertNotEqual(blanket.Call(A, lock.acquire), blanket.Call(A, lock.release))
        self.assertNotEqual(blanket.Terminated(A), blanket.Parked(A))
        self.assertNotEqual(blanket.Terminated(A), A)
        self.assertFalse(blanket.Terminated(A) == "Terminated('A')")

    def test_transaction_tokens_identity_and_repr(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire)
        with scenario:
            tx = arrive(scenario, A)
            self.assertEqual(blanket.Paused(tx), blanket.Paused(tx))
            self.assertEqual(hash(blanket.Paused(tx)), hash(blanket.Paused(tx)))
            self.assertNotEqual(blanket.Paused(tx), blanket.Blocked(tx))
            self.assertEqual(blanket.Reached(tx, State.PAUSED), blanket.Reached(tx, State.PAUSED))
            self.assertNotEqual(blanket.Reached(tx, State.PAUSED),
                                blanket.Reached(tx, State.BLOCKED))
            self.assertEqual(blanket.Nested(tx), blanket.Nested(tx))
            self.assertNotEqual(blanket.Nested(tx), blanket.Action(tx))
            self.assertEqual(repr(blanket.Paused(tx)), f"Paused({tx!r})")
            self.assertEqual(repr(blanket.Reached(tx, State.PAUSED)),
                             f"Reached({tx!r}, State.PAUSED)")
            self.assertEqual(repr(blanket.Nested(tx)), f"Nested({tx!r})")
            self.assertEqual(repr(blanket.Action(tx)), f"Action({tx!r})")
            tx.unblock()

    def test_repr_names_threads_and_methods(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire)
        self.assertEqual(repr(blanket.Call(lock.acquire, A)), "Call('A', Lock.acquire)")
        self.assertEqual(repr(blanket.Terminated(A)), "Terminated('A')")
        self.assertEqual(repr(blanket.Not(blanket.Terminated(A))), "Not(Terminated('A'))")
        self.assertEqual(repr(blanket.Use(A, lock)), f"Use('A', Lock 1 0X{id(lock):X})")
        self.assertEqual(repr(blanket.Parked(A)), "Parked('A')")

    def test_state_token_classes(self) -> None:
        self.assertEqual(list(STATE_TOKENS), list(State))
        for state, cls in STATE_TOKENS.items():
            with self.subTest(cls=cls.__name__):
                assert isinstance(cls, type)
                self.assertEqual(cls.__name__, state.name.capitalize())
                self.assertTrue(issubclass(cls, blanket.TransactionState))
                self.assertTrue(issubclass(cls, blanket.Signaled))
                self.assertEqual(cls.__module__, "blanket.signals")
                self.assertIn(cls.__name__.upper(), cls.__doc__ or "")

    def test_generic_state_token_repr_names_the_state(self) -> None:
        # Two unequal tokens must not print alike: a StallError or
        # TimeoutError message lists the tokens it waited for by repr.
        scenario = blanket.Scenario(timeout=BOUND)
        event = scenario.Event()
        A = spawn(scenario, "A", event.is_set)
        with scenario:
            tx = arrive(scenario, A)
            paused = blanket.TransactionState(tx, State.PAUSED)
            blocked = blanket.TransactionState(tx, State.BLOCKED)
            self.assertNotEqual(paused, blocked)
            tx.unblock()
        self.assertNotEqual(repr(paused), repr(blocked))
        self.assertIn("PAUSED", repr(paused))


class BadInput(unittest.TestCase):
    """Tokens and wait() reject what they cannot wait for with TypeError."""

    def setUp(self) -> None:
        self.scenario = blanket.Scenario(timeout=BOUND)
        self.lock = self.scenario.Lock()
        self.A = spawn(self.scenario, "A", self.lock.acquire)

    def test_token_arguments_are_checked(self) -> None:
        lock, A = self.lock, self.A
        with self.scenario:
            tx = arrive(self.scenario, A)
            bad: list[tuple[str, Callable[[], object], str]] = [
                ("Call non-thread", lambda: blanket.Call(42, lock.acquire), "threading.Thread"),
                ("Call two threads", lambda: blanket.Call(A, A), "method of a blanket primitive"),
                ("Call threading method",
                 lambda: blanket.Call(A, threading.Lock().acquire), "blanket primitive"),
                ("Call foreign method", lambda: blanket.Call(A, self.scenario.report),
                 "blanket primitive"),
                ("Use without primitive", lambda: blanket.Use(A, threading.Lock()),
                 "blanket primitive"),
                ("Use non-thread", lambda: blanket.Use(42, lock), "threading.Thread"),  # type: ignore[arg-type]
                ("Terminated non-thread", lambda: blanket.Terminated(tx), "threading.Thread"),  # type: ignore[arg-type]
                ("Parked non-thread", lambda: blanket.Parked(lock), "threading.Thread"),  # type: ignore[arg-type]
                ("Not of nothing", lambda: blanket.Not(42), "cannot wait for 42"),
                ("Nested non-transaction", lambda: blanket.Nested(A), "transaction"),  # type: ignore[arg-type]
                ("Action non-transaction", lambda: blanket.Action(A), "transaction"),  # type: ignore[arg-type]
                ("Reached non-transaction", lambda: blanket.Reached(A, State.BLOCKED),  # type: ignore[arg-type]
                 "transaction"),
                ("Reached non-State", lambda: blanket.Reached(tx, 0), "State"),  # type: ignore[arg-type]
                ("Reached state name", lambda: blanket.Reached(tx, "PAUSED"), "State"),  # type: ignore[arg-type]
                ("TransactionState non-State",
                 lambda: blanket.TransactionState(tx, "PAUSED"), "State"),  # type: ignore[arg-type]
                ("TransactionState non-transaction",
                 lambda: blanket.TransactionState(A, State.PAUSED), "transaction"),  # type: ignore[arg-type]
                ("Paused non-transaction", lambda: blanket.Paused(A), "Paused needs"),  # type: ignore[arg-type]
                ("Raised non-transaction", lambda: blanket.Raised(None), "Raised needs"),  # type: ignore[arg-type]
            ]
            for label, make, words in bad:
                with self.subTest(label), unchecked(), self.assertRaises(TypeError) as caught:
                    make()
                self.assertIn(words, str(caught.exception), label)
            tx.unblock()

    def test_wait_rejects_bad_items_and_timeouts(self) -> None:
        scenario = self.scenario
        with scenario:
            bad_items: list[object] = [42, None, "A", threading.Lock().acquire,
                                       scenario.report, threading.Lock()]
            for item in bad_items:
                with self.subTest(item=item), self.assertRaises(TypeError) as caught:
                    scenario.wait(item)
                self.assertIn("cannot wait for", str(caught.exception))
            with self.assertRaisesRegex(TypeError, "at least one item"):
                scenario.wait()
            for timeout in ("1", True, [1]):
                with self.subTest(timeout=timeout), unchecked(), \
                        self.assertRaisesRegex(TypeError, "timeout"):
                    scenario.wait(scenario, timeout=timeout)  # type: ignore[arg-type]
            tx = arrive(scenario, self.A)
            tx.unblock()
        self.assertEqual(tx.result, True)

    def test_a_primitive_is_not_an_item(self) -> None:
        # A primitive is none of the items wait() documents; the likely intent
        # ("until someone uses the lock") is Use or a bound method.
        scenario, lock = self.scenario, self.lock
        with scenario:
            with self.assertRaises(TypeError):
                scenario.wait(lock, timeout=NEVER)
            tx = arrive(scenario, self.A)
            tx.unblock()


class Bounds(unittest.TestCase):
    """An explicit timeout raises TimeoutError; the scenario's bound a StallError."""

    def test_explicit_timeout_raises_plain_timeout_error(self) -> None:
        scenario = blanket.Scenario("bounded", timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire)
        with scenario:
            tx = arrive(scenario, A)
            with self.assertRaises(TimeoutError) as caught:
                scenario.wait(blanket.Returned(tx), blanket.Terminated(A), timeout=NEVER)
            self.assertNotIsInstance(caught.exception, blanket.StallError)
            message = str(caught.exception)
            self.assertIn("'bounded'", message)
            self.assertIn("Terminated('A')", message)
            self.assertIn(f"within {NEVER} s", message)
            with self.assertRaises(TimeoutError):
                scenario.wait(blanket.Returned(tx), timeout=0)
            tx.unblock()

    def test_scenario_bound_raises_stall_error_with_a_report(self) -> None:
        scenario = blanket.Scenario("stalled", timeout=BOUND)
        lock, event = scenario.Lock(), scenario.Event()
        A = spawn(scenario, "A", lock.acquire)
        B = spawn(scenario, "B", event.is_set)
        with scenario:
            a = arrive(scenario, A)
            arrive(scenario, B)
            scenario.timeout = 0.2  # only the wait that cannot succeed runs into it
            with self.assertRaises(blanket.StallError) as caught:
                scenario.wait(blanket.Returned(a))
            scenario.timeout = BOUND
            a.unblock()
        error = caught.exception
        self.assertIsInstance(error, TimeoutError)
        self.assertIn("scenario 'stalled' stalled", str(error))
        self.assertIn("within 0.2 s", str(error))
        self.assertIn("'A': Lock.acquire BLOCKED on Lock 1 0X", error.report)
        self.assertIn("'B': Event.is_set BLOCKED on Event 1 0X", error.report)
        self.assertIn("unblock() lets it go", error.report)
        self.assertIn(error.report, str(error))


if __name__ == "__main__":  # pragma: no cover
    unittest.main()

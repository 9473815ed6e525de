"""Threads outside the scenario that take part in its runs (blanket.outsiders):
an actor's thread the setup starts, replying through queues the managed
threads made. Before, the scheduler did not wait for such a thread: woken
by a step, it ran toward its reply while the managed threads were taken
for stuck, and correct code was reported deadlocked."""

from __future__ import annotations

import queue
import threading
import types
import unittest
import unittest.mock
from collections.abc import Callable
from typing import Any

import blanket
from blanket import Abandoned, Scenario, progress, quiet, sleepers
from blanket.exploration import realprims
from blanket.exploration.realprims import Twins
from blanket.exploration.run import run_once
from blanket.exploration.unseen import Unseen
from blanket.outsiders import asleep
from blanket.outsiders import waiters as outsiders_waiters

from .support import arrive, quiet_thread_errors, unchecked

BOUND = 5.0  # every wait of these tests ends well within it


class Actor:
    """A thread of its own that answers each message put in its inbox, as
    an actor library's (pykka's) does; *answers* bounds how many it
    answers (a bug: the others wait for ever)."""

    def __init__(self, answers: int = 1_000) -> None:
        self.inbox: queue.Queue[queue.Queue[int] | None] = queue.Queue()
        self.answers = answers
        self.thread = threading.Thread(target=self._loop, daemon=True, name="actor")
        self.thread.start()

    def _loop(self) -> None:
        answered = 0
        while (reply := self.inbox.get()) is not None:
            answered += 1
            if answered <= self.answers:
                reply.put(answered)

    def ask(self) -> int:
        reply: queue.Queue[int] = queue.Queue()
        self.inbox.put(reply)
        return reply.get()

    def stop(self) -> None:
        self.inbox.put(None)
        self.thread.join(BOUND)


def two_askers(answers: int, actors: list[Actor]) -> Callable[[Scenario], Callable[[], None]]:
    """Two managed threads ask one actor (made by the setup, which starts
    its thread); each must get an answer."""
    def setup(scenario: Scenario) -> Callable[[], None]:
        actor = Actor(answers)
        actors.append(actor)
        got: list[int] = []

        def ask() -> None:
            got.append(actor.ask())

        scenario.thread(ask)
        scenario.thread(ask)

        def both_answered() -> None:
            assert sorted(got) == [1, 2], got
        return both_answered
    return setup


class AnActorStartedByTheSetup(unittest.TestCase):
    def setUp(self) -> None:
        self.actors: list[Actor] = []
        self.addCleanup(lambda: [actor.stop() for actor in self.actors])

    def test_correct_code_is_no_deadlock_and_no_run_waits_out_its_bound(self) -> None:
        with quiet_thread_errors() as printed:
            result = blanket.explore(two_askers(1_000, self.actors), timeout=BOUND)
        self.assertIsNone(result.failure, result)
        # An actor given up on with its run (cut short) ended by Abandoned:
        # blanket's, not the code's, and not printed. Before, on the
        # free-threaded build, a run's teardown could give back the queue's
        # lock the actor had just taken ("release unlocked lock", "cannot
        # notify on un-acquired lock"): see TheRunsEnd.
        self.assertEqual([str(args.exc_value) for args in printed], [])
        self.assertGreater(result.count, 2)
        # The actor's thread is named (it runs outside blanket), and no run
        # had to stop waiting for it: it slept in its inbox between answers.
        self.assertEqual([note for note in result.unseen if "actor" in note],
                         [note for note in result.unseen if "'actor' started outside" in note])
        self.assertEqual(len(result.unseen), 1, result.unseen)

    def test_an_answer_never_given_is_a_deadlock(self) -> None:
        with quiet_thread_errors():
            result = blanket.explore(two_askers(1, self.actors), timeout=BOUND)
        failure = result.failure
        assert failure is not None, result
        self.assertEqual(failure.kind, "deadlock", failure.message)
        self.assertIn("waits in Condition.wait", failure.message)


class Quiet(unittest.TestCase):
    def test_threading_s_hook_drops_only_blanket_s_abandoned(self) -> None:
        with quiet_thread_errors() as printed:
            quiet.quiet_threads()
            quiet.quiet_threads()  # (once: over the hook set before)
            unwound = RuntimeError("release unlocked lock")
            unwound.__context__ = Abandoned("given up")
            for error in (Abandoned("given up"), unwound, ValueError("the code's")):
                threading.excepthook(threading.ExceptHookArgs(  # type: ignore[call-arg]
                    (type(error), error, None, threading.current_thread())))
        self.assertEqual([str(args.exc_value) for args in printed], ["the code's"])


class Worker(threading.Thread):
    """A thread of a subclass of Thread (not adopted: it runs outside
    blanket) that takes a lock of the scenario and gives it back."""

    def __init__(self, lock: Any, started: list[threading.Thread]) -> None:
        super().__init__(name="W")
        self.lock = lock
        started.append(self)

    def run(self) -> None:
        with self.lock:
            pass


def cut_at_a_release_given_back(depth: int, options: list[Any], run: Any) -> int | None:
    """Go on until a call is a release; there, the lock given back already
    (as a teardown may), cut the run short."""
    for option in options:
        if option.tx.spec.name == "release":
            option.tx.primitive._real.release()
            return None
    return 0


class GivenUpOn(unittest.TestCase):
    def test_an_outsider_parked_at_a_release_of_a_lock_no_longer_held_ends_quietly(
            self) -> None:
        # Before: the release made first as it unwound raised RuntimeError
        # ("release unlocked lock"), which ended the thread, printed.
        started: list[threading.Thread] = []

        def setup(scenario: Scenario) -> None:
            lock = scenario.Lock()
            scenario.thread(lambda: Worker(lock, started).start())

        with quiet_thread_errors() as printed:
            run = run_once(setup, "given up", BOUND, cut_at_a_release_given_back, Unseen(),
                           set())
            started[0].join(BOUND)
        self.assertTrue(run.redundant)
        self.assertFalse(started[0].is_alive())
        self.assertEqual([args.exc_value for args in printed], [])


class RunsOn:
    """A thread outside blanket that keeps waking up (a timed wait, over
    and over) until told to stop, then sets what a managed thread waits for."""

    def __init__(self) -> None:
        self.stop = threading.Event()

    def setup(self, scenario: Scenario) -> None:
        done = scenario.Event()

        def poll() -> None:
            while not self.stop.wait(0.01):
                pass
            done.set()

        threading.Thread(target=poll, daemon=True).start()
        scenario.thread(done.wait)


class AnOutsiderThatRunsOn(unittest.TestCase):
    def test_it_is_waited_for_within_the_bound_then_named_and_no_deadlock_claimed(self) -> None:
        outside = RunsOn()
        self.addCleanup(outside.stop.set)
        with quiet_thread_errors():
            result = blanket.explore(outside.setup, timeout=0.3)
        failure = result.failure
        assert failure is not None, result
        self.assertEqual(failure.kind, "stall", failure.message)
        self.assertIn("outside blanket, ran on where it cannot see", failure.message)
        self.assertTrue(any("outside blanket, ran on unseen: it neither called the "
                            "scenario's primitives nor slept where blanket sees it within "
                            "0.3 s" in note for note in result.unseen), result.unseen)


class Bookkeeping(unittest.TestCase):
    """The parts, called as the profile and the scheduler call them
    (coverage cannot see a profile function run)."""

    def test_a_thread_the_setup_starts_is_an_outsider_of_the_run(self) -> None:
        seen, core = Unseen(), Scenario("run")._core
        started = threading.Thread(name="T")
        user = frame_in("setup.py", "setup")
        start = frame_in(threading.__file__, "start", back=user, self=started)
        with unchecked():  # (a frame's stand-in)
            seen._threading_call(start)  # no run's setup going on: noted only
            self.assertEqual(list(core.outsiders.threads), [])
            seen.core = core
            seen._threading_call(start)
        self.assertEqual(list(core.outsiders.threads), [started])
        self.assertEqual(seen.notes, ["thread 'T' started outside blanket at setup.py:1"])

    def test_an_outsider_run_on_is_named_once(self) -> None:
        seen, thread = Unseen(), threading.Thread(target=Actor.ask, name="T-1")
        seen.ran_on([thread], 0.5)
        seen.ran_on([threading.Thread(target=Actor.ask, name="T-2")], 0.5)  # (the same)
        self.assertEqual(seen.notes, [
            "thread 'T-1', outside blanket, ran on unseen: it neither called the scenario's "
            "primitives nor slept where blanket sees it within 0.5 s, and was not waited for "
            "after"])

    def test_those_running_are_given_up_on_once_and_the_others_kept(self) -> None:
        core = Scenario("run")._core
        outsiders = core.outsiders
        asleep_elsewhere = threading.Event()
        other = threading.Thread(target=asleep_elsewhere.wait, args=(BOUND,))
        other.start()
        self.addCleanup(other.join, BOUND)
        self.addCleanup(asleep_elsewhere.set)
        ended = threading.Thread(target=int)
        ended.start()
        ended.join(BOUND)
        for thread in (ended, threading.current_thread(), other):
            outsiders.add(thread)
        outsiders.add(other)  # (once)
        self.assertEqual(len(outsiders.threads), 3)
        self.assertFalse(outsiders.settled(core, nobody))  # this one runs
        self.assertTrue(core.polled)  # (and the scheduler is told to look again soon)
        self.assertTrue(outsiders.give_up(core, nobody))
        self.assertIn(threading.current_thread(), outsiders.given_up)
        self.assertNotIn(ended, outsiders.given_up)
        self.assertTrue(outsiders.settled(core, nobody))
        self.assertFalse(outsiders.give_up(core, nobody))  # none left to give up on

    def test_waiters_finds_those_asleep_in_a_condition(self) -> None:
        condition = threading.Condition()  # (an RLock's: it is let go in C code)
        listed = condition._waiters  # type: ignore[attr-defined]
        self.assertEqual(outsiders_waiters(listed), [])
        entered = threading.Event()

        def sleep() -> None:
            with condition:
                entered.set()
                condition.wait(BOUND)

        sleeper = threading.Thread(target=sleep)
        sleeper.start()
        self.assertTrue(entered.wait(BOUND))
        with condition:  # taken once the sleeper let it go, in wait, its waiter listed
            self.assertEqual(outsiders_waiters(listed), list(listed))
            self.assertEqual(len(listed), 1)
            condition.notify()
        sleeper.join(BOUND)


class TheRunsEnd(unittest.TestCase):
    """A twinned real lock is put back as it was when first used, but not
    taken from a thread outside the run that holds it. Before: the actor,
    in its queue's get at the end of a run, had its queue's lock released
    under it ("cannot wait on un-acquired lock", on 3.13t)."""

    def test_a_lock_an_outsider_holds_stays_held(self) -> None:
        scenario = Scenario()
        twins = Twins(scenario._core, {"Lock": scenario.Lock})
        lock = threading.Lock()
        twins.use(lock)  # first used free
        lock.acquire()  # by a thread outside the run, in code not watched
        self.addCleanup(lock.release)
        twins.restore()
        self.assertTrue(lock.locked())

    def test_a_thread_given_up_on_gives_back_through_the_twin_and_it_is_counted(self) -> None:
        # Before: once the scenario stopped regulating, the twin's calls went
        # straight to the real lock, so the release of a thread unwinding was
        # not counted; the run's end then took the thread for its holder and
        # released the lock again, under whoever had taken it since (an
        # actor's queue, on 3.13t).
        scenario = Scenario(timeout=BOUND)
        core = scenario._core
        twins = Twins(core, {"Lock": scenario.Lock})
        real, gate = threading.Lock(), scenario.Lock()
        twin: Any = twins.use(real)

        def hold() -> None:
            with twin:
                with gate:  # parked here, holding the real lock
                    pass
        holder = scenario.thread(hold)
        with quiet_thread_errors(), scenario:
            scenario.skip(holder, twin.acquire)
            # (parked at the gate before it is given up on: one still on its
            # way there would take the gate too, and give it back as well)
            self.assertIs(arrive(scenario, holder).primitive, gate)
            self.assertTrue(real.locked())
            with core.lock:
                progress.abandon(core, [holder])
        self.assertFalse(holder.is_alive())
        self.assertFalse(real.locked())
        real.acquire()  # taken since by a thread outside the run
        self.addCleanup(real.release)
        twins.restore()
        self.assertTrue(real.locked())
        self.assertEqual(core.unwound[holder], {id(twin): 1})

    def test_a_lock_a_live_thread_took_through_the_twin_stays_held(self) -> None:
        # Before: what the log said the run's threads took, less what they
        # gave back, was given back for them, even for a thread still
        # running (an actor past the run's end, about to release it).
        scenario = Scenario()
        twins = Twins(scenario._core, {"Lock": scenario.Lock})
        real = threading.Lock()
        twin = twins.use(real)
        ended = threading.Thread(target=int)
        ended.start()
        ended.join(BOUND)
        real.acquire()
        self.addCleanup(lambda: real.locked() and real.release())
        for holder, taken in ((threading.current_thread(), False), (ended, True)):
            with self.subTest(holder=holder.name), unittest.mock.patch.object(
                    realprims, "holdings", return_value={holder: {id(twin): 1}}):
                self.assertIs(realprims._taken_in(scenario._core, real), taken)
                scenario._core.unwound[holder] = {id(twin): 1}  # given back as it unwound
                self.assertFalse(realprims._taken_in(scenario._core, real))

    def test_a_lock_a_thread_of_the_run_took_unwatched_is_given_back(self) -> None:
        scenario = Scenario()
        mine = scenario.thread(int)
        lock = threading.Lock()
        lock.acquire()
        self.addCleanup(sleepers.holders.pop, id(lock), None)
        for holder, taken in ((threading.current_thread(), False), (mine, True)):
            with self.subTest(holder=holder.name):
                sleepers.holders[id(lock)] = (lock, holder, "x.py:1")
                self.assertIs(realprims._taken_in(scenario._core, lock), taken)


def frame_in(filename: str, name: str, *, back: Any = None, **local: Any) -> Any:
    """A stand-in for a frame of *name* in *filename*, line 1."""
    return types.SimpleNamespace(
        f_code=types.SimpleNamespace(co_filename=filename, co_name=name, co_qualname=name),
        f_lineno=1, f_back=back, f_locals=local)


def frame(code: Callable[..., Any], **local: Any) -> Any:
    """A stand-in for a thread's innermost frame: in *code*, with *local*."""
    return types.SimpleNamespace(f_code=code.__code__, f_locals=local)


def nobody(lock: object) -> threading.Thread | None:
    """No thread of the scenario is known to hold *lock*."""
    return None


class Asleep(unittest.TestCase):
    """What counts as asleep until another thread acts, read off a frame."""

    def setUp(self) -> None:
        self.condition = threading.Condition(threading.Lock())
        self.waiter = threading.Lock()
        self.waiter.acquire()
        self.condition._waiters.append(self.waiter)  # type: ignore[attr-defined]

    def waiting(self, timeout: float | None = None) -> Any:
        return frame(threading.Condition.wait, self=self.condition, waiter=self.waiter,
                     timeout=timeout)

    def test_waiting_on_a_condition_not_notified(self) -> None:
        self.assertTrue(asleep(self.waiting(), 1, nobody))

    def test_a_timed_wait_wakes_by_itself(self) -> None:
        self.assertFalse(asleep(self.waiting(timeout=1.0), 1, nobody))

    def test_notified_it_sleeps_while_another_thread_of_the_scenario_holds_the_lock(
            self) -> None:
        self.condition._waiters.clear()  # type: ignore[attr-defined]
        other = threading.current_thread()
        with self.condition:
            self.assertTrue(asleep(self.waiting(), 1, lambda lock: other))
            # Held by none known: maybe by the sleeper itself, just woken.
            self.assertFalse(asleep(self.waiting(), 1, nobody))
            self.assertFalse(asleep(self.waiting(), other.ident or 0, lambda lock: other))
        self.assertFalse(asleep(self.waiting(), 1, nobody))  # free: it takes it and goes on

    def test_entering_or_taking_back_an_rlock_it_does_not_hold(self) -> None:
        condition = threading.Condition(threading.RLock())
        for code in (threading.Condition.__enter__,
                     threading.Condition._acquire_restore):  # type: ignore[attr-defined]
            with self.subTest(code.__name__):
                entering = frame(code, self=condition)
                self.assertFalse(asleep(entering, 1, nobody))
                with condition:
                    self.assertTrue(asleep(entering, 1, nobody))
                    self.assertFalse(asleep(entering, threading.get_ident(), nobody))

    def test_anywhere_else_it_may_run(self) -> None:
        self.assertFalse(asleep(frame(threading.Event.wait, self=threading.Event()), 1,
                                nobody))
        self.assertFalse(asleep(frame(threading.Condition.wait, self=object()), 1, nobody))


if __name__ == "__main__":  # pragma: no cover
    unittest.main()

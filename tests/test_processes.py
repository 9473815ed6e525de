"""explore(processes=N): the exact shards of a search run in N processes
(blanket.exploration.processes), merged into the one process's result; no
process outlives the search (Ctrl-C, an exception, the caller killed)."""

from __future__ import annotations

import functools
import multiprocessing
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import unittest
import unittest.mock
from pathlib import Path
from typing import Any

import blanket
from blanket.exploration import processes, tried
from blanket.exploration.races import Race
from blanket.exploration.reached import FileLines, Reach
from blanket.seconds import SOONEST

from . import explore_bugs as bugs
from . import reach_cases as cases
from .support import quiet_thread_errors, unchecked

BOUND = 5.0
#: The bound of a process's start (a fresh interpreter importing blanket and
#: the tests), on a loaded machine.
STARTING = 60.0
ROOT = Path(__file__).resolve().parent.parent
#: The environment variable naming the port the processes of a search tell
#: their pids on (see long_search).
TELL = "BLANKET_TEST_TELL"
_told = False


def long_search(scenario: blanket.Scenario) -> None:
    """Millions of orders: five threads, each taking one lock three times
    (7.6 ms a run on the machine it was written on). The first run of each
    process tells the process's pid to the port ``$BLANKET_TEST_TELL`` names."""
    global _told
    port = os.environ.get(TELL)
    if port and not _told:
        _told = True
        with socket.create_connection(("127.0.0.1", int(port)), timeout=BOUND) as told:
            told.sendall(str(os.getpid()).encode())
    lock = scenario.Lock()

    def sections() -> None:
        for _ in range(3):
            with lock:
                pass

    for _ in range(5):
        scenario.thread(sections)


def returns_42(scenario: blanket.Scenario) -> Any:
    return 42


def dies(scenario: blanket.Scenario) -> None:
    os._exit(3)


class Told:
    """A port the processes of a search tell their pids on (long_search)."""

    def __init__(self, test: unittest.TestCase) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        test.addCleanup(self.server.close)
        self.server.settimeout(STARTING)
        self.port = self.server.getsockname()[1]

    def pids(self, count: int) -> list[int]:
        """The pids of the first *count* processes to tell, each waited for
        within STARTING."""
        pids = []
        for _ in range(count):
            connection, _ = self.server.accept()
            with connection:
                connection.settimeout(BOUND)
                pids.append(int(b"".join(iter(functools.partial(connection.recv, 64), b""))))
        return pids


class SameAsOneProcess(unittest.TestCase):
    def test_the_same_schedules_and_verdict(self) -> None:
        for setup in (cases.trylock_drain, bugs.check_then_act_fixed):
            with self.subTest(setup.__name__):
                one = blanket.explore(setup, timeout=BOUND)
                two = blanket.explore(setup, processes=2, timeout=BOUND)
                self.assertEqual(sorted(two.schedules), sorted(one.schedules))
                self.assertTrue(one.exhausted and two.exhausted)
                self.assertGreaterEqual(two.runs, one.runs)

    def test_a_failure_a_line_and_the_lines_of_every_shard(self) -> None:
        with quiet_thread_errors():
            result = blanket.explore(bugs.check_then_act, processes=2, timeout=BOUND)
        assert result.failure is not None
        self.assertEqual(result.failure.kind, "invariant")
        place = cases.place("never")
        result = blanket.explore(cases.never, processes=2, reach=place, lines=True,
                                 timeout=BOUND)
        self.assertEqual(result.reached, {place: None})
        self.assertIn(f"no order of these threads runs {place}", str(result))
        line = int(place.rsplit(":", 1)[1])
        self.assertEqual(result.lines["tests/reach_cases.py"].never, {line})


    def test_the_sampling_strategies_split_their_runs_too(self) -> None:
        # random and pct split their run numbers among the processes: a
        # space their depth-first pass ends is exhausted alike, a bug found.
        for strategy in ("random", "pct"):
            with self.subTest(strategy):
                one = blanket.explore(bugs.check_then_act_fixed, strategy=strategy,
                                      timeout=BOUND)
                two = blanket.explore(bugs.check_then_act_fixed, strategy=strategy,
                                      processes=2, timeout=BOUND)
                self.assertTrue(one.exhausted and two.exhausted, (one, two))
                self.assertEqual(sorted(two.schedules), sorted(one.schedules))
                with quiet_thread_errors():
                    found = blanket.explore(bugs.check_then_act, strategy=strategy,
                                            processes=2, timeout=BOUND)
                assert found.failure is not None, found
                self.assertEqual(found.failure.kind, "invariant")

class Refused(unittest.TestCase):
    def test_what_processes_refuses(self) -> None:
        for options, error, text in [
                ({"processes": 0}, ValueError, "processes=0: expected at least 1"),
                ({"processes": "2"}, TypeError, "processes='2': expected an int"),
                ({"processes": True}, TypeError, "processes=True: expected an int"),
                ({"processes": 2, "shard": "1/2"}, ValueError, "run the shards themselves"),
        ]:
            with self.subTest(options), unchecked(), self.assertRaisesRegex(error, text):
                blanket.explore(cases.never, **options)

    def test_a_setup_another_process_cannot_import(self) -> None:
        def nested(scenario: blanket.Scenario) -> None:
            cases.never(scenario)
        with self.assertRaisesRegex(TypeError, "cannot be sent to another process"):
            blanket.explore(nested, processes=2)


class Merge(unittest.TestCase):
    """How the shards' results add up (processes.merge)."""

    def part(self, **fields: Any) -> blanket.Exploration:
        result = blanket.Exploration("dfs")
        for name, value in fields.items():
            setattr(result, name, value)
        return result

    def test_the_first_of_each_and_everything_once(self) -> None:
        race = Race("Counter.count", ("A", "read", "x.py:1"), ("B", "write", "x.py:1"))
        reach = Reach("x.py:3", ())
        first = self.part(schedules=[("A",)], runs=2, exhausted=True, unseen=["u"],
                          races=[race], reached={"x.py:3": None},
                          lines={"x.py": FileLines("x.py", frozenset({1}),
                                                   frozenset({2, 3}), frozenset({2, 3}))})
        second = self.part(schedules=[("B",)], runs=3, exhausted=False, unseen=["u", "v"],
                           races=[race], reached={"x.py:3": reach},
                           lines={"x.py": FileLines("x.py", frozenset({2}),
                                                    frozenset({3}), None)})
        merged = processes.merge([first, second])
        self.assertEqual((merged.schedules, merged.runs, merged.exhausted, merged.unseen,
                          merged.races, merged.reached),
                         ([("A",), ("B",)], 5, False, ["u", "v"], [race], {"x.py:3": reach}))
        self.assertEqual(merged.lines["x.py"], FileLines("x.py", frozenset({1, 2}),
                                                         frozenset({3}), None))
        again = processes.merge([second, first])
        self.assertIs(again.reached["x.py:3"], reach)  # the first found stays

    def test_a_shard_keeps_to_its_cpu(self) -> None:
        calls: list[Any] = []

        def explore(setup: Any, **options: Any) -> blanket.Exploration:
            calls.append(options)
            return self.part()
        with unittest.mock.patch.object(os, "sched_setaffinity") as pin:
            processes._shard(explore, cases.never, 2, 3, 1, timed({"seed": 4}))
            processes._shard(explore, cases.never, 1, 3, None, timed({}))
        pin.assert_called_once_with(0, {1})
        self.assertEqual(calls, [{"shard": (2, 3), "seed": 4, "max_seconds": SOONEST},
                                 {"shard": (1, 3), "max_seconds": SOONEST}])

    def test_a_shard_spends_what_is_left_of_the_search_s_time(self) -> None:
        given: list[float] = []

        def explore(setup: Any, **options: Any) -> blanket.Exploration:
            given.append(options["max_seconds"])
            part = self.part()
            part.stopped = f"max_seconds={options['max_seconds']:g}"
            return part
        left = {"max_seconds": 5.0, "deadline": time.monotonic() + 1000.0}
        result = processes._shard(explore, cases.never, 1, 2, None, left)
        self.assertTrue(900.0 < given[0] <= 1000.0, given)  # (the clock went on meanwhile)
        self.assertEqual(result.stopped, "max_seconds=5")  # as the user gave it

    def test_without_cpus_to_name(self) -> None:
        with unittest.mock.patch.object(os, "sched_getaffinity", lambda _: set()):
            result = blanket.explore(cases.never, processes=2, timeout=BOUND)
        self.assertTrue(result.exhausted)


def timed(options: dict[str, Any]) -> dict[str, Any]:
    """*options* as the caller sends them to a shard, the search's time spent."""
    return {**options, "max_seconds": 5.0, "deadline": time.monotonic()}


class Unpicklable(Exception):
    """An exception pickle cannot send: it holds a lock."""

    def __init__(self) -> None:
        super().__init__("holds a lock")
        self.lock = threading.Lock()


class Stubborn:
    """A process that ignores SIGTERM: only a kill ends it."""

    def __init__(self) -> None:
        self.exitcode: int | None = None
        self.calls: list[str] = []

    def terminate(self) -> None:
        self.calls.append("terminate")

    def kill(self) -> None:
        self.calls.append("kill")
        self.exitcode = -9

    def join(self, timeout: float | None = None) -> None:
        self.calls.append("join")


class NoneLeft(unittest.TestCase):
    """However the search ends, no process of it is left running."""

    def assert_gone(self, pids: list[int]) -> None:
        for pid in pids:  # ended and reaped by the search
            with self.subTest(pid=pid), self.assertRaises(ProcessLookupError):
                os.kill(pid, 0)
        self.assertEqual(multiprocessing.active_children(), [])

    @unittest.skipUnless(hasattr(signal, "pthread_kill"), "needs signal.pthread_kill")
    def test_ctrl_c_is_raised_at_once_the_processes_ended(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            self.skipTest("Ctrl-C is the main thread's")
        # Before: the caller waited in ProcessPoolExecutor.shutdown for the
        # shards to end (6 s late here; 35 s on a larger search).
        told = Told(self)
        pids: list[int] = []
        sent: list[float] = []

        def interrupt() -> None:
            try:
                pids.extend(told.pids(2))  # both processes are searching
            finally:  # (always: the search is not left to run to its end)
                sent.append(time.monotonic())
                signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        self.addCleanup(signal.signal, signal.SIGINT, previous)
        interrupter = threading.Thread(target=interrupt)
        ended: list[str] = []
        with unittest.mock.patch.dict(os.environ, {TELL: str(told.port)}), \
                self.assertRaises(KeyboardInterrupt):
            interrupter.start()
            try:
                blanket.explore(long_search, processes=2, max_schedules=1000, timeout=BOUND)
                ended.append("the search ended before Ctrl-C")
                interrupter.join(STARTING + BOUND)  # (its Ctrl-C comes here, not later)
            finally:
                returned = time.monotonic()
        interrupter.join(BOUND)
        self.assertEqual(ended, [])
        self.assertEqual(len(pids), 2)
        self.assertLess(returned - sent[0], 1.0)
        self.assert_gone(pids)

    @unittest.skipUnless(hasattr(os, "pidfd_open"), "needs os.pidfd_open (Linux)")
    def test_the_processes_leave_when_their_caller_is_killed(self) -> None:
        # Before: they searched on, children of init (found 52 minutes later).
        told = Told(self)
        caller = subprocess.Popen(
            [sys.executable, "-c", "import blanket; from tests.test_processes import "
             "long_search; blanket.explore(long_search, processes=2, max_schedules=10_000)"],
            cwd=ROOT, env={**os.environ, TELL: str(told.port), "PYTHONPATH": str(ROOT)},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(caller.wait, BOUND)
        self.addCleanup(caller.kill)
        ends = [os.pidfd_open(pid) for pid in told.pids(2)]  # (the caller still waits for them)
        for end in ends:
            self.addCleanup(os.close, end)
            self.addCleanup(signal.pidfd_send_signal, end, signal.SIGKILL)  # should it fail
        caller.kill()
        caller.wait(BOUND)
        killed = time.monotonic()
        for end in ends:  # readable once the process has ended
            ready, _, _ = select.select([end], [], [], max(0.0, killed + BOUND - time.monotonic()))
            self.assertEqual(ready, [end], "a process of the search outlived its caller")
        self.assertLess(time.monotonic() - killed, BOUND)

    def test_what_a_shard_raises_is_raised_with_its_traceback(self) -> None:
        with unchecked(), self.assertRaises(TypeError) as caught:
            blanket.explore(returns_42, processes=2, timeout=BOUND)
        self.assertIn("setup returned 42", str(caught.exception))
        notes = "\n".join(getattr(caught.exception, "__notes__", []))
        self.assertRegex(notes, r"raised in the process of shard [12]/2")
        self.assertIn("Traceback (most recent call last)", notes)
        self.assertEqual(multiprocessing.active_children(), [])

    def test_a_process_that_ends_without_its_result(self) -> None:
        with self.assertRaisesRegex(RuntimeError, r"processes=2: the process of shard [12]/2 "
                                    r"ended without its result \(exit code 3\)"):
            blanket.explore(dies, processes=2, timeout=BOUND)
        self.assertEqual(multiprocessing.active_children(), [])

    def test_a_process_that_cannot_start(self) -> None:
        # (options pickle cannot send: no process, no pipe left open)
        with self.assertRaisesRegex(TypeError, "cannot pickle '_thread.lock' object"):
            blanket.explore(cases.never, processes=2, exclude=[threading.Lock()])
        self.assertEqual(multiprocessing.active_children(), [])

    def test_an_exception_pickle_cannot_send_is_sent_as_what_it_said(self) -> None:
        def explore(setup: Any, **options: Any) -> blanket.Exploration:
            raise Unpicklable
        results, answer = multiprocessing.Pipe(duplex=False)
        with results, answer:
            processes._work(answer, explore, cases.never, 1, 2, None, timed({}))
            kind, error, trace = results.recv()
        self.assertEqual((kind, type(error), str(error)),
                         (processes.RAISED, RuntimeError, "Unpicklable: holds a lock"))
        self.assertIn("raise Unpicklable", trace)

    def test_a_process_ignores_ctrl_c_and_watches_its_caller(self) -> None:
        calls: list[Any] = []

        def explore(setup: Any, **options: Any) -> blanket.Exploration:
            calls.append(options)
            return blanket.Exploration("dfs")
        results, answer = multiprocessing.Pipe(duplex=False)
        with results, answer, unittest.mock.patch.object(signal, "signal") as handle, \
                unittest.mock.patch.object(processes, "leave_with") as leave, \
                unittest.mock.patch.dict(os.environ):
            processes._worker(answer, explore, cases.never, 2, 2, None, timed({}))
            kind, result = results.recv()
            self.assertEqual(os.environ[tried.TRYING], "1")  # the caller tries the tests
        handle.assert_called_once_with(signal.SIGINT, signal.SIG_IGN)
        leave.assert_called_once_with(multiprocessing.parent_process())
        self.assertEqual((kind, result.strategy, calls), (processes.DONE, "dfs", [
            {"shard": (2, 2), "max_seconds": SOONEST}]))

    def test_a_process_leaves_once_its_caller_ended(self) -> None:
        processes.leave_with(None)  # the main process: no caller to watch
        ended, left = threading.Event(), threading.Event()

        class Parent:
            def join(self, timeout: float | None = None) -> None:
                ended.wait(BOUND)
        with unittest.mock.patch.object(os, "_exit", lambda status: left.set()) as _:
            with unchecked():
                processes.leave_with(Parent())  # type: ignore[arg-type]
            self.assertFalse(left.is_set())  # the caller lives
            ended.set()
            self.assertTrue(left.wait(BOUND))

    def test_a_process_that_ignores_sigterm_is_killed(self) -> None:
        stubborn = Stubborn()
        with unittest.mock.patch.object(processes, "GRACE", 0.0), unchecked():
            processes.stop([stubborn])  # type: ignore[list-item]
        self.assertEqual(stubborn.calls, ["join", "terminate", "join", "kill", "join"])

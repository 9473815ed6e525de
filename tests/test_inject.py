"""scenario.inject(module): every reference pattern, restoring, nesting,
errors, ScenarioTestCase cleanup, and the standard library's queue.Queue
driven in a chosen order."""

from __future__ import annotations

import _thread
import queue
import threading
import types
import unittest

import blanket
from blanket.inject import ThreadingView

from .support import unchecked

BOUND = 5.0  # every wait of these tests ends well within it

ALL_KINDS = ("Lock", "RLock", "Condition", "Semaphore", "BoundedSemaphore", "Event",
             "Barrier")


def module_from(source: str, name: str = "under_test") -> types.ModuleType:
    """A throwaway module: *source* run in a fresh module's namespace."""
    module = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), vars(module))
    return module


def sub_run(case: type[unittest.TestCase], name: str) -> unittest.TestResult:
    """Run one test method of *case* in a result of its own."""
    result = unittest.TestResult()
    case(name).run(result)
    return result


class Patterns(unittest.TestCase):
    """Each way a module can reach threading's primitives is rebound."""

    def setUp(self) -> None:
        self.scenario = blanket.Scenario("patterns", timeout=BOUND)

    def test_import_threading(self) -> None:
        module = module_from("import threading\n"
                             "def make():\n"
                             "    return threading.Lock(), threading.Condition()\n")
        with self.scenario.inject(module) as injection:
            self.assertEqual(injection.names, ("threading",))
            self.assertIsInstance(module.threading, ThreadingView)
            for kind in ALL_KINDS:
                self.assertIs(getattr(module.threading, kind), getattr(self.scenario, kind))
            lock, condition = module.make()
            self.assertIsInstance(lock, self.scenario.Lock)
            self.assertIsInstance(condition, self.scenario.Condition)
        self.assertIs(module.threading, threading)
        lock, condition = module.make()
        self.assertNotIsInstance(lock, self.scenario.Lock)
        self.assertIs(type(condition), threading.Condition)

    def test_from_threading_import_all_seven_kinds(self) -> None:
        module = module_from(f"from threading import {', '.join(ALL_KINDS)}\n")
        with self.scenario.inject(module) as injection:
            self.assertEqual(injection.names, ALL_KINDS)
            for kind in ALL_KINDS:
                self.assertIs(getattr(module, kind), getattr(self.scenario, kind))
            self.assertIsInstance(module.Barrier(2), self.scenario.Barrier)
            self.assertIsInstance(module.Semaphore(3), self.scenario.Semaphore)
        for kind in ALL_KINDS:
            self.assertIs(getattr(module, kind), getattr(threading, kind))

    def test_names_are_found_by_value(self) -> None:
        module = module_from("import threading\n"
                             "Mutex = threading.Lock\n"
                             "from threading import Event as Flag\n")
        with self.scenario.inject(module) as injection:
            self.assertEqual(injection.names, ("threading", "Mutex", "Flag"))
            self.assertIs(module.Mutex, self.scenario.Lock)
            self.assertIs(module.Flag, self.scenario.Event)
        self.assertIs(module.Mutex, threading.Lock)
        self.assertIs(module.Flag, threading.Event)

    def test_import_threading_as_another_name(self) -> None:
        module = module_from("import threading as t\n")
        with self.scenario.inject(module) as injection:
            self.assertEqual(injection.names, ("t",))
            self.assertIsInstance(module.t, ThreadingView)
            self.assertIsInstance(module.t.RLock(), self.scenario.RLock)
        self.assertIs(module.t, threading)

    def test_thread_module_spellings(self) -> None:
        module = module_from("import _thread\n"
                             "from _thread import allocate_lock, RLock as ReentrantLock\n")
        with self.scenario.inject(module) as injection:
            self.assertEqual(injection.names, ("allocate_lock", "ReentrantLock"))
            self.assertIs(module.allocate_lock, self.scenario.Lock)
            self.assertIs(module.ReentrantLock, self.scenario.RLock)
            self.assertIs(module._thread, _thread)  # the module itself is left alone
        self.assertIs(module.allocate_lock, _thread.allocate_lock)
        self.assertIs(module.ReentrantLock, _thread.RLock)

    def test_a_class_named_lock_that_is_not_threadings_is_left_alone(self) -> None:
        module = module_from("import threading\n"
                             "class Lock:\n"
                             "    pass\n"
                             "Condition = 'not a class at all'\n")
        own_lock = module.Lock
        with self.scenario.inject(module) as injection:
            self.assertEqual(injection.names, ("threading",))
            self.assertIs(module.Lock, own_lock)
            self.assertEqual(module.Condition, "not a class at all")

    def test_values_that_cannot_be_hashed_are_skipped(self) -> None:
        module = module_from("import threading\ncache = {}\nitems = []\n")
        with self.scenario.inject(module) as injection:
            self.assertEqual(injection.names, ("threading",))
            self.assertEqual((module.cache, module.items), ({}, []))

    def test_everything_else_still_reaches_threading(self) -> None:
        module = module_from("import threading\n"
                             "def run(target):\n"
                             "    thread = threading.Thread(target=target)\n"
                             "    thread.start()\n"
                             "    thread.join(timeout)\n"
                             "    return thread\n"
                             "timeout = 5.0\n")
        with self.scenario.inject(module):
            view = module.threading
            self.assertIs(view.Thread, threading.Thread)
            self.assertIs(view.local, threading.local)
            self.assertIs(view.get_ident, threading.get_ident)
            self.assertIs(view.current_thread, threading.current_thread)
            self.assertIs(view.TIMEOUT_MAX, threading.TIMEOUT_MAX)
            with self.assertRaises(AttributeError):
                view.no_such_name  # noqa: B018 - the lookup is the test
            ran: list[int] = []
            thread = module.run(lambda: ran.append(threading.get_ident()))
            self.assertFalse(thread.is_alive())
            self.assertEqual(ran, [thread.ident])

    def test_view_repr_names_the_scenario(self) -> None:
        module = module_from("import threading\n")
        with self.scenario.inject(module):
            self.assertEqual(repr(module.threading), "<threading as seen by 'patterns'>")
            self.assertEqual(module.threading.__name__, "threading")
            self.assertEqual(module.threading.__doc__, threading.__doc__)

    def test_injected_primitives_are_regulated_in_the_scenario(self) -> None:
        module = module_from("from threading import Lock\n"
                             "lock = None\n"
                             "def work():\n"
                             "    with lock:\n"
                             "        pass\n")
        scenario = self.scenario
        with scenario.inject(module):
            module.lock = module.Lock()
        threads = [scenario.thread(module.work) for _ in range(2)]
        with scenario:
            list(scenario.api(module.lock).relay(threads[1], threads[0]))
        acquirers = [tx.thread for tx in scenario.log if tx.spec.name == "acquire"]
        self.assertEqual(acquirers, [threads[1], threads[0]])


class Restoring(unittest.TestCase):
    """The original values come back on close, on an exception, and once."""

    SOURCE = "import threading\nfrom threading import Lock, Event\n"

    def test_close_restores_and_reports(self) -> None:
        scenario = blanket.Scenario("restoring")
        module = module_from(self.SOURCE, "mod")
        injection = scenario.inject(module)
        self.assertIsInstance(injection, blanket.Injection)
        self.assertIs(injection.module, module)
        self.assertFalse(injection.closed)
        self.assertEqual(repr(injection),
                         "<blanket.Injection into 'mod' open: threading, Lock, Event>")
        injection.close()
        self.assertTrue(injection.closed)
        self.assertEqual(repr(injection),
                         "<blanket.Injection into 'mod' closed: threading, Lock, Event>")
        self.assertIs(module.threading, threading)
        self.assertIs(module.Lock, threading.Lock)
        self.assertIs(module.Event, threading.Event)

    def test_an_exception_in_the_with_block_restores(self) -> None:
        scenario = blanket.Scenario()
        module = module_from(self.SOURCE)
        with self.assertRaisesRegex(KeyError, "boom"):
            with scenario.inject(module) as injection:
                self.assertIs(module.Lock, scenario.Lock)
                raise KeyError("boom")
        self.assertTrue(injection.closed)
        self.assertIs(module.threading, threading)
        self.assertIs(module.Lock, threading.Lock)

    def test_closing_twice_does_nothing(self) -> None:
        scenario = blanket.Scenario()
        module = module_from(self.SOURCE)
        injection = scenario.inject(module)
        injection.close()
        module.Lock = "changed since"
        injection.close()
        self.assertEqual(module.Lock, "changed since")
        with injection:  # leaving the block closes it again: still nothing
            pass
        self.assertEqual(module.Lock, "changed since")

    def test_a_module_can_be_injected_again_after_close(self) -> None:
        first, second = blanket.Scenario(), blanket.Scenario()
        module = module_from(self.SOURCE)
        with first.inject(module):
            pass
        with second.inject(module) as injection:
            self.assertIs(module.Lock, second.Lock)
            self.assertEqual(injection.names, ("threading", "Lock", "Event"))
        self.assertIs(module.Lock, threading.Lock)

    def test_close_injections_closes_latest_first(self) -> None:
        scenario = blanket.Scenario()
        one, two = module_from(self.SOURCE, "one"), module_from(self.SOURCE, "two")
        injections = [scenario.inject(one), scenario.inject(two), scenario.inject(one)]
        scenario.close_injections()  # the nested pair into "one" in the right order
        self.assertTrue(all(injection.closed for injection in injections))
        for module in (one, two):
            self.assertIs(module.threading, threading)
            self.assertIs(module.Lock, threading.Lock)
        scenario.close_injections()  # nothing left: nothing happens


class Nesting(unittest.TestCase):
    """Two injections into one module: innermost first, or an error."""

    SOURCE = "import threading\nfrom threading import Lock, Condition\n"

    def setUp(self) -> None:
        self.outer_scenario = blanket.Scenario("outer")
        self.inner_scenario = blanket.Scenario("inner")
        self.module = module_from(self.SOURCE)

    def test_inner_replaces_what_outer_installed(self) -> None:
        module = self.module
        outer = self.outer_scenario.inject(module)
        self.assertIs(module.Lock, self.outer_scenario.Lock)
        inner = self.inner_scenario.inject(module)
        self.assertEqual(inner.names, ("threading", "Lock", "Condition"))
        self.assertIs(module.Lock, self.inner_scenario.Lock)
        self.assertIs(module.Condition, self.inner_scenario.Condition)
        self.assertEqual(repr(module.threading), "<threading as seen by 'inner'>")
        self.assertIsInstance(module.threading.Lock(), self.inner_scenario.Lock)
        inner.close()
        self.assertIs(module.Lock, self.outer_scenario.Lock)
        self.assertEqual(repr(module.threading), "<threading as seen by 'outer'>")
        outer.close()
        self.assertIs(module.Lock, threading.Lock)
        self.assertIs(module.Condition, threading.Condition)
        self.assertIs(module.threading, threading)

    def test_closing_out_of_order_raises_and_leaves_everything_intact(self) -> None:
        module = self.module
        outer = self.outer_scenario.inject(module)
        inner = self.inner_scenario.inject(module)
        with self.assertRaisesRegex(RuntimeError, "close injections innermost first"):
            outer.close()
        self.assertFalse(outer.closed)
        self.assertFalse(inner.closed)
        self.assertIs(module.Lock, self.inner_scenario.Lock)
        self.assertEqual(repr(module.threading), "<threading as seen by 'inner'>")
        with self.assertRaises(RuntimeError):
            with outer:
                pass
        inner.close()
        outer.close()
        self.assertIs(module.Lock, threading.Lock)
        self.assertIs(module.threading, threading)

    def test_the_same_scenario_twice(self) -> None:
        module = self.module
        with self.outer_scenario.inject(module), self.outer_scenario.inject(module) as inner:
            self.assertEqual(inner.names, ("threading", "Lock", "Condition"))
            self.assertIs(module.Lock, self.outer_scenario.Lock)
        self.assertIs(module.Lock, threading.Lock)

    def test_a_failed_inner_injection_leaves_the_outer_open(self) -> None:
        module = module_from("from threading import Lock\n")
        with self.outer_scenario.inject(module) as outer:
            installed = module.Lock
            del module.Lock  # the module dropped the one name there was
            with self.assertRaisesRegex(ValueError, "nothing to inject"):
                self.inner_scenario.inject(module)
            self.assertFalse(outer.closed)
            module.Lock = installed
        self.assertIs(module.Lock, threading.Lock)


class Errors(unittest.TestCase):
    """Nothing to patch, or not a module."""

    def test_nothing_to_patch_is_a_value_error_with_a_hint(self) -> None:
        scenario = blanket.Scenario()
        module = module_from("def make():\n"
                             "    import threading\n"
                             "    return threading.Lock()\n", "lazy")
        with self.assertRaises(ValueError) as caught:
            scenario.inject(module)
        message = str(caught.exception)
        self.assertIn("nothing to inject in module 'lazy'", message)
        self.assertIn("imports threading inside a function", message)
        self.assertIn("import at top level", message)
        # The failed attempt leaves nothing behind: the module injects later.
        module.threading = threading
        with scenario.inject(module) as injection:
            self.assertEqual(injection.names, ("threading",))
        self.assertIs(module.threading, threading)

    def test_threading_and_blankets_own_modules_are_refused_at_once(self) -> None:
        # Injected, threading made the scenario's primitives of themselves:
        # a RecursionError at the first primitive made.
        import _thread

        import blanket.core
        import blanket.primitives
        scenario = blanket.Scenario()
        for module in (threading, _thread, blanket, blanket.primitives, blanket.core):
            before = dict(vars(module))
            with self.subTest(module=module.__name__), self.assertRaisesRegex(
                    ValueError, f"^cannot inject into module '{module.__name__}': "):
                scenario.inject(module)
            self.assertEqual(vars(module), before)
        self.assertIsNot(threading.Lock, scenario.Lock)

    def test_a_non_module_is_a_type_error(self) -> None:
        scenario = blanket.Scenario()
        for bad in (threading.Lock, "threading", None):
            with self.subTest(bad=bad), unchecked(), \
                    self.assertRaisesRegex(TypeError, "inject takes a module"):
                scenario.inject(bad)  # type: ignore[arg-type]


class Cleanup(unittest.TestCase):
    """ScenarioTestCase undoes injections whatever the test did."""

    SOURCE = "import threading\nfrom threading import Lock\n"

    def test_a_passing_test(self) -> None:
        module = module_from(self.SOURCE)
        seen: list[object] = []

        class Case(blanket.ScenarioTestCase):
            def test_x(self) -> None:
                self.scenario.inject(module)
                seen.append(module.Lock)

        result = sub_run(Case, "test_x")
        self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
        self.assertNotEqual(seen, [threading.Lock])
        self.assertIs(module.Lock, threading.Lock)
        self.assertIs(module.threading, threading)

    def test_a_failing_test(self) -> None:
        module = module_from(self.SOURCE)

        class Case(blanket.ScenarioTestCase):
            def test_x(self) -> None:
                self.scenario.inject(module)
                self.scenario.inject(module)  # nested: cleanup closes latest first
                self.fail("on purpose")

        result = sub_run(Case, "test_x")
        self.assertEqual(len(result.failures), 1)
        self.assertIn("on purpose", result.failures[0][1])
        self.assertEqual(result.errors, [])
        self.assertIs(module.Lock, threading.Lock)
        self.assertIs(module.threading, threading)

    def test_a_scenario_exit_that_raises(self) -> None:
        module = module_from(self.SOURCE)
        gate = threading.Event()  # a raw Event: never regulated
        threads: list[threading.Thread] = []

        class Case(blanket.ScenarioTestCase):
            stall_timeout = 0.3

            def test_x(self) -> None:
                self.scenario.inject(module)
                threads.append(self.thread(gate.wait, BOUND))
                self.scenario.__enter__()  # left entered: cleanup exits it

        try:
            result = sub_run(Case, "test_x")
            self.assertIs(module.Lock, threading.Lock)
            self.assertIs(module.threading, threading)
        finally:
            gate.set()
            for thread in threads:
                thread.join(BOUND)
        self.assertFalse(any(thread.is_alive() for thread in threads))
        self.assertEqual(len(result.errors), 1)
        self.assertIn("StallError", result.errors[0][1])


class QueueInjected(blanket.ScenarioTestCase):
    """The done-when test: the standard library's queue module, injected, and
    a queue.Queue with two consumers and one producer driven in a chosen
    order, the same in every run.

    The order chosen is the classic stolen wake-up: the producer's first put
    wakes consumer A, but before A has the queue's mutex back, consumer B
    comes in and takes the item; A finds the queue empty, waits again, and
    gets the second item."""

    stall_timeout = BOUND
    RUNS = 20

    def run_once(self) -> tuple[list[tuple[str, int]], queue.Queue[int],
                                list[threading.Thread]]:
        scenario = self.scenario
        q: queue.Queue[int] = queue.Queue()
        got: list[tuple[str, int]] = []

        def consumer() -> None:
            got.append((threading.current_thread().name, q.get()))

        def producer() -> None:
            q.put(1)
            q.put(2)

        A, B, P = (self.thread(target) for target in (consumer, consumer, producer))
        A.name, B.name, P.name = "A", "B", "P"
        # queue.Queue: one Lock (mutex) under three Conditions; put() holds
        # not_full and notifies not_empty, get() holds not_empty.
        not_empty, not_full = q.not_empty, q.not_full
        with scenario:
            scenario.skip(A, not_empty.acquire, wait=True)  # A has the mutex
            scenario.skip(P, not_full.acquire)  # P queues for it
            # A waits (the queue is empty); P gets the mutex, puts 1, notifies.
            with scenario.api(not_empty).cycle(A, P) as cycle:
                scenario.skip(P, not_full.release, wait=True)
                # A is woken but held; B takes the mutex and the item.
                scenario.skip(B, not_empty.acquire, not_full.notify, not_empty.release,
                              wait=True)
                cycle.wake(A)  # A finds the queue empty and waits again
            scenario.skip(P, not_full.acquire)
            with scenario.api(not_empty).cycle(A, P) as cycle:
                scenario.skip(P, not_full.release, wait=True)
                cycle.wake(A)  # this time A gets the item
            scenario.finish(A, B, P)
        return got, q, [A, B, P]

    def test_two_consumers_one_producer_in_a_chosen_order(self) -> None:
        with self.scenario.inject(queue) as injection:
            self.assertEqual(injection.names, ("threading",))
            for _ in range(self.RUNS):
                got, q, (A, B, P) = self.run_once()
                self.assertEqual(got, [("B", 1), ("A", 2)])
                self.assertIsInstance(q.mutex, self.scenario.Lock)
                self.assertCallOrder(q.not_empty.notify, [P, P])
                self.assertCallOrder(q.not_empty.wait, [A, A])
                self.assertCallOrder(q.not_full.notify, [B, A])
                self.assertTrue(q.empty())
        self.assertIs(queue.threading, threading)
        plain: queue.Queue[int] = queue.Queue()
        self.assertNotIsInstance(plain.mutex, self.scenario.Lock)

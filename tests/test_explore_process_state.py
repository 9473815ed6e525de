"""Process-wide state across the runs of one exploration (issue 21): a
primitive a run made and left in process-wide state (a logging handler's
lock) is not left held by a thread the run gave up on, and ``logging``'s
loggers and handlers are put back as they were before the first run after
every run, so that each run starts alike."""

from __future__ import annotations

import io
import logging
import logging.config
import sys
import unittest
import unittest.mock
from collections.abc import Callable
from typing import Any

import blanket
from blanket import Scenario, quiet
from blanket.exploration import reproduce
from blanket.exploration.processwide import Snapshot
from blanket.exploration.run import Option, Run, run_once
from blanket.exploration.tried import untried
from blanket.exploration.unseen import Unseen

from .support import quiet_thread_errors

BOUND = 5.0  # every wait of these tests ends well within it

#: Primitives kept from one run to the next, as a process-wide registry
#: keeps them (logging's handlers, with their locks).
KEPT: list[Any] = []


def keeps_a_lock(scenario: Scenario) -> None:
    """The first run makes a lock the module keeps; every run's thread
    takes it and gives it back."""
    if not KEPT:
        KEPT.append(scenario.Lock())
    lock = KEPT[0]

    def section() -> None:
        with lock:
            pass

    scenario.thread(section)


def cut_at_a_release(depth: int, options: list[Option], run: Run) -> int | None:
    """Go on until the first call is a release: cut the run short there."""
    return None if options[0].tx.spec.name == "release" else 0


class AThreadGivenUpOn(unittest.TestCase):
    def setUp(self) -> None:
        KEPT.clear()

    def test_parked_at_a_release_gives_the_lock_back(self) -> None:
        # Before: the run cut short with the thread parked at the release
        # left the lock held by a thread that had ended, and the next run,
        # meeting it, waited for it for ever ("stuck, with nothing left to
        # wake them").
        run = run_once(keeps_a_lock, "kept", BOUND, cut_at_a_release, Unseen(), set())
        self.assertTrue(run.redundant)
        self.assertEqual([step.call for step in run.steps], ["Lock.acquire"])
        self.assertFalse(KEPT[0].locked())
        result = blanket.explore(keeps_a_lock, timeout=BOUND)
        self.assertTrue(result.exhausted, result)
        self.assertIsNone(result.failure)


class Logging(unittest.TestCase):
    """The standard library's ``logging`` watched (``scenario.instrument``):
    its module lock and its handlers' locks are the runs' primitives."""

    def explore(self, setup: Callable[[Scenario], Any], **options: Any
                ) -> blanket.Exploration:
        with quiet_thread_errors():
            return blanket.explore(setup, timeout=BOUND, **options)

    def test_threads_log_through_a_handler_the_setup_adds(self) -> None:
        def setup(scenario: Scenario) -> Callable[[], None]:
            scenario.instrument(logging)
            stream = io.StringIO()
            logger = logging.getLogger("blanket-tests.handler")
            logger.addHandler(logging.StreamHandler(stream))
            logger.setLevel(logging.INFO)
            logger.propagate = False

            def work(tag: str) -> None:
                logger.info("line %s", tag)

            scenario.thread(work, "A")
            scenario.thread(work, "B")

            def both_logged() -> None:
                assert sorted(stream.getvalue().splitlines()) == ["line A", "line B"]
            return both_logged

        # Before: every run added one more handler to the logger (a run of
        # n handlers takes 2n steps): the search never ended.
        result = self.explore(setup, max_schedules=1000)
        # 8 orders on 3.11, 222 on 3.13t (whose logging takes more steps, and
        # races on more of the state now that the code it calls is watched).
        self.assertTrue(result.exhausted, result)
        self.assertIsNone(result.failure)

    def test_dict_config_racing_in_the_threads(self) -> None:
        # Before: each run's dictConfig shut down the handlers an earlier run
        # had left in logging (one with its lock held by a thread the run had
        # given up on: a deadlock; then, as many as that run's order had left:
        # "the scenario is not deterministic"), from the sixth run on.
        def setup(scenario: Scenario) -> None:
            scenario.instrument(logging, logging.config)
            streams = io.StringIO(), io.StringIO()

            def configure(number: int) -> None:
                logging.config.dictConfig({
                    "version": 1, "disable_existing_loggers": False,
                    "handlers": {"mem": {"class": "logging.StreamHandler",
                                         "stream": streams[number]}},
                    "loggers": {"blanket-tests.config": {
                        "handlers": ["mem"], "level": "INFO", "propagate": False}}})
                logging.getLogger("blanket-tests.config").info("line %d", number)

            scenario.thread(configure, 0)
            scenario.thread(configure, 1)

        before = logging.getLogger("blanket-tests.config").handlers[:]
        result = self.explore(setup, max_schedules=40)
        self.assertIsNone(result.failure, result)
        self.assertEqual(result.count, 40)  # of 644 orders (with 36 data races watched)
        # And logging is as it was before the search.
        self.assertEqual(logging.getLogger("blanket-tests.config").handlers, before)


#: A logger of the module's own: its cache of levels is process-wide.
LOGGER = logging.getLogger("blanket.tests.process_state")


class LogsAsItEnters:
    """A counter whose ``__enter__`` (called by C code: met unwatched by a
    run's first pass) asks a logger whether it is enabled, which fills the
    logger's cache under logging's lock; ``__exit__`` counts, unlocked."""

    def __init__(self) -> None:
        self.count = 0

    def __enter__(self) -> LogsAsItEnters:
        LOGGER.isEnabledFor(logging.DEBUG)
        return self

    def __exit__(self, *exc: object) -> None:
        seen = self.count
        self.count = seen + 1


def counts_as_it_logs(scenario: Scenario) -> Callable[[], None]:
    counted = LogsAsItEnters()

    def work() -> None:
        with counted:
            pass

    scenario.thread(work)
    scenario.thread(work)

    def invariant() -> None:
        assert counted.count == 2, counted.count
    return invariant


class TheReplay(unittest.TestCase):
    def test_each_run_starts_from_logging_s_state_as_the_search_s_did(self) -> None:
        # Before: "blanket could not write a test that fails": the replay's
        # first run (which met __enter__ unwatched) filled the logger's
        # cache, and the next had no write of it at the schedule's step 3
        # (peewee 3.16.1's atomic decorator, issue 2709, logs so).
        LOGGER._cache.clear()  # type: ignore[attr-defined]
        with untried():  # the search's own schedule, unshrunk: the cache's write in it
            result = blanket.explore(counts_as_it_logs, timeout=BOUND)
        assert result.failure is not None, result
        self.assertIn("write dict at logging/__init__.py:", "; ".join(
            map(str, result.failure.schedule)))
        LOGGER._cache.clear()  # type: ignore[attr-defined]
        replayed = reproduce.replay(
            counts_as_it_logs, result.failure.schedule, timeout=BOUND)
        self.assertIsNone(replayed.diverged, replayed)
        self.assertEqual(replayed.failure[0] if replayed.failure else None, "invariant")
        # The test written for the shrunk schedule fails as the search's run did.
        LOGGER._cache.clear()  # type: ignore[attr-defined]
        result = blanket.explore(counts_as_it_logs, timeout=BOUND)
        assert result.failure is not None, result
        self.assertTrue(result.failure.checked.startswith("tried:"), result.failure)


class TheSnapshot(unittest.TestCase):
    def test_it_puts_logging_back_as_it_was(self) -> None:
        logger = logging.getLogger("blanket-tests.snapshot")
        handler = logging.StreamHandler(io.StringIO())
        handler.set_name("blanket-tests.snapshot")
        logger.addHandler(handler)
        handlers = logger.handlers
        self.addCleanup(logger.removeHandler, handler)
        snapshot = Snapshot()
        # What a run may do: configure, add loggers, handlers, attributes.
        logger.removeHandler(handler)
        logger.addHandler(logging.StreamHandler(io.StringIO()))
        logger.setLevel(logging.ERROR)
        logger.extra = "a run's"  # type: ignore[attr-defined]
        handler.setLevel(logging.ERROR)
        logging.getLogger("blanket-tests.snapshot.made-in-a-run")
        logging.addLevelName(77, "BLANKET-TESTS")
        del logging._handlers["blanket-tests.snapshot"]
        logging.blanket_tests = True  # type: ignore[attr-defined]
        self.addCleanup(delattr, logging, "blanket_tests")
        snapshot.restore()
        self.assertIs(logger.handlers, handlers)  # the same list, in place
        self.assertEqual(logger.handlers, [handler])
        self.assertEqual((logger.level, handler.level), (logging.NOTSET, logging.NOTSET))
        self.assertFalse(hasattr(logger, "extra"))
        self.assertNotIn("blanket-tests.snapshot.made-in-a-run", logging.Logger.manager.loggerDict)
        self.assertEqual(logging.getLevelName(77), "Level 77")
        self.assertIs(logging._handlers["blanket-tests.snapshot"], handler)
        self.assertTrue(logging.blanket_tests)  # type: ignore[attr-defined] # a new name stays

    def test_the_pools_quiet_filter_a_run_added_stays(self) -> None:
        # A thread given up on adds it as it unwinds, maybe while the
        # snapshot is put back: it stays, else a pool's worker still
        # unwinding logged its Abandoned (seen in the coverage pass).
        import concurrent.futures  # noqa: F401, PLC0415 - quiet_pools needs it imported
        pools = logging.getLogger(quiet.POOL_LOGGER)
        pools.removeFilter(quiet.not_given_up)
        self.addCleanup(pools.addFilter, quiet.not_given_up)
        snapshot = Snapshot()
        quiet.quiet_pools()
        pools.addFilter(len)  # a run's own filter goes
        snapshot.restore()
        self.assertEqual(pools.filters, [quiet.not_given_up])

    def test_nothing_without_logging(self) -> None:
        with unittest.mock.patch.dict(sys.modules, {"logging": None}):
            snapshot = Snapshot()
        logger = logging.getLogger("blanket-tests.snapshot")
        logger.setLevel(logging.ERROR)
        self.addCleanup(logger.setLevel, logging.NOTSET)
        snapshot.restore()
        self.assertEqual(logger.level, logging.ERROR)


if __name__ == "__main__":  # pragma: no cover
    unittest.main()

"""The README's scripts and the tutorial's pages as stress scenarios.

Each scenario runs the documented code itself (read from README.md and
docs/, so it cannot drift from what users read) and returns what one run
did: the output the code printed (a doctest example that does not print what
the page says raises), and the log of every scenario that ran, one entry per
transaction with its thread, primitive, method, final state and result.
``python -m stress`` compares every later run with the first.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import re
import threading
import unittest
from collections.abc import Callable, Iterator, Set
from pathlib import Path

import blanket
from blanket.progress import name_of

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

#: The tutorial, in the order docs/index.rst lists it.
TUTORIAL = ("quickstart.rst", "tutorial/low-level.rst", "tutorial/middle-level.rst",
            "tutorial/high-level.rst", "testcase.rst")

#: As tests/test_docs_examples.py runs the pages: reprs carry ids and times.
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

_DEFAULT_NAME = re.compile(r"^Thread-(\d+)")


def _entries(scenario: blanket.Scenario) -> list[str]:
    """The scenario's log, one line per transaction. Threads named by
    ``threading`` ("Thread-7 (worker)") get their rank among this
    scenario's such threads instead: the counter depends on what ran before."""
    log = list(scenario.log)
    numbers = sorted({int(match[1]) for tx in log
                      if (match := _DEFAULT_NAME.match(tx.thread.name))})
    rank = {number: n for n, number in enumerate(numbers, 1)}

    def thread(t: threading.Thread) -> str:
        match = _DEFAULT_NAME.match(t.name)
        return t.name if match is None else _DEFAULT_NAME.sub(
            f"Thread-#{rank[int(match[1])]}", t.name)

    return [f"{thread(tx.thread)} {name_of(tx.primitive)} {tx.spec.kind}.{tx.spec.name} "
            f"{tx.state.name} {tx.result!r}" for tx in log]


@contextlib.contextmanager
def _recording(floating: Set[str] = frozenset()) -> Iterator[list[str]]:
    """Record the log of every scenario that exits meanwhile (the log is
    reset on the next entry, so it is read at each exit); *floating*
    entries are listed apart, sorted."""
    logs: list[str] = []
    original = blanket.Scenario.__exit__

    def exit_and_record(scenario: blanket.Scenario, *exc_info: object) -> None:
        scripted = len(scenario.log)
        try:
            original(scenario, *exc_info)  # type: ignore[arg-type]
        finally:
            # A default name ("Scenario 12") counts the scenarios made before.
            name = re.sub(r"^Scenario \d+$", "Scenario #", scenario.name)
            logs.append(f"-- scenario {name!r}")
            entries = _entries(scenario)
            # Abandoning stuck threads (explore tears a deadlocked or covered
            # run down so) lets them all go at once: no script orders their
            # unwinding, before or after the exit.
            abandoned = sorted(entry for entry in entries if " RAISED Abandoned(" in entry)
            unordered = sorted(entry for entry in entries if entry in floating)
            apart = set(abandoned) | set(unordered)
            logs.extend(entry for entry in entries[:scripted] if entry not in apart)
            # Calls still parked at the exit finish natively, in whatever
            # order the threads run: which ones is fixed, their order is not.
            # After an exit by an exception (a script refused) not even which:
            # a thread may not have reached its first call yet.
            after = sorted(entry for entry in entries[scripted:] if entry not in apart)
            if exc_info and exc_info[0] is not None:
                logs.append(f"-- exited by {getattr(exc_info[0], '__name__', exc_info[0])}; "
                            "what finished after it is not compared")
                after = []
            for title, group in (("finished after the exit", after),
                                 ("abandoned", abandoned),
                                 ("finished at a place the script does not fix", unordered)):
                if group:
                    logs.append(f"-- {title}, in any order:")
                    logs.extend(group)

    blanket.Scenario.__exit__ = exit_and_record  # type: ignore[method-assign]
    try:
        yield logs
    finally:
        blanket.Scenario.__exit__ = original  # type: ignore[method-assign]


def _readme_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, re.S)


def _readme_script(kind: str) -> str:
    """The README's first example, its ``with scenario:`` block replaced by
    the middle- or high-level one for those *kind*s."""
    blocks = _readme_blocks()
    first = blocks[0]
    if kind == "low":
        return first
    [replacement] = [block for block in blocks if f"# {kind} level" in block]
    return first[:first.index("with scenario:")] + replacement


def _run_script(source: str, name: str) -> list[str]:
    output = io.StringIO()
    with _recording() as logs, contextlib.redirect_stdout(output):
        exec(compile(source, name, "exec"), {"__name__": name})  # noqa: S102
    return output.getvalue().splitlines() + logs


def readme_script(kind: str) -> Callable[[], list[str]]:
    """The README's example with its low-, middle- or high-level script."""
    source = _readme_script(kind)
    return lambda: _run_script(source, f"README ({kind} level)")


def readme_exploration() -> list[str]:
    """The README's exploration, printing the test that replays the deadlock."""
    [block] = [block for block in _readme_blocks() if "blanket.explore" in block]
    return _run_script("import blanket\n" + block, "README (exploration)")


def readme_testcase() -> list[str]:
    """The README's ScenarioTestCase, run by unittest."""
    from tests import test_readme_testcase
    suite = unittest.defaultTestLoader.loadTestsFromModule(test_readme_testcase)
    result = unittest.TestResult()
    with _recording() as logs:
        suite.run(result)
    problems = [text for _, text in result.failures + result.errors]
    if problems or not result.testsRun:
        raise AssertionError("\n".join(problems) or "no test ran")
    return [f"ran {result.testsRun}", *logs]


#: Log entries whose place a page says is not fixed (a call the script lets
#: finish at the same moment as another, and never waits for): they are
#: compared as a set, not by their place.
FLOATING: dict[str, set[str]] = {
    # "A's release and B's acquire finished at about the same moment".
    "tutorial/low-level.rst": {"A Lock 1 Lock.release RETURNED None"},
    # The Dispatch example drives both threads to their end side by side.
    "tutorial/middle-level.rst": {"setter Event 1 Event.set RETURNED None",
                                  "waiter Event 1 Event.wait RETURNED True"},
}


def doc_page(page: str) -> Callable[[], list[str]]:
    """The ``>>>`` examples of *page* (under docs/), in order, in a fresh namespace."""
    path = DOCS / page
    text = path.read_text(encoding="utf-8")
    examples = doctest.DocTestParser().get_examples(text, str(path))

    def run() -> list[str]:
        test = doctest.DocTest(examples, {"__name__": page}, page, str(path), 0, text)
        runner = doctest.DocTestRunner(optionflags=OPTIONS)
        report = io.StringIO()
        with _recording(FLOATING.get(page, set())) as logs:
            outcome = runner.run(test, out=report.write, clear_globs=True)
        if outcome.failed:
            raise AssertionError(report.getvalue())
        return [f"{outcome.attempted} examples", *logs]
    return run


#: name -> scenario; the order every run must give is the first run's.
DOC_SCENARIOS: dict[str, Callable[[], list[str]]] = {
    "readme_low_level": readme_script("low"),
    "readme_middle_level": readme_script("middle"),
    "readme_high_level": readme_script("high"),
    "readme_testcase": readme_testcase,
    "readme_exploration": readme_exploration,
    **{f"docs/{page}": doc_page(page) for page in TUTORIAL},
}

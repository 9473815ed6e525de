"""Run blanket's test suite: ``python -m tests [-j N] [--typeguard] [-v] [-k PATTERN ...]``.

``make test`` runs every module twice at the same time: under coverage
(``python -m coverage run -p -m tests -j 0 --typeguard-beside``, then
``coverage combine``) in half the workers, and with typeguard in the other
half: before anything imports :mod:`blanket`, typeguard's import hook is
installed for it, so every annotated function of the package has its
argument and return types checked while the tests run. (Not both in one
process: the hook's inserted checks carry line numbers that make coverage
report branches the source does not have.) ``--typeguard`` alone runs the
suite with typeguard only. Discovery runs over ``tests/test*.py`` with the
repository root as the top-level directory.

With ``-j N`` the test modules are shared out among N worker processes at
a time (0: one per core this process may use), each given the next module
of its pass as soon as it is done with one, the biggest modules first. A
worker that has run modules for :data:`RECYCLE` seconds, or whose pass has
none left, ends, and a fresh one takes its place, for the pass with the
most modules left per worker. A worker runs under
coverage when this process does (``coverage run -p``: each writes a data
file of its own, for ``coverage combine``), and with typeguard when asked.
Each module is bounded (:data:`MODULE_BOUND` seconds): past it, the worker
prints the stack of every thread it has and is stopped, and the module is
reported as hung. Modules print nothing until they are done; then one line
each, counted (``[12/202] tests.test_races (typeguard): 31 tests, ok``),
and what unittest said in full when one of their tests failed.

Options:
  -j N            run the modules in N worker processes (0: one per core)
  --typeguard     check blanket's annotations while the tests run
  --typeguard-beside
                  with -j: run every module a second time, with typeguard
                  and not under coverage, in half the workers, meanwhile
  -v, --verbose   one line per test instead of dots
  -k PATTERN      only run tests whose name matches PATTERN (may repeat;
                  a pattern without ``*`` matches as a substring, as with
                  ``python -m unittest -k``)

Exits non-zero when any test fails or errors.  The last line is a plain
summary, ``tests: N passed, N failed, N skipped``.
"""

from __future__ import annotations

import argparse
import collections.abc
import faulthandler
import io
import json
import os
import selectors
import subprocess
import sys
import time
import types
import typing
import unittest
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: How long one test module may run in a worker, in seconds, before the
#: worker dumps its threads' stacks and is stopped.
MODULE_BOUND = 1800

#: How long a worker runs modules, in seconds, before it is replaced by a
#: fresh process (the next module it would have run goes to the new one).
RECYCLE = 30.0


def _loader(patterns: list[str]) -> unittest.TestLoader:
    loader = unittest.TestLoader()
    if patterns:
        loader.testNamePatterns = [p if "*" in p else f"*{p}*" for p in patterns]
    return loader


def _install_typeguard() -> None:
    # The hook only instruments modules imported after it is installed.
    if "blanket" in sys.modules:
        sys.exit("tests: blanket was imported before typeguard's import hook was installed")
    import typeguard  # noqa: PLC0415 - a development tool, needed only here

    typeguard.install_import_hook("blanket")
    typeguard.checker_lookup_functions.insert(0, _remembered_lookups(typeguard))


# The lookup runs inside blanket's checked functions, in the threads an
# exploration manages: compiled as typeguard's own code (which it stands in
# for), so that the search takes it for the library code it is, not for the
# code under test.
_REMEMBERED_LOOKUPS = """
def remembered_lookups(typeguard, others):
    remembered = {}

    def callable_only(value, origin, args, memo):
        if not callable(value):
            raise typeguard.TypeCheckError("is not callable")

    def instance_of(value, origin, args, memo):
        # (what check_type_internal does for a class no lookup knows)
        if not isinstance(value, origin):
            raise typeguard.TypeCheckError(
                f"is not an instance of {origin.__module__}.{origin.__qualname__}")

    def lookup(origin, args, extras):
        # (Callable[[int], str]'s argument list is unhashable: a tuple in the key)
        key = (origin, tuple(tuple(a) if type(a) is list else a for a in args), extras)
        try:
            return remembered[key]
        except KeyError:
            pass
        except TypeError:  # (unhashable all the same)
            return None
        if origin is Callable and args[:1] == (Ellipsis,):
            checker = callable_only
        elif origin is Callable and args and type(args[0]) is list:
            checker = signature_remembered(
                next(filter(None, (other(origin, args, extras) for other in others))),
                len(args[0]))
        else:
            checker = next(filter(None, (other(origin, args, extras) for other in others)),
                           None)
            if checker is None and isinstance(origin, type):
                checker = instance_of
            elif origin in UNIONS and checker is not None:
                checker = union_of(checker, args)
        remembered[key] = checker
        return checker

    def signature_remembered(checker, count):
        # A plain function's signature, all typeguard checks of it against
        # Callable[[...], R], follows from its code, the number of its
        # defaults and the names of its keyword-only ones: a function (or
        # a method of one) made again from the same code is not looked at
        # again (inspect.signature took 40 us a call).
        passed = {}

        def check(value, origin, args, memo):
            kind = type(value)
            function = value.__func__ if kind is MethodType else value
            if type(function) is not FunctionType or (
                    "__wrapped__" in function.__dict__ or "__signature__" in function.__dict__):
                checker(value, origin, args, memo)
                return
            # (by the code's id, the code kept alive beside: blanket's
            # rewritten code has constants no hash takes)
            code = function.__code__
            key = (kind, id(code), len(function.__defaults__ or ()),
                   tuple(function.__kwdefaults__ or ()), count)
            if key not in passed:
                checker(value, origin, args, memo)
                passed[key] = code
        return check

    def union_of(checker, members):
        # A value of one of the plain classes passes at once; else the
        # union's checker tries each member (raising, and naming, for each
        # it does not match: 70 us for a None given as Callable | None).
        plain = tuple(member for member in members if type(member) is type)

        def check(value, origin, args, memo):
            if not isinstance(value, plain):
                checker(value, origin, args, memo)
        return check

    return lookup
"""


def _remembered_lookups(typeguard: Any) -> Callable[[Any, tuple[Any, ...], tuple[Any, ...]],
                                                    Any]:
    """A checker lookup for typeguard to ask first: the checker the
    others give for an annotation, remembered (their answer depends on the
    annotation alone, and finding it took most of a check's time: a
    subclass test against ``typing.Tuple``, a protocol's, a TypedDict's
    for every ``int``); and for ``Callable[..., R]`` a test of
    ``callable()`` only, which is all typeguard checks of it (it computed
    the callable's signature first, 100 us a call, to leave it unused).
    A union lets a value of one of its plain classes (``None`` too) pass
    before its members are tried one by one. The checks made are the same."""
    scope: dict[str, Any] = {"Callable": collections.abc.Callable,
                             "FunctionType": types.FunctionType,
                             "MethodType": types.MethodType,
                             "UNIONS": (typing.Union, types.UnionType)}
    exec(compile(_REMEMBERED_LOOKUPS, typeguard.__file__, "exec"), scope)  # noqa: S102
    return scope["remembered_lookups"](typeguard, list(typeguard.checker_lookup_functions))


def _summary(run: int, failed: int, skipped: int) -> str:
    passed = max(run - failed - skipped, 0)
    return f"tests: {passed} passed, {failed} failed, {skipped} skipped"


def _in_one_process(args: argparse.Namespace) -> int:
    suite = _loader(args.patterns).discover(
        start_dir=str(ROOT / "tests"), pattern="test*.py", top_level_dir=str(ROOT))
    result = unittest.TextTestRunner(verbosity=2 if args.verbose else 1).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    print(_summary(result.testsRun, failed, len(result.skipped)), file=sys.stderr)
    return int(not result.wasSuccessful())


def _gist(output: str) -> list[str]:
    """Each failed test of a module's unittest *output*, in one line: its
    ``FAIL:``/``ERROR:`` header and the last line of its traceback (what
    the end of a long log, all a CI page may show, still tells)."""
    gist = []
    for block in output.split("=" * 70)[1:]:
        text = block.split("-" * 70)
        header = text[0].strip()
        lines = [line for line in (text[1] if len(text) > 1 else "").splitlines() if line.strip()]
        gist.append(f"  {header}: {lines[-1].strip() if lines else '?'}")
    return gist


def _work(args: argparse.Namespace) -> int:
    """A worker: run each module named on the command pipe, and write what
    it did as one line of JSON on the result pipe."""
    commands, results = (int(fd) for fd in args.worker.split(","))
    os.set_inheritable(commands, False)  # the tests' own processes must not hold them
    os.set_inheritable(results, False)
    loader = _loader(args.patterns)
    with open(commands) as inbox, open(results, "w") as outbox:
        for line in inbox:
            name = line.strip()
            stream = io.StringIO()
            started = time.perf_counter()
            # A module that hangs: every thread's stack on stderr, then exit.
            faulthandler.dump_traceback_later(MODULE_BOUND, exit=True)
            try:
                suite = loader.loadTestsFromName(name)
                result = unittest.TextTestRunner(
                    stream=stream, verbosity=2 if args.verbose else 1).run(suite)
            finally:
                faulthandler.cancel_dump_traceback_later()
            failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
            outbox.write(json.dumps({
                "module": name, "run": result.testsRun, "failed": failed,
                "skipped": len(result.skipped), "seconds": time.perf_counter() - started,
                "output": stream.getvalue()}) + "\n")
            outbox.flush()
    return 0


def _modules() -> list[str]:
    """The test modules, the longest first, so that none of the long ones
    starts last: by the seconds ``tests/durations.txt`` gives each (a module
    it does not name first of all, the biggest file first)."""
    durations: dict[str, float] = {}
    for line in (ROOT / "tests" / "durations.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            seconds, name = line.split()
            durations[name] = float(seconds)
    files = sorted((ROOT / "tests").glob("test*.py"),
                   key=lambda f: (f.stem in durations, -durations.get(f.stem, 0.0),
                                  -f.stat().st_size, f.name))
    return [f"tests.{f.stem}" for f in files]


def _under_coverage() -> bool:
    coverage = sys.modules.get("coverage")
    return coverage is not None and coverage.Coverage.current() is not None


@dataclass
class _Pass:
    """One pass over the modules: the worker flags it runs them with, the
    label its lines carry, whether its workers run under coverage, and the
    modules it has yet to give out."""

    flags: list[str]
    label: str
    covered: bool
    waiting: deque[str]


class _Worker:
    """A worker process of *run* (a pass) and the two pipes the runner
    talks to it by."""

    def __init__(self, run: _Pass) -> None:
        self.run = run
        commands_in, self.commands = os.pipe()
        self.results, results_out = os.pipe()
        prefix = (["-m", "coverage", "run", "--parallel-mode"]
                  if run.covered and _under_coverage() else [])
        self.process = subprocess.Popen(  # noqa: S603 - this interpreter, our own module
            [sys.executable, *prefix, "-m", "tests", "--worker",
             f"{commands_in},{results_out}", *run.flags],
            cwd=ROOT, stdin=subprocess.DEVNULL, pass_fds=(commands_in, results_out))
        os.close(commands_in)
        os.close(results_out)
        self.inbox = os.fdopen(self.results)
        self.module: str | None = None
        self.started = 0.0
        self.busy = 0.0  # seconds spent running modules

    def give(self, module: str | None) -> None:
        """Send the next *module*, or (``None``) tell the worker to end."""
        self.module = module
        if module is None:
            os.close(self.commands)
        else:
            self.started = time.perf_counter()
            os.write(self.commands, f"{module}\n".encode())


def _passes(args: argparse.Namespace) -> tuple[int, list[_Pass]]:
    """How many workers run at once, and the passes they share out: every
    module once; with ``--typeguard-beside``, every module a second time,
    with typeguard and not under coverage."""
    jobs = args.jobs or len(os.sched_getaffinity(0))
    flags = [*(["--typeguard"] if args.typeguard else []), *(["-v"] if args.verbose else []),
             *(f"-k{pattern}" for pattern in args.patterns)]
    passes = [_Pass(flags, "", True, deque(_modules()))]
    if args.typeguard_beside:
        passes.append(_Pass([*flags, "--typeguard"], " (typeguard)", False, deque(_modules())))
    return jobs, passes


def _next_worker(passes: list[_Pass], busy: dict[int, int]) -> _Worker | None:
    """A new worker for the pass with the most modules left per worker
    running it (*busy*: workers per pass, by id), given its first module;
    ``None`` when no module is left."""
    left = [run for run in passes if run.waiting]
    if not left:
        return None
    run = max(left, key=lambda r: len(r.waiting) / (1 + busy.get(id(r), 0)))
    worker = _Worker(run)
    worker.give(run.waiting.popleft())
    return worker


def _in_workers(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    run = failed = skipped = 0
    broken: list[str] = []
    gists: list[str] = []
    timings: list[tuple[float, str]] = []
    jobs, passes = _passes(args)
    total = sum(len(one.waiting) for one in passes)
    busy: dict[int, int] = {}
    workers: list[_Worker] = []
    with selectors.DefaultSelector() as selector:

        def start() -> None:
            worker = _next_worker(passes, busy)
            if worker is not None:
                workers.append(worker)
                busy[id(worker.run)] = busy.get(id(worker.run), 0) + 1
                selector.register(worker.inbox, selectors.EVENT_READ, worker)

        for _ in range(jobs):
            start()
        while selector.get_map():
            for key, _ in selector.select():
                worker = key.data
                line = worker.inbox.readline()
                if not line:  # the worker ended, while running a module or told to
                    selector.unregister(worker.inbox)
                    busy[id(worker.run)] -= 1
                    if worker.module is not None:
                        status = worker.process.wait()
                        broken.append(worker.module + worker.run.label)
                        print(f"{worker.module}: its worker ended (exit status {status}) "
                              f"after {time.perf_counter() - worker.started:.0f} s; "
                              "see its output above", flush=True)
                    start()
                    continue
                done = json.loads(line)
                module = done["module"] + worker.run.label
                run += done["run"]
                failed += done["failed"]
                skipped += done["skipped"]
                timings.append((done["seconds"], module))
                worker.busy += done["seconds"]
                verdict = "FAILED" if done["failed"] else "ok"
                if done["run"] or done["failed"]:  # (-k leaves some modules empty)
                    print(f"[{len(timings)}/{total}] {module}: {done['run']} tests, {verdict} "
                          f"({done['seconds']:.1f} s)", flush=True)
                if done["failed"] or args.verbose:
                    print(done["output"], flush=True)
                if done["failed"]:
                    broken.append(module)
                    gists.extend(_gist(done["output"]))
                # A worker is replaced once it has run for RECYCLE seconds
                # (what the tests leave in a process slowed later modules:
                # 38 s for test_linearizability under coverage in a fresh
                # process, 289 s in one that had run 130 modules), or when
                # its pass has no module left (a worker of the other pass
                # takes the core).
                keep = worker.run.waiting and worker.busy < RECYCLE
                worker.give(worker.run.waiting.popleft() if keep else None)
    statuses = [worker.process.wait() for worker in workers]
    for worker in workers:
        worker.inbox.close()
    slowest = ", ".join(f"{name.removeprefix('tests.')} {seconds:.0f} s"
                        for seconds, name in sorted(timings, reverse=True)[:5])
    print(f"Ran {run} tests in {time.perf_counter() - started:.1f} s with {jobs} "
          f"workers at a time ({len(workers)} in all); slowest modules: {slowest}")
    if broken:
        print(f"modules that failed: {', '.join(broken)}", *gists, sep="\n")
    print(_summary(run, failed, skipped), file=sys.stderr)
    return int(bool(broken or failed or any(statuses)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests", description=__doc__.splitlines()[0])
    parser.add_argument("-j", dest="jobs", type=int, default=None, metavar="N",
                        help="run the test modules in N worker processes (0: one per core)")
    parser.add_argument("--typeguard", action="store_true",
                        help="check blanket's annotations with typeguard")
    parser.add_argument("--typeguard-beside", action="store_true",
                        help="with -j: also run every module with typeguard (not under "
                             "coverage), in half the workers, at the same time")
    parser.add_argument("-v", "--verbose", action="store_true", help="verbose output")
    parser.add_argument(
        "-k",
        dest="patterns",
        action="append",
        default=[],
        metavar="PATTERN",
        help="only run tests matching PATTERN (repeatable)",
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.jobs is not None and args.jobs < 0:
        parser.error("-j: the number of workers is 0 (one per core) or more")
    if args.typeguard_beside and (args.jobs is None or args.typeguard):
        parser.error("--typeguard-beside runs in workers beside the others: give -j, "
                     "not --typeguard")
    if args.worker is not None:
        if args.typeguard:
            _install_typeguard()
        return _work(args)
    if args.jobs is not None:
        return _in_workers(args)
    if args.typeguard:
        _install_typeguard()
    return _in_one_process(args)


if __name__ == "__main__":
    sys.exit(main())

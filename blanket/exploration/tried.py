"""The written tests tried the way their user will run them, before they
are handed over.

A failure's test (:attr:`Failure.source <blanket.Failure.source>`) is a
claim: "this fails while the bug is there". The search made it from what
its own runs saw, so re-running the search's code proves nothing: it is
written to a file and run by ``python -m unittest`` in a fresh interpreter
(the same one, with this process's import path and working directory), as
a user who pastes it into a test folder runs it. It must fail, with the
failure the search found (its kind and its last line). A test written for
a line reached (``reach=``) must pass.

What the try says is kept on the result as a sentence
(:attr:`Failure.checked <blanket.Failure.checked>`); a failure's test that
passes when run so is never handed over as a test: its source becomes a
comment that says what happened, with the test it would have been.

A test whose setup has no name to import it by (a lambda, a nested
function, a callable object) cannot be run elsewhere: it is not tried, and
the sentence says so. In the fresh interpreter the variable
:data:`TRYING` is set, so that an exploration there (a script's top level
run again by the test's import) does not try tests of its own.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

#: Set in the environment of the interpreter that runs a written test.
TRYING = "BLANKET_TRYING_A_WRITTEN_TEST"

#: The test module's name in its folder.
_MODULE = "test_blanket_written"

#: An import of the setup in a written test (``from pkg.tests import setup``).
_IMPORT = re.compile(r"^from \S+ import \w+$", re.MULTILINE)

#: How a test is run, as the sentences say.
HOW = "python -m unittest, in a fresh interpreter"

#: What unittest says of a test module that did not import.
_NOT_IMPORTED = "unittest.loader._FailedTest"

#: What differs between a search's report of a failure and its replay's:
#: an object's id (``0X7F...``: another in another process), and the
#: scenario's name (the setup's; the test method's).
_DIFFERS = re.compile(r"0x[0-9a-f]+|(?<=scenario )'[^']*'", re.IGNORECASE)

#: How much of the run's output a sentence quotes.
_QUOTED = 12


#: Set while a search made of many explorations (``check_linearizable``'s)
#: runs them: it hands over tests of its own, not theirs.
_UNTRIED: contextvars.ContextVar[bool] = contextvars.ContextVar("blanket_untried",
                                                                default=False)


@contextlib.contextmanager
def untried() -> Iterator[None]:
    """Within it, the explorations the calling thread makes try no test."""
    token = _UNTRIED.set(True)
    try:
        yield
    finally:
        _UNTRIED.reset(token)


def trying() -> bool:
    """Whether the tests of an exploration are not to be tried here: this
    interpreter runs a written test for another one, or the exploration
    is part of a larger search (:func:`untried`)."""
    return bool(os.environ.get(TRYING)) or _UNTRIED.get()


def _import_path() -> str:
    """This process's import path, for the fresh interpreter: the working
    directory stands for the empty entry."""
    return os.pathsep.join(entry or os.getcwd() for entry in sys.path)


def run_test(source: str, bound: float) -> tuple[int | None, str]:
    """Run *source* as a test module under ``python -m unittest`` in a fresh
    interpreter, for at most *bound* seconds: its exit status (``None`` if
    it ran past the bound and was killed, with nothing printed) and what it
    printed."""
    with tempfile.TemporaryDirectory(prefix="blanket-test-") as folder:
        Path(folder, f"{_MODULE}.py").write_text(source)
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join((folder, _import_path())))
        environment[TRYING] = "1"
        environment.pop("PYTHONSTARTUP", None)
        try:
            done = subprocess.run(  # noqa: S603 - this interpreter, a file of ours
                [sys.executable, "-m", "unittest", _MODULE], cwd=os.getcwd(),
                env=environment, capture_output=True, text=True, timeout=bound, check=False)
        except subprocess.TimeoutExpired:
            return None, ""
        return done.returncode, done.stdout + done.stderr


def importable(source: str) -> bool:
    """Whether the written test *source* imports its setup (it has a name
    to import it by)."""
    return _IMPORT.search(source) is not None


def _quote(output: str) -> str:
    """The end of a run's *output*, as comment lines."""
    lines = output.strip().splitlines()[-_QUOTED:]
    return "\n".join(f"#   {line}" for line in lines)


def _run(source: str, timeout: float) -> tuple[str | None, int | None, str]:
    """Run the test *source* (see :func:`run_test`) of a search whose waits
    were bounded by *timeout* (so are the replay's: the test may run 30 s
    and six of them): why it did not run to its end (no name to import its
    setup by, an import that failed in the fresh interpreter - a setup
    defined in a doctest, say -, past its bound), or ``None``; its exit
    status and what it printed."""
    bound = 30 + 6 * timeout
    if not importable(source):
        return ("not tried: the setup has no name a test can import it by (see the "
                "test's comments)"), None, ""
    status, output = run_test(source, bound)
    if status is None:
        return f"not tried to its end: the test ran past {bound:.0f} s ({HOW})", None, ""
    if _NOT_IMPORTED in output:
        last = output.split(_NOT_IMPORTED)[-1].strip().splitlines()
        error = next((line for line in last if "Error:" in line), "")
        return (f"not tried: the test did not import in a fresh interpreter ({error})",
                status, output)
    return None, status, output


def try_failure_test(source: str, kind: str, summary: str, timeout: float) -> tuple[str, str]:
    """Try the test *source* written for a failure of *kind* whose last line
    is *summary*, found by a search whose waits were bounded by *timeout*:
    what the try says, and the source to hand over (a comment instead of a
    test that passes). Where ``trying()`` says so, nothing is tried: an
    empty sentence and *source* as it is."""
    if trying():
        return "", source
    why, status, output = _run(source, timeout)
    if why is not None:
        return why, source
    if status == 0:
        said = (f"the test written for it passed when run as a user runs it ({HOW}): "
                "it does not make the failure happen again")
        commented = "\n".join(f"# {line}" if line else "#" for line in source.splitlines())
        return said, (f"# blanket could not write a test that fails for this failure:\n"
                      f"# {said}.\n# What the run printed:\n{_quote(output)}\n"
                      f"# The test it wrote, which passes:\n#\n{commented}\n")
    alike = _DIFFERS.sub("", summary) in _DIFFERS.sub("", output)
    if f"the replay failed: {kind}" in output and alike:
        return f"tried: the test fails as the search's run did ({HOW})", source
    return (f"the test fails when run as a user runs it ({HOW}), but not with the "
            f"failure the search found ({kind}: {summary}):\n{_quote(output)}"), source


def remark(checked: str) -> str:
    """The line a failure's report ends with for what its written test did
    when tried (*checked*): nothing when it failed as it should, was not
    tried (its comments say why) or nothing was said."""
    if not checked or checked.startswith(("tried:", "not tried")):
        return ""
    return f"\nthe written test: {checked}"


def try_reach_test(source: str, timeout: float) -> str:
    """Try the test *source* written for a line reached by a search whose
    waits were bounded by *timeout*: what the try says (it must pass);
    nothing where ``trying()`` says so."""
    if trying():
        return ""
    why, status, output = _run(source, timeout)
    if why is not None:
        return why
    if status == 0:
        return f"tried: the test passes, the line runs ({HOW})"
    return (f"the test fails when run as a user runs it ({HOW}): the line did not run "
            f"so:\n{_quote(output)}")

"""``python -m bench`` runs and prints every figure (tiny iteration counts).

Benchmarks are not tests: nothing here looks at a timing or a verdict, only
that each figure is measured and printed with its target.
"""

from __future__ import annotations

import contextlib
import io
import sys
import unittest

from bench import __main__ as bench_main


def run_bench(*args: str) -> str:
    """What ``python -m bench --scale 0.002 --repeats 1 ARGS`` prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = bench_main.main(["--scale", "0.002", "--repeats", "1", *args])
    assert status == 0
    return out.getvalue()


class Bench(unittest.TestCase):
    """Every figure is printed with its target; blanket 1.0's side by side
    when an interpreter for it is given."""

    printed = ""

    @classmethod
    def setUpClass(cls) -> None:
        # One run for the figures and the column beside them (each run
        # measures every figure: half a minute even at this scale). This
        # interpreter stands in for blanket 1.0's: the same measure.py runs
        # there in a subprocess, and its figures get a column.
        cls.printed = run_bench("--blanket10", sys.executable, "--blanket10-scale", "1")

    def test_every_figure_is_printed_with_its_target(self) -> None:
        for figure in bench_main.FIGURES:
            with self.subTest(figure.label):
                (line,) = [line for line in self.printed.splitlines()
                           if line.startswith(figure.label)]
                if figure.target is not None:
                    self.assertRegex(line, r"(<= \S+|0 B) +(yes|NO) ")
        self.assertRegex(self.printed, "every target met|some targets NOT met")

    def test_another_environment_is_measured_side_by_side(self) -> None:
        self.assertIn("side by side: blanket", self.printed)
        self.assertIn("blanket 1.0", self.printed.splitlines()[3])

    def test_an_environment_that_cannot_run_is_reported(self) -> None:
        theirs, note = bench_main.run_blanket10("/nonexistent/python", 0.002, 1, 60.0)
        self.assertIsNone(theirs)
        self.assertRegex(note, "^could not run /nonexistent/python: ")

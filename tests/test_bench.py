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

    def test_every_figure_is_printed_with_its_target(self) -> None:
        printed = run_bench()
        for figure in bench_main.FIGURES:
            with self.subTest(figure.label):
                (line,) = [line for line in printed.splitlines()
                           if line.startswith(figure.label)]
                if figure.target is not None:
                    self.assertRegex(line, r"(<= \S+|0 B) +(yes|NO)$")
        self.assertRegex(printed, "every target met|some targets NOT met")

    def test_another_environment_is_measured_side_by_side(self) -> None:
        # This interpreter stands in for blanket 1.0's: the same measure.py
        # runs there in a subprocess, and its figures get a column.
        printed = run_bench("--blanket10", sys.executable, "--blanket10-scale", "1")
        self.assertIn("side by side: blanket", printed)
        self.assertIn("blanket 1.0", printed.splitlines()[3])

    def test_an_environment_that_cannot_run_is_reported(self) -> None:
        printed = run_bench("--blanket10", "/nonexistent/python")
        self.assertIn("blanket 1.0: could not run /nonexistent/python", printed)

"""The cookbook (``examples/cookbook``): its tests run as part of the suite,
and every bug in it has its documentation page.

``load_tests`` adds the cookbook's own test modules, discovered with
``examples/`` as their top-level directory (the cookbook is the package
``cookbook`` there), so ``make test`` runs them under coverage and typeguard.
"""

from __future__ import annotations

import importlib
import re
import unittest
from pathlib import Path

import blanket

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
COOKBOOK = EXAMPLES / "cookbook"
DOCS = ROOT / "docs" / "cookbook"

#: A race as a page shows it, its paths shortened to ``.../<bug>/buggy.py``.
SHOWN_RACE = re.compile(r"^ +(\S+: [A-Z]+ (?:reads|writes) at cookbook/.+)$", re.MULTILINE)


def load_tests(loader: unittest.TestLoader, tests: unittest.TestSuite,
               pattern: str | None) -> unittest.TestSuite:
    """This module's tests, then the cookbook's."""
    # A loader of its own: discover() remembers its top-level directory,
    # and the suite's discovery is still going on with another one.
    cookbook = unittest.TestLoader()
    cookbook.testNamePatterns = loader.testNamePatterns
    tests.addTests(cookbook.discover(start_dir=str(COOKBOOK), pattern="test*.py",
                                     top_level_dir=str(EXAMPLES)))
    return tests


def bugs() -> list[Path]:
    """The cookbook's packages, one per bug."""
    return sorted(path for path in COOKBOOK.iterdir()
                  if (path / "__init__.py").is_file())


class CookbookLayout(unittest.TestCase):
    """Each bug: buggy code, fixed code, a test, and a page that shows them."""

    def test_there_are_eight_bugs_at_least(self) -> None:
        self.assertGreaterEqual(len(bugs()), 8)

    def test_each_bug_has_buggy_and_fixed_code_and_a_test(self) -> None:
        for bug in bugs():
            with self.subTest(bug.name):
                for name in ("buggy.py", "fixed.py", f"test_{bug.name}.py"):
                    self.assertTrue((bug / name).is_file(), f"{bug.name}/{name}")

    def test_each_bug_has_a_page_that_includes_its_files(self) -> None:
        index = (DOCS / "index.rst").read_text()
        for bug in bugs():
            with self.subTest(bug.name):
                page = DOCS / f"{bug.name}.rst"
                self.assertTrue(page.is_file(), page)
                text = page.read_text()
                for name in ("buggy.py", "fixed.py", f"test_{bug.name}.py"):
                    self.assertIn(f"examples/cookbook/{bug.name}/{name}", text)
                self.assertIn(f"\n   {bug.name}\n", index)


class CookbookRaces(unittest.TestCase):
    """The races a data-race recipe's page shows, ``file:line`` included, are
    those :func:`blanket.explore` finds in its buggy code (the setup its test
    module names ``BUGGY``)."""

    def test_each_race_shown_is_found(self) -> None:
        pages = 0
        for bug in bugs():
            shown = SHOWN_RACE.findall((DOCS / f"{bug.name}.rst").read_text())
            if not shown:
                continue
            pages += 1
            with self.subTest(bug.name):
                # Imported by the discovery in load_tests, examples/ on the path.
                tests = importlib.import_module(f"cookbook.{bug.name}.test_{bug.name}")
                found = {str(race) for race in blanket.explore(tests.BUGGY).races}
                for race in shown:
                    self.assertIn(race, found)
        self.assertGreaterEqual(pages, 4)

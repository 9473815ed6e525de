"""The examples in the documentation run, so they cannot rot.

Every ``docs/**/*.rst`` page is a doctest file: its ``>>>`` examples run in
order, each page with its own namespace. The README's ScenarioTestCase
example is the one ``tests/test_readme_testcase.py`` runs; a test here checks
the two have not drifted apart.
"""

from __future__ import annotations

import doctest
import re
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

#: Reprs carry ids and times; examples elide them with ``...``.
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def doc_pages() -> list[Path]:
    """Every page of the documentation, in a stable order."""
    return sorted(path for path in DOCS.rglob("*.rst") if "_build" not in path.parts)


def load_tests(loader: unittest.TestLoader, tests: unittest.TestSuite,
               pattern: str | None) -> unittest.TestSuite:
    """The module's own tests, and one doctest case per documentation page."""
    pages = [str(path) for path in doc_pages()]
    tests.addTests(doctest.DocFileSuite(*pages, module_relative=False, optionflags=OPTIONS,
                                        encoding="utf-8"))
    return tests


class DocPages(unittest.TestCase):
    """The doctest suite covers the pages it should."""

    def test_pages_are_found(self) -> None:
        names = {path.relative_to(DOCS).as_posix() for path in doc_pages()}
        self.assertLessEqual({"quickstart.rst", "api.rst", "coming-from-1.0.rst"}, names)

    def test_tutorial_pages_have_examples(self) -> None:
        # A page of the tutorial without a ">>>" would be tested by nothing.
        for path in doc_pages():
            if path.parent.name in ("tutorial", "howto") or path.name == "quickstart.rst":
                with self.subTest(path.name):
                    self.assertIn(">>> ", path.read_text(encoding="utf-8"))


class ReadmeExample(unittest.TestCase):
    """The README's ScenarioTestCase example is the code the test module runs."""

    def test_readme_example_is_tested(self) -> None:
        readme = (ROOT / "README.md").read_text(encoding="utf-8")
        tested = (ROOT / "tests" / "test_readme_testcase.py").read_text(encoding="utf-8")
        blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
        examples = [block for block in blocks if "ScenarioTestCase" in block]
        self.assertEqual(len(examples), 1)
        for line in examples[0].splitlines():
            with self.subTest(line):
                self.assertIn(line, tested.splitlines())

    def test_readme_exploration_example_finds_the_deadlock(self) -> None:
        readme = (ROOT / "README.md").read_text(encoding="utf-8")
        blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
        [example] = [block for block in blocks if "blanket.explore" in block]
        namespace: dict[str, object] = {}
        exec("import blanket\n" + example.replace("print(", "source = ("),  # noqa: S102
             namespace)
        self.assertIn("B holds Lock 2 and waits for Lock 1", str(namespace["result"]))
        self.assertIn("self.replay(transfers, [", str(namespace["source"]))


class DocStressScenarios(unittest.TestCase):
    """``python -m stress`` repeats the README's scripts and the tutorial's
    pages (stress/docs.py); here each runs twice and gives the same record."""

    def test_each_gives_the_same_output_and_log_twice(self) -> None:
        from stress.docs import DOC_SCENARIOS
        for name, scenario in DOC_SCENARIOS.items():
            with self.subTest(name):
                first = scenario()
                self.assertIn("-- scenario", "\n".join(first))
                self.assertEqual(scenario(), first)

    def test_the_record_names_thread_primitive_method_state_and_result(self) -> None:
        from stress.docs import DOC_SCENARIOS
        record = DOC_SCENARIOS["readme_high_level"]()
        self.assertEqual(record[:3], [f"worker {name} got the lock" for name in "BAC"])
        self.assertIn("Thread-#2 (worker) Lock 1 Lock.acquire RETURNED True", record)

    def test_a_page_whose_example_fails_raises(self) -> None:
        from stress import docs
        broken = DOCS / "tutorial" / "broken-for-a-test.rst"
        broken.write_text(">>> 1 + 1\n3\n", encoding="utf-8")
        try:
            run = docs.doc_page("tutorial/broken-for-a-test.rst")
        finally:
            broken.unlink()
        with self.assertRaisesRegex(AssertionError, "Expected:\n    3\nGot:\n    2"):
            run()

"""Every public name of blanket is in the API reference."""

from __future__ import annotations

import re
import unittest
from pathlib import Path

import blanket

API_RST = Path(__file__).resolve().parent.parent / "docs" / "api.rst"


class ApiReference(unittest.TestCase):
    """docs/api.rst documents everything ``blanket.__all__`` exports."""

    def test_every_public_name_is_documented(self) -> None:
        text = API_RST.read_text()
        documented = set(re.findall(r"^\.\. auto\w+:: (?:blanket\.)?(\w+)", text, re.M))
        documented |= set(re.findall(r"^\.\. data:: (\w+)", text, re.M))
        missing = sorted(set(blanket.__all__) - documented)
        self.assertEqual(missing, [])

    def test_every_public_name_has_a_docstring(self) -> None:
        undocumented = [name for name in blanket.__all__
                        if not getattr(blanket, name).__doc__]
        self.assertEqual(undocumented, [])


class ReadmeInstall(unittest.TestCase):
    """The README tells a user how to get this blanket, not PyPI's 1.0, into
    their own project, and which Python ``make`` uses."""

    def test_install_from_a_checkout_or_git(self) -> None:
        readme = (API_RST.parent.parent / "README.md").read_text()
        for command in ("pip install /path/to/blanket", "pip install -e /path/to/blanket",
                        "git+https://", "blanket\n1.0", "make test PYTHON=python3.12",
                        "`python3` from your `PATH`"):
            with self.subTest(command):
                self.assertIn(command, readme)


class Nitpicky(unittest.TestCase):
    """`make docs` fails on a reference that resolves to nothing."""

    def test_sphinx_runs_nitpicky(self) -> None:
        conf = (API_RST.parent / "conf.py").read_text()
        self.assertIn("\nnitpicky = True\n", conf)

    def test_the_testcase_helpers_are_in_the_reference(self) -> None:
        text = API_RST.read_text()
        members = re.search(r"autoclass:: ScenarioTestCase\n   :members: (.*?)\n\n", text, re.S)
        assert members is not None
        for name in ("assertNoDeadlock", "explore", "replay", "worker", "outcome"):
            with self.subTest(name):
                self.assertIn(name, members[1].split(", ") + members[1].split())

"""The article's examples, run once each here (``python -m stress`` repeats them)."""

from __future__ import annotations

import unittest

from stress.scenarios import SCENARIOS


class ArticleExamples(unittest.TestCase):
    """Every stress scenario gives its documented order."""

    def test_each_scenario_gives_its_order(self) -> None:
        for name, (scenario, expected) in SCENARIOS.items():
            with self.subTest(name):
                self.assertEqual(scenario(), expected)

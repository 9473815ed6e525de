"""Sphinx configuration for blanket's documentation (``make docs``)."""

import sys
from pathlib import Path

# Document the package from this checkout, not from an installed copy.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

project = "blanket"
author = "the blanket developers"
copyright = "2026, the blanket developers"
release = "2.0.0.dev0"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sphinx.ext.doctest",
]

autodoc_member_order = "bysource"
exclude_patterns = ["_build"]
html_theme = "alabaster"

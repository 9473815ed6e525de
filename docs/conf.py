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
    "sphinx.ext.viewcode",
    "sphinx.ext.doctest",
]

autodoc_member_order = "bysource"

# Every cross-reference must resolve: an unknown name is a warning, and
# `make docs` turns warnings into errors. Three kinds of names are let
# through, all of them from the type annotations autodoc shows in signatures:
nitpicky = True
nitpick_ignore_regex = [
    # The standard library's: the build is offline, so no intersphinx
    # inventory of docs.python.org to resolve them against.
    (r"py:(class|mod|func|exc|data|meth|obj)",
     r"(threading|collections\.abc|types|time|unittest|enum|inspect|queue|dis|sys)(\..*)?"),
]
nitpick_ignore = [
    # blanket's internals that public signatures mention (the type of a
    # constructor argument users never pass, a context manager's type): not
    # part of the API reference on purpose.
    ("py:class", "ScenarioCore"),
    ("py:class", "blanket.core.ScenarioCore"),
    ("py:class", "CallSpec"),
    ("py:class", "Parker"),
    ("py:class", "blanket.log.Log"),
    ("py:class", "blanket.transaction._Pop"),
    # explore's alias for "a function of a Scenario returning the invariant";
    # the functions that take one say what it is.
    ("py:class", "Setup"),
    # blanket.outsiders' alias for "who of a scenario holds a real lock".
    ("py:class", "Holder"),
    # races.find's: a run's steps, and its critical sections (imported for
    # the annotation only, which autodoc then shows unresolved).
    ("py:class", "TraceStep"),
    ("py:class", "Sections"),
    # The type variable of primitives.Kind (the primitive a kind makes).
    ("py:class", "P"),
    # Exploration.schedules: list[tuple[str, ...]], whose "..." Sphinx cuts.
    ("py:class", "list[tuple[str"),
    # Exploration.reached and Probes: dict[str, ... | None], cut the same way.
    ("py:class", "dict[str"),
]
exclude_patterns = ["_build"]
html_theme = "alabaster"

"""The package's layout: no import circle at run time, no module importing
another's private names, every module small and saying its job first.

The imports are read from the source (``ast``), not by importing: an import
under ``if TYPE_CHECKING:`` is left out (it never runs); one inside a
function counts (it runs when the function does). Importing a module of a
subpackage runs the subpackage's ``__init__`` first, so that is an edge too;
the top package's ``__init__`` (which imports everything to export it) is not.
"""

from __future__ import annotations

import ast
import tempfile
import unittest
from pathlib import Path

import blanket

#: The longest a module of blanket may be, in lines.
MAX_LINES = 600


def modules(root: Path) -> dict[str, Path]:
    """Every module of the package in *root*, by dotted name."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _run_time_nodes(tree: ast.Module) -> list[ast.AST]:
    """The nodes of *tree* outside ``if TYPE_CHECKING:`` blocks."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for inner in node.body for inner in ast.walk(inner))
    return [node for node in ast.walk(tree) if id(node) not in skipped]


def imports(root: Path) -> tuple[dict[str, set[str]], list[str]]:
    """The run-time imports between the package's modules, and each import
    of another module's private name (``from .x import _y``), as text."""
    known = modules(root)
    package = root.name
    edges: dict[str, set[str]] = {name: set() for name in known}
    private: list[str] = []
    for name, path in known.items():
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        tree = ast.parse(path.read_text(), str(path))
        for node in _run_time_nodes(tree):
            targets: list[tuple[str, str | None]] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    start = base[:len(base) - (node.level - 1)]
                    source = ".".join(start + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    targets.append((full, None) if full in known else (source, alias.name))
            elif isinstance(node, ast.Import):
                targets = [(alias.name, None) for alias in node.names]
            for target, imported in targets:
                if target not in known:
                    continue  # the standard library
                if imported is not None and imported.startswith("_") \
                        and not imported.startswith("__") and target != name:
                    private.append(f"{name} imports {target}.{imported}")
                # A module imports its packages' __init__ first (but the top one's).
                parts = target.split(".")
                for n in range(2, len(parts) + 1):
                    edges[name].add(".".join(parts[:n]))
        edges[name] -= {name, package}
    return edges, private


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: the strongly connected components of more than
    one module, or of one that imports itself (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in edges.get(node, ()):
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


PACKAGE = Path(blanket.__file__).parent


class TheChecksFindWhatTheyLookFor(unittest.TestCase):
    """The walker on a made-up package: it must see each kind of fault."""

    def _package(self, files: dict[str, str]) -> Path:
        folder = Path(self.enterContext(tempfile.TemporaryDirectory())) / "pkg"
        for name, text in {"__init__.py": "", **files}.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return folder

    def test_a_circle_through_a_function_level_import(self) -> None:
        root = self._package({"a.py": "from . import b\n",
                              "b.py": "def f():\n    from .a import x\n"})
        self.assertEqual(cycles(imports(root)[0]), [["pkg.a", "pkg.b"]])

    def test_a_type_checking_import_is_no_edge(self) -> None:
        root = self._package({"a.py": "from . import b\n",
                              "b.py": "from typing import TYPE_CHECKING\n"
                                      "if TYPE_CHECKING:\n    from .a import x\n"})
        self.assertEqual(cycles(imports(root)[0]), [])

    def test_a_subpackage_init_is_imported_first(self) -> None:
        root = self._package({"low.py": "from .sub.leaf import y\n",
                              "sub/__init__.py": "from .high import z\n",
                              "sub/leaf.py": "",
                              "sub/high.py": "from ..low import w\n"})
        self.assertEqual(cycles(imports(root)[0]),
                         [["pkg.low", "pkg.sub", "pkg.sub.high"]])

    def test_a_private_name_from_another_module(self) -> None:
        root = self._package({"a.py": "from .b import _hidden, shown, __all__\n",
                              "b.py": "_hidden = shown = 1\n"})
        self.assertEqual(imports(root)[1], ["pkg.a imports pkg.b._hidden"])


class Layout(unittest.TestCase):
    def test_no_import_circle(self) -> None:
        edges, _ = imports(PACKAGE)
        self.assertGreater(sum(map(len, edges.values())), 50)  # the walk saw the imports
        self.assertEqual(cycles(edges), [])

    def test_no_module_imports_another_modules_private_names(self) -> None:
        self.assertEqual(imports(PACKAGE)[1], [])

    def test_no_module_over_the_limit(self) -> None:
        lengths = {name: len(path.read_text().splitlines())
                   for name, path in modules(PACKAGE).items()}
        self.assertGreater(len(lengths), 30)
        self.assertEqual({name: n for name, n in lengths.items() if n > MAX_LINES}, {})

    def test_every_module_says_its_job_first(self) -> None:
        missing = [name for name, path in modules(PACKAGE).items()
                   if not ast.get_docstring(ast.parse(path.read_text()))]
        self.assertEqual(missing, [])

    def test_exploration_is_a_folder_of_its_own(self) -> None:
        names = set(modules(PACKAGE))
        self.assertLessEqual({"blanket.exploration.search", "blanket.exploration.run",
                              "blanket.exploration.dfs", "blanket.exploration.watch"}, names)
        self.assertNotIn("blanket.explore", names)

"""The house rules for imports, checked by reading the source with `ast` (nothing is imported or mocked).

Every `import` and `from ... import` counts wherever it sits — module top level, inside a function,
under `if TYPE_CHECKING:` — since each one is a dependency a reader has to follow. Relative imports
are resolved against the importing module, and `from pkg import name` points at the submodule
`pkg.name` when there is one, else at `pkg` itself. `import a.b.c` is an edge to `a.b.c` only, not to
the packages `a` and `a.b`, so a package `__init__` re-exporting its own submodules is not a cycle.
Imports built at run time (`importlib.import_module(variable)`) are not seen.

Rules: no import cycle inside hermes_tui; hermes_tui.core and hermes_tui.store never import textual
or rich; hermes_tui.store imports no hermes_tui module outside hermes_tui.store.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "hermes_tui"
UI_LIBRARIES = frozenset({"textual", "rich"})


@dataclass(frozen=True)
class ImportEdge:
    """`source` imports `target` (a dotted module name, inside the package or not) on `line`."""

    source: str
    target: str
    line: int


# Every module of the package, each with the imports written in it (in source order).
ImportGraph = dict[str, list[ImportEdge]]


# --------------------------------------------------------------------------- reading the imports


def _module_name(package_dir: Path, path: Path) -> str:
    parts = path.relative_to(package_dir.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _from_base(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module a `from X import ...` reads from, relative levels resolved."""
    if node.level == 0:
        return node.module or ""
    package_parts = module.split(".") if is_package else module.split(".")[:-1]
    if node.level > len(package_parts):
        raise ValueError(f"{module} line {node.lineno}: a relative import climbs above the top-level package")
    anchor = package_parts[: len(package_parts) - node.level + 1]
    return ".".join([*anchor, node.module] if node.module else anchor)


def _imports_in(tree: ast.AST, module: str, is_package: bool, modules: set[str]) -> Iterator[tuple[str, int]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = _from_base(node, module, is_package)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield (submodule if submodule in modules else base), node.lineno


def read_import_graph(package_dir: Path) -> ImportGraph:
    """Every module under `package_dir` with every import it contains."""
    paths = {_module_name(package_dir, path): path for path in sorted(package_dir.rglob("*.py"))}
    modules = set(paths)
    graph: ImportGraph = {}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found = _imports_in(tree, module, path.name == "__init__.py", modules)
        graph[module] = sorted((ImportEdge(module, target, line) for target, line in found), key=lambda e: e.line)
    return graph


# --------------------------------------------------------------------------- checking the rules


def _internal_targets(graph: ImportGraph) -> dict[str, set[str]]:
    return {module: {edge.target for edge in edges if edge.target in graph} for module, edges in graph.items()}


def find_cycles(graph: ImportGraph) -> list[list[str]]:
    """Each set of package modules that reach one another through imports, sorted; [] when acyclic.

    These are the strongly connected components with more than one module, plus any module that
    imports itself (Tarjan's algorithm).
    """
    targets = _internal_targets(graph)
    order: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = lowest[module] = len(order)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(targets[module]):
            if target not in order:
                visit(target)
                lowest[module] = min(lowest[module], lowest[target])
            elif target in on_stack:
                lowest[module] = min(lowest[module], order[target])
        if lowest[module] != order[module]:
            return
        component: list[str] = []
        while True:
            member = stack.pop()
            on_stack.discard(member)
            component.append(member)
            if member == module:
                break
        if len(component) > 1 or module in targets[module]:
            cycles.append(sorted(component))

    for module in sorted(targets):
        if module not in order:
            visit(module)
    return sorted(cycles)


def describe_cycle(graph: ImportGraph, members: list[str]) -> str:
    """The cycle's modules, then each import that keeps them in the ring, with its line."""
    ring = set(members)
    lines = [f"import cycle among {len(members)} modules: {', '.join(members)}"]
    for module in members:
        seen: set[str] = set()
        for edge in graph[module]:
            if edge.target in ring and edge.target not in seen:
                seen.add(edge.target)
                lines.append(f"  {module} -> {edge.target} (line {edge.line})")
    return "\n".join(lines)


def _is_within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def imports_matching(graph: ImportGraph, layer: str, forbidden: Callable[[str], bool]) -> list[str]:
    """'source line N imports target' for every import made inside `layer` whose target is forbidden."""
    return [
        f"{edge.source} line {edge.line} imports {edge.target}"
        for module, edges in graph.items()
        if _is_within(module, layer)
        for edge in edges
        if forbidden(edge.target)
    ]


def ui_library_imports(graph: ImportGraph, layer: str) -> list[str]:
    return imports_matching(graph, layer, lambda target: target.split(".")[0] in UI_LIBRARIES)


def imports_from_outside(graph: ImportGraph, layer: str, package: str) -> list[str]:
    """Imports from `layer` of `package` modules that live outside `layer`."""
    return imports_matching(graph, layer, lambda target: _is_within(target, package) and not _is_within(target, layer))


# --------------------------------------------------------------------------- the real package


@functools.cache
def hermes_graph() -> ImportGraph:
    return read_import_graph(PACKAGE_DIR)


def test_the_reader_sees_the_real_package() -> None:
    graph = hermes_graph()
    assert {"hermes_tui", "hermes_tui.core.agent", "hermes_tui.store.db", "hermes_tui.app"} <= set(graph)
    defaults = {edge.target for edge in graph["hermes_tui.core.tools.defaults"]}
    assert {
        "hermes_tui.core.tools.files",
        "hermes_tui.core.tools.terminal",
        "hermes_tui.core.tools.todo",
        "hermes_tui.core.tools.registry",
    } <= defaults
    assert any(edge.target.startswith("textual") for edge in graph["hermes_tui.app"])


def test_hermes_tui_has_no_import_cycles() -> None:
    graph = hermes_graph()
    cycles = find_cycles(graph)
    if cycles:
        pytest.fail("\n\n".join(describe_cycle(graph, members) for members in cycles), pytrace=False)


def test_core_and_store_never_import_textual_or_rich() -> None:
    graph = hermes_graph()
    offending = ui_library_imports(graph, "hermes_tui.core") + ui_library_imports(graph, "hermes_tui.store")
    assert not offending, "the core and the store must not import a UI library:\n" + "\n".join(offending)


def test_store_imports_nothing_above_it() -> None:
    offending = imports_from_outside(hermes_graph(), "hermes_tui.store", "hermes_tui")
    assert not offending, "the store must import nothing of hermes_tui outside itself:\n" + "\n".join(offending)


def test_the_ui_layers_import_only_downwards() -> None:
    # app.py -> ui/ (the App's parts) -> screens/ -> widgets/: a widget never opens a screen itself (it
    # posts a message the screen answers), and no part of the App imports the App.
    above = {
        "hermes_tui.widgets": ("hermes_tui.screens", "hermes_tui.ui", "hermes_tui.app"),
        "hermes_tui.screens": ("hermes_tui.ui", "hermes_tui.app"),
        "hermes_tui.ui": ("hermes_tui.app",),
    }
    graph = hermes_graph()
    offending = [
        line
        for layer, higher in above.items()
        for line in imports_matching(
            graph, layer, lambda target, higher=higher: any(_is_within(target, h) for h in higher)
        )
    ]
    assert not offending, "an import points up the UI's layers:\n" + "\n".join(offending)


# --------------------------------------------------------------------------- the checker itself


def write_package(root: Path, files: dict[str, str]) -> Path:
    """A package `pkg` under `root` made of these files (paths relative to `root`); returns its folder."""
    for relative, source in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return root / "pkg"


def targets_of(graph: ImportGraph, module: str) -> set[str]:
    return {edge.target for edge in graph[module]}


def test_a_ring_of_imports_is_found_and_named(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\n",
            "pkg/b.py": "import os\n\nfrom .c import thing\n",
            "pkg/c.py": "import pkg.a\n\nthing = 1\n",
            "pkg/d.py": "from pkg import a\n",
        },
    )
    graph = read_import_graph(package)

    assert find_cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]
    assert describe_cycle(graph, ["pkg.a", "pkg.b", "pkg.c"]) == (
        "import cycle among 3 modules: pkg.a, pkg.b, pkg.c\n"
        "  pkg.a -> pkg.b (line 1)\n"
        "  pkg.b -> pkg.c (line 3)\n"
        "  pkg.c -> pkg.a (line 1)"
    )


def test_an_acyclic_package_passes(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.sub import helper\n",
            "pkg/a.py": "from pkg import b, c\nimport json\n",
            "pkg/b.py": "from . import c\n",
            "pkg/c.py": "from __future__ import annotations\n",
            "pkg/sub/__init__.py": "from .helper import run\n",
            "pkg/sub/helper.py": "from ..c import anything\n\ndef run():\n    from pkg import b\n",
        },
    )
    assert find_cycles(read_import_graph(package)) == []


def test_an_import_under_type_checking_counts(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from pkg.b import B\n",
            "pkg/b.py": "from pkg.a import A\n",
        },
    )
    assert find_cycles(read_import_graph(package)) == [["pkg.a", "pkg.b"]]


def test_an_import_inside_a_function_counts(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "class Thing:\n    def build(self):\n        from . import b\n        return b\n",
            "pkg/b.py": "import pkg.a\n",
        },
    )
    assert find_cycles(read_import_graph(package)) == [["pkg.a", "pkg.b"]]


def test_a_module_importing_itself_is_a_cycle(tmp_path: Path) -> None:
    package = write_package(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "from pkg.a import x\nx = 1\n"})
    assert find_cycles(read_import_graph(package)) == [["pkg.a"]]


def test_relative_and_submodule_imports_resolve_to_modules(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {
            "pkg/__init__.py": "VERSION = 1\n",
            "pkg/top.py": "",
            "pkg/sub/__init__.py": "from .m import X\nfrom . import sibling\n",
            "pkg/sub/sibling.py": "",
            "pkg/sub/m.py": (
                "from .. import top\nfrom ..top import name\nfrom . import sibling\n"
                "from pkg import VERSION\nfrom pkg.sub import X\nimport pkg.top as alias\nfrom textual.app import App\n"
            ),
        },
    )
    graph = read_import_graph(package)

    assert set(graph) == {"pkg", "pkg.top", "pkg.sub", "pkg.sub.sibling", "pkg.sub.m"}
    assert targets_of(graph, "pkg.sub") == {"pkg.sub.m", "pkg.sub.sibling"}
    assert targets_of(graph, "pkg.sub.m") == {"pkg.top", "pkg.sub.sibling", "pkg", "pkg.sub", "textual.app"}


def test_a_relative_import_above_the_package_is_refused(tmp_path: Path) -> None:
    package = write_package(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "from ... import x\n"})
    with pytest.raises(ValueError, match="climbs above the top-level package"):
        read_import_graph(package)


def test_ui_imports_and_upward_imports_are_found_wherever_they_sit(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/app.py": "from textual.app import App\nfrom pkg.core import engine\n",
            "pkg/core/__init__.py": "",
            "pkg/core/engine.py": "def paint():\n    import rich.text\n\nfrom pkg.store import db\n",
            "pkg/store/__init__.py": "",
            "pkg/store/db.py": (
                "from typing import TYPE_CHECKING\nfrom . import rows\n\n"
                "if TYPE_CHECKING:\n    from ..core.engine import paint\n    from textual.widget import Widget\n"
            ),
            "pkg/store/rows.py": "import sqlite3\n",
        },
    )
    graph = read_import_graph(package)

    assert ui_library_imports(graph, "pkg.core") == ["pkg.core.engine line 2 imports rich.text"]
    assert ui_library_imports(graph, "pkg.store") == ["pkg.store.db line 6 imports textual.widget"]
    assert imports_from_outside(graph, "pkg.store", "pkg") == ["pkg.store.db line 5 imports pkg.core.engine"]
    assert imports_from_outside(graph, "pkg.core", "pkg") == ["pkg.core.engine line 4 imports pkg.store.db"]

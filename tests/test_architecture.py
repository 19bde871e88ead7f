"""The plan of ``src/sekai``: no import circle, no import from a lower layer to a higher one, and
no source file over 600 lines.

The imports are read from the source with ``ast``. Every import statement counts, wherever it
stands: at module level, under ``if TYPE_CHECKING:``, inside a function. Relative imports are
resolved. ``from pkg import name`` imports the module ``pkg.name`` when there is one, else
``pkg``; a package's ``__init__`` is a module like any other, so a submodule that imports from
its own package's face closes a circle with it. What is loaded by name at run time (registry
entry points, ``importlib``) is not an import here.

The layers, top first. A module may import from its own layer and from the layers below it:

    cli         sekai.cli, sekai.__main__
    root        sekai (the package's ``__init__``), sekai.sekai
    envs        sekai.envs: the built-in environments
    testing     sekai.testing: the env and vector-backend checkers for env authors; it builds
                envs through the registry, so it stands above it
    compat      sekai.compat: the gymnasium, PettingZoo and Stable-Baselines3 bridges; it
                registers sekai's ids with gymnasium through the registry, so it stands above it
    registry    sekai.registry
    finance     sekai.finance
    shared      sekai.vector, sekai.wrappers, sekai.rendering
    stats       sekai.stats
    core        sekai.core
    spaces      sekai.spaces
    utils       sekai.utils: the ground-floor helpers (seeding, running statistics, validation,
                pickling); its old paths of names now kept higher load them by name
    ground      sekai.error, sekai._types, sekai._version

The three packages of the shared layer are siblings: one may import another only along an edge
of ``SHARED_EDGES``, the ones the code relies on (the vector normalisation wrappers share the
single-env normaliser), and, like any imports, never so that they form a circle.
"""

from __future__ import annotations

import ast
import dataclasses
from collections import deque
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "sekai"
MAX_LINES = 600

# (layer, the names under ``sekai`` in it), top first; "" is the package's own __init__.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("cli", frozenset({"cli", "__main__"})),
    ("root", frozenset({"", "sekai"})),
    ("envs", frozenset({"envs"})),
    ("testing", frozenset({"testing"})),
    ("compat", frozenset({"compat"})),
    ("registry", frozenset({"registry"})),
    ("finance", frozenset({"finance"})),
    ("shared", frozenset({"vector", "wrappers", "rendering"})),
    ("stats", frozenset({"stats"})),
    ("core", frozenset({"core"})),
    ("spaces", frozenset({"spaces"})),
    ("utils", frozenset({"utils"})),
    ("ground", frozenset({"error", "_types", "_version"})),
)
SHARED = dict(LAYERS)["shared"]
# Imports between siblings of the shared layer: (importer, imported).
SHARED_EDGES = frozenset({("vector", "wrappers")})


@dataclasses.dataclass(frozen=True)
class Import:
    """One module importing another, at a line of the importer's file."""

    source: str
    target: str
    line: int

    def where(self, files: Mapping[str, Path]) -> str:
        return f"{files[self.source].relative_to(ROOT)}:{self.line}"


def module_files(package: Path) -> dict[str, Path]:
    """Every module of ``package`` by dotted name (a package by its own name)."""
    files: dict[str, Path] = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        files[".".join(parts)] = path
    return files


def _base(module: str | None, level: int, current: str, is_package: bool) -> str:
    """The absolute module name of ``from <level dots><module> import ...`` in ``current``."""
    if level == 0:
        return module or ""
    parts = current.split(".")
    keep = len(parts) - level + (1 if is_package else 0)
    base = ".".join(parts[:keep])
    return f"{base}.{module}" if module else base


def imports_of(name: str, path: Path, modules: Iterable[str]) -> list[Import]:
    """The imports of the module ``name`` (read from ``path``) of modules in ``modules``."""
    known = set(modules)
    is_package = path.name == "__init__.py"
    found: set[Import] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(Import(name, a.name, node.lineno) for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = _base(node.module, node.level, name, is_package)
            for alias in node.names:
                target = f"{base}.{alias.name}"
                if target not in known:
                    target = base
                if target in known:
                    found.add(Import(name, target, node.lineno))
    return sorted(found, key=lambda i: (i.line, i.target))


def import_graph(files: Mapping[str, Path]) -> dict[str, list[Import]]:
    """Each module's imports of the other modules in ``files``."""
    return {name: imports_of(name, path, files) for name, path in files.items()}


def circles(graph: Mapping[str, list[Import]]) -> list[tuple[list[str], list[Import]]]:
    """Each group of modules that import one another in a circle (or a module that imports
    itself), with the shortest circle through its first module as the imports that close it."""
    edges = {name: sorted({i.target for i in imports}) for name, imports in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        # Tarjan's algorithm, iteratively: (node, position in its list of targets).
        work = [(start, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            targets = edges.get(node, [])
            if position < len(targets):
                work.append((node, position + 1))
                target = targets[position]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1 or node in edges.get(node, []):
                    groups.append(sorted(group))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return [(group, _shortest_circle(graph, group)) for group in sorted(groups)]


def _shortest_circle(graph: Mapping[str, list[Import]], group: list[str]) -> list[Import]:
    """The shortest circle from the first module of ``group`` back to it, within the group."""
    members, start = set(group), group[0]
    came_by: dict[str, Import] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for step in sorted(graph[node], key=lambda i: (i.target, i.line)):
            if step.target == start:
                path = [step]
                while path[0].source != start:
                    path.insert(0, came_by[path[0].source])
                return path
            if step.target in members and step.target not in came_by:
                came_by[step.target] = step
                queue.append(step.target)
    raise AssertionError(f"no circle through {start}")  # a strongly connected group has one


def package_of(module: str) -> str:
    """The top-level name under ``sekai`` that ``module`` belongs to ("" for ``sekai``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer_of(module: str) -> int:
    """The depth of ``module``'s layer, 0 at the top."""
    package = package_of(module)
    for depth, (_, members) in enumerate(LAYERS):
        if package in members:
            return depth
    raise AssertionError(
        f"{module} belongs to no layer: place '{package}' in LAYERS of tests/test_architecture.py."
    )


def layer_breaches(graph: Mapping[str, list[Import]]) -> list[Import]:
    """Imports from a lower layer to a higher one, and between shared siblings off the plan."""
    out = []
    for imports in graph.values():
        for step in imports:
            upward = layer_of(step.target) < layer_of(step.source)
            pair = package_of(step.source), package_of(step.target)
            sideways = pair[0] != pair[1] and set(pair) <= SHARED and pair not in SHARED_EDGES
            if upward or sideways:
                out.append(step)
    return out


def describe(step: Import, files: Mapping[str, Path]) -> str:
    source, target = (LAYERS[layer_of(name)][0] for name in (step.source, step.target))
    return f"{step.source} ({source}) imports {step.target} ({target}) at {step.where(files)}"


# -- the checks ---------------------------------------------------------------------------------


def test_no_import_circle() -> None:
    files = module_files(SOURCE)
    found = circles(import_graph(files))
    report = []
    for group, circle in found:
        report.append(f"{len(group)} modules in a circle: {' '.join(group)}")
        report.append("  for one: " + " -> ".join([group[0], *(step.target for step in circle)]))
        report += [
            f"    {step.source} imports {step.target} at {step.where(files)}" for step in circle
        ]
    assert not found, f"{len(found)} group(s) of modules in import circles:\n" + "\n".join(report)


def test_no_import_from_a_lower_layer_to_a_higher_one() -> None:
    files = module_files(SOURCE)
    breaches = layer_breaches(import_graph(files))
    report = "\n".join(describe(step, files) for step in breaches)
    assert not breaches, f"{len(breaches)} import(s) against the layers:\n{report}"


def test_no_source_file_over_600_lines() -> None:
    sizes = {
        name: len(path.read_text(encoding="utf-8").splitlines())
        for name, path in module_files(SOURCE).items()
    }
    long = sorted(
        ((lines, name) for name, lines in sizes.items() if lines > MAX_LINES), reverse=True
    )
    report = "\n".join(f"{name}: {lines} lines" for lines, name in long)
    assert not long, f"{len(long)} file(s) over {MAX_LINES} lines:\n{report}"


def test_every_top_level_name_has_a_layer() -> None:
    placed = frozenset().union(*(members for _, members in LAYERS))
    unplaced = sorted({package_of(name) for name in module_files(SOURCE)} - placed)
    assert not unplaced, f"place {unplaced} in LAYERS of tests/test_architecture.py"


def test_the_checks_find_what_they_look_for(tmp_path: Path) -> None:
    package = tmp_path / "sekai"
    sources = {
        "__init__.py": "from sekai import core\n",
        "error.py": "import typing\nif typing.TYPE_CHECKING:\n    from .core import env\n",
        "core/__init__.py": "from .env import Env\n",
        "core/env.py": "def make():\n    from ..registry.spec import Spec\n",
        "registry/__init__.py": "",
        "registry/spec.py": "from sekai.core import Env\n",
        "vector/__init__.py": "import sekai.rendering.canvas\n",
        "rendering/__init__.py": "",
        "rendering/canvas.py": "from sekai import error\n",
    }
    for relative, text in sources.items():
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_text(text, encoding="utf-8")
    files = module_files(package)
    graph = import_graph(files)
    assert {(i.source, i.target) for i in graph["sekai.core.env"]} == {
        ("sekai.core.env", "sekai.registry.spec")
    }
    assert [i.target for i in graph["sekai"]] == ["sekai.core"]
    group = ["sekai.core", "sekai.core.env", "sekai.registry.spec"]
    assert [(members, [step.source for step in circle]) for members, circle in circles(graph)] == [
        (group, group)
    ]
    breaches = {(i.source, i.target) for i in layer_breaches(graph)}
    assert breaches == {
        ("sekai.error", "sekai.core.env"),  # under TYPE_CHECKING
        ("sekai.core.env", "sekai.registry.spec"),  # inside a function, relative
        ("sekai.vector", "sekai.rendering.canvas"),  # siblings off the plan
    }

"""The plan of ``src/sekai``: no import circle, no import from a lower layer to a higher one, and
a prompt for long files.

The imports are read from the source with ``ast``. Every import statement counts, wherever it
stands: at module level, under ``if TYPE_CHECKING:``, inside a function. Relative imports are
resolved. ``from pkg import name`` imports the module ``pkg.name`` when there is one, else
``pkg``; a package's ``__init__`` is a module like any other, so a submodule that imports from
its own package's face closes a circle with it.

A module loaded by a literal name counts as an import too: ``importlib.import_module("sekai.x")``,
``import_module("sekai.x")``, ``__import__("sekai.x")``, and ``moved_names(__name__, "sekai.x",
names)``, the loader of the old-path shims. A computed name is not read: a variable, an f-string
(even one with a literal prefix such as ``f"sekai.compat.{name}"``) or a registry entry point
names its module only at run time. Loads by name count for circles like any import.

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
                pickling)
    ground      sekai.error, sekai._types, sekai._version

The layers table of ``docs/architecture.md`` lists the same layers in the same order.

The three packages of the shared layer are siblings: one may import another only along an edge
of ``SHARED_EDGES``, the ones the code relies on (the vector normalisation wrappers share the
single-env normaliser), and, like any imports, never so that they form a circle.

A module whose names moved to a higher layer keeps its old path as a shim that loads the new
home by name on first access. ``OLD_PATHS`` lists each such shim with its home: these loads by
name, and no others, may point up a layer.

Long files: ``MAX_LINES`` is a prompt, not a plan. A file holds one concept; one that grows past
the mark is asked which concept should leave it. Moving lines out just to pass the mark is no
answer, and the mark is not raised to let a file grow.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections import deque
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

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
# The old-path shims and the new homes they load by name: (shim, home).
OLD_PATHS = frozenset(
    {
        ("sekai.utils", "sekai.spaces.masking"),
        ("sekai.utils.checker", "sekai.testing.env_checker"),
        ("sekai.utils.masking", "sekai.spaces.masking"),
        ("sekai.utils.normalization", "sekai.wrappers._normalizer"),
        ("sekai.registry.gymnasium_registration", "sekai.compat.gymnasium_registration"),
    }
)
# Calls that load a module by name, with the position of the name among their arguments.
LOADERS = {"import_module": 0, "__import__": 0, "moved_names": 1}


@dataclasses.dataclass(frozen=True)
class Import:
    """One module importing another, at a line of the importer's file; ``by_name`` when it is
    loaded by a literal name rather than by an import statement."""

    source: str
    target: str
    line: int
    by_name: bool = False

    def where(self, files: Mapping[str, Path]) -> str:
        path = files[self.source]
        return f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{self.line}"


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


def loaded_name(node: ast.Call) -> str | None:
    """The literal module name ``node`` loads, if it is a call of ``LOADERS`` with one."""
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    position = LOADERS.get(called) if isinstance(called, str) else None
    if position is None or len(node.args) <= position:
        return None
    argument = node.args[position]
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return argument.value
    return None


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
        elif isinstance(node, ast.Call):
            loaded = loaded_name(node)
            if loaded in known:
                found.add(Import(name, loaded, node.lineno, by_name=True))
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
    """Imports from a lower layer to a higher one (but an old-path shim's load of its home by
    name), and between shared siblings off the plan."""
    out = []
    for imports in graph.values():
        for step in imports:
            shim = step.by_name and (step.source, step.target) in OLD_PATHS
            upward = layer_of(step.target) < layer_of(step.source) and not shim
            pair = package_of(step.source), package_of(step.target)
            sideways = pair[0] != pair[1] and set(pair) <= SHARED and pair not in SHARED_EDGES
            if upward or sideways:
                out.append(step)
    return out


def describe(step: Import, files: Mapping[str, Path]) -> str:
    source, target = (LAYERS[layer_of(name)][0] for name in (step.source, step.target))
    return f"{step.source} ({source}) imports {step.target} ({target}) at {step.where(files)}"


def check_no_circle(package: Path) -> None:
    """Fail, naming one circle of each group, when modules of ``package`` import in a circle."""
    files = module_files(package)
    found = circles(import_graph(files))
    report = []
    for group, circle in found:
        report.append(f"{len(group)} modules in a circle: {' '.join(group)}")
        report.append("  for one: " + " -> ".join([group[0], *(step.target for step in circle)]))
        report += [
            f"    {step.source} imports {step.target} at {step.where(files)}" for step in circle
        ]
    assert not found, f"{len(found)} group(s) of modules in import circles:\n" + "\n".join(report)


def check_layers(package: Path) -> None:
    """Fail, naming each, when modules of ``package`` import against the layers."""
    files = module_files(package)
    breaches = layer_breaches(import_graph(files))
    report = "\n".join(describe(step, files) for step in breaches)
    assert not breaches, f"{len(breaches)} import(s) against the layers:\n{report}"


def plant(package: Path, sources: Mapping[str, str]) -> dict[str, Path]:
    """Write the files ``sources`` (relative path: text) under ``package``; its modules."""
    for relative, text in sources.items():
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_text(text, encoding="utf-8")
    return module_files(package)


# -- the checks ---------------------------------------------------------------------------------


def test_no_import_circle() -> None:
    check_no_circle(SOURCE)


def test_no_import_from_a_lower_layer_to_a_higher_one() -> None:
    check_layers(SOURCE)


def test_no_source_file_over_600_lines() -> None:
    sizes = {
        name: len(path.read_text(encoding="utf-8").splitlines())
        for name, path in module_files(SOURCE).items()
    }
    long = sorted(
        ((lines, name) for name, lines in sizes.items() if lines > MAX_LINES), reverse=True
    )
    report = "\n".join(f"{name}: {lines} lines" for lines, name in long)
    assert not long, (
        f"{len(long)} file(s) over {MAX_LINES} lines: ask which concept should leave each "
        f"(moving helpers out just to pass the mark is no answer):\n{report}"
    )


def test_every_top_level_name_has_a_layer() -> None:
    placed = frozenset().union(*(members for _, members in LAYERS))
    unplaced = sorted({package_of(name) for name in module_files(SOURCE)} - placed)
    assert not unplaced, f"place {unplaced} in LAYERS of tests/test_architecture.py"


def test_the_layers_of_the_architecture_page_are_these() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    cells = [line.split("|")[2] for line in section.splitlines() if line.startswith("| ")]
    documented = [
        {package_of(name) for name in re.findall(r"`(sekai[\w.]*)`", cell)}
        for cell in cells
        if "`" in cell
    ]
    assert len(documented) == len(LAYERS), "docs/architecture.md lists other layers"
    for (layer, members), packages in zip(LAYERS, documented, strict=True):
        assert packages and packages <= members, f"docs/architecture.md: layer {layer}"


def test_every_old_path_shim_loads_its_home_by_name() -> None:
    graph = import_graph(module_files(SOURCE))
    loads = {(i.source, i.target) for imports in graph.values() for i in imports if i.by_name}
    stale = sorted(OLD_PATHS - loads)
    assert not stale, f"OLD_PATHS entries with no load by name: {stale}"


def test_the_checks_find_what_they_look_for(tmp_path: Path) -> None:
    package = tmp_path / "sekai"
    files = plant(
        package,
        {
            "__init__.py": "from sekai import core\n",
            "error.py": "import typing\nif typing.TYPE_CHECKING:\n    from .core import env\n",
            "core/__init__.py": "from .env import Env\n",
            "core/env.py": "def make():\n    from ..registry.spec import Spec\n",
            "registry/__init__.py": "",
            "registry/spec.py": "from sekai.core import Env\n",
            "vector/__init__.py": "import sekai.rendering.canvas\n",
            "rendering/__init__.py": "",
            "rendering/canvas.py": "from sekai import error\n",
        },
    )
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


def test_loads_by_a_literal_name_are_imports(tmp_path: Path) -> None:
    files = plant(
        tmp_path / "sekai",
        {
            "__init__.py": "",
            "core/__init__.py": "",
            "core/env.py": "",
            "utils/__init__.py": "from importlib import import_module\n"
            'import_module("sekai.core")\n',
            "utils/a.py": 'def load():\n    return __import__("sekai.core.env")\n',
            "utils/b.py": "from sekai.utils._moved import moved_names\n"
            'f = moved_names(__name__, "sekai.core.env", ["Env"])\n',
            "utils/c.py": "import importlib\n"
            'name = "env"\n'
            'importlib.import_module(f"sekai.core.{name}")\n'
            "importlib.import_module(name)\n"
            'importlib.import_module("numpy")\n',
            "utils/_moved.py": "",
        },
    )
    loads = {
        (i.source, i.target, i.line)
        for imports in import_graph(files).values()
        for i in imports
        if i.by_name
    }
    assert loads == {
        ("sekai.utils", "sekai.core", 2),
        ("sekai.utils.a", "sekai.core.env", 2),
        ("sekai.utils.b", "sekai.core.env", 2),
    }  # a computed name (an f-string too) and a module outside the package are not read


def test_a_circle_through_a_load_by_name_fails_the_checks(tmp_path: Path) -> None:
    package = tmp_path / "sekai"
    plant(
        package,
        {
            "__init__.py": "",
            "compat/__init__.py": "import importlib\n\n\ndef register_gymnasium():\n"
            '    return importlib.import_module("sekai.registry.gymnasium_registration")\n',
            "registry/__init__.py": "",
            "registry/gymnasium_registration.py": "def make():\n"
            "    from sekai.compat import to_gymnasium\n",
        },
    )
    circle = r"sekai\.compat -> sekai\.registry\.gymnasium_registration -> sekai\.compat"
    with pytest.raises(AssertionError, match=circle):
        check_no_circle(package)
    with pytest.raises(AssertionError, match=r"1 import\(s\) against the layers"):
        check_layers(package)  # the registry imports the compat layer above it


def test_only_the_old_path_shims_may_load_a_higher_layer_by_name(tmp_path: Path) -> None:
    files = plant(
        tmp_path / "sekai",
        {
            "__init__.py": "",
            "compat/__init__.py": "",
            "compat/gymnasium_registration.py": "",
            "registry/__init__.py": "",
            "registry/gymnasium_registration.py": "from sekai.utils._moved import moved_names\n"
            'g = moved_names(__name__, "sekai.compat.gymnasium_registration", [])\n',
            "registry/other.py": "import importlib\n"
            'importlib.import_module("sekai.compat.gymnasium_registration")\n',
            "testing/__init__.py": "",
            "testing/env_checker.py": "",
            "utils/__init__.py": "",
            "utils/_moved.py": "",
            "utils/checker.py": "from sekai.testing import env_checker\n",
        },
    )
    breaches = {(i.source, i.target) for i in layer_breaches(import_graph(files))}
    assert breaches == {
        ("sekai.registry.other", "sekai.compat.gymnasium_registration"),  # not a listed shim
        ("sekai.utils.checker", "sekai.testing.env_checker"),  # a shim, but an import statement
    }

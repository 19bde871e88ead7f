"""EnvSpec as a record in core: its home, its renderer field, the make hook, PerSubEnv."""

from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path
from typing import Any

import pytest

import sekai
from sekai.core import spec as core_spec
from sekai.core.spec import DataEntryPoint, EnvSpec, PerSubEnv, WrapperSpec
from sekai.finance.sampling import FixedStart, RandomStart, SequentialStart

CORE = Path(core_spec.__file__).parent
UPPER = ("sekai.registry", "sekai.wrappers", "sekai.vector")
# The module: the attribute ``sekai.registry.spec`` is the lookup function.
registry_spec_module = importlib.import_module("sekai.registry.spec")


def renderer_factory(**kwargs: Any) -> None:
    """Stands for a renderer class; never called here."""


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth (functions and TYPE_CHECKING included)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_core_imports_nothing_above_it(path: Path) -> None:
    upward = sorted(n for n in _imports(path) if n.startswith(UPPER))
    assert upward == []


def test_the_records_live_in_core_and_are_re_exported() -> None:
    assert EnvSpec.__module__ == WrapperSpec.__module__ == "sekai.core.spec"
    assert sekai.EnvSpec is sekai.registry.EnvSpec is registry_spec_module.EnvSpec is EnvSpec
    assert sekai.WrapperSpec is registry_spec_module.WrapperSpec is WrapperSpec
    assert registry_spec_module.DataEntryPoint is DataEntryPoint
    assert callable(sekai.registry.spec) and sekai.registry.spec("CartPole-v1").id == "CartPole-v1"


def test_renderer_defaults_to_none_and_takes_part_in_equality() -> None:
    assert EnvSpec("X-v0").renderer is None
    assert EnvSpec("X-v0", renderer="m:R") == EnvSpec("X-v0", renderer="m:R")
    assert EnvSpec("X-v0", renderer="m:R") != EnvSpec("X-v0")


def test_renderer_json_round_trip() -> None:
    spec = EnvSpec("X-v0", entry_point="m:E", vector_entry_point="m:V", renderer="m:R")
    data = json.loads(spec.to_json())
    assert list(data)[-3:] == ["entry_point", "vector_entry_point", "renderer"]
    assert data["renderer"] == "m:R"
    restored = EnvSpec.from_json(spec.to_json())
    assert restored == spec
    assert isinstance(restored.renderer, DataEntryPoint)
    trusted = EnvSpec.from_json(spec.to_json(), trust_entry_points=True)
    assert type(trusted.renderer) is str and trusted == spec
    assert "renderer" not in json.loads(EnvSpec("X-v0").to_json())


def test_callable_renderer_is_left_out_of_json() -> None:
    spec = EnvSpec("X-v0", renderer=renderer_factory)
    assert "renderer" not in json.loads(spec.to_json())
    assert EnvSpec.from_json(spec.to_json()).renderer is None


def test_pprint_shows_the_renderer_only_when_set() -> None:
    assert "renderer" not in EnvSpec("X-v0", entry_point="m:E").pprint()
    lines = EnvSpec(
        "X-v0", entry_point="m:E", vector_entry_point="m:V", renderer="m:R", max_episode_steps=3
    ).pprint()
    assert lines.splitlines() == [
        "id=X-v0",
        "entry_point=m:E",
        "vector_entry_point=m:V",
        "renderer=m:R",
        "max_episode_steps=3",
    ]
    shown = EnvSpec("X-v0", renderer=renderer_factory).pprint().splitlines()
    assert shown[-1] == f"renderer={renderer_factory!r}"


def test_spec_make_calls_the_installed_builder(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[EnvSpec, dict[str, Any]]] = []

    def build(spec: EnvSpec, **kwargs: Any) -> str:
        calls.append((spec, kwargs))
        return "built"

    spec = EnvSpec("X-v0")
    monkeypatch.setattr(core_spec, "_builder", None)
    core_spec.set_builder(build)
    assert spec.make(max_episode_steps=3, size=2) == "built"
    assert calls == [(spec, {"max_episode_steps": 3, "size": 2})]
    monkeypatch.setattr(core_spec, "_builder", None)
    with pytest.raises(RuntimeError, match="import sekai"):
        spec.make()


def test_the_registry_installs_its_make() -> None:
    assert core_spec._builder is sekai.registry.registry.make


def test_episode_samplers_are_per_sub_env() -> None:
    shared = RandomStart()
    assert isinstance(shared, PerSubEnv)
    assert shared.__copy_for_sub_env__() is shared
    fixed = FixedStart(2)
    assert fixed.__copy_for_sub_env__() is fixed
    sequential = SequentialStart(start=1)
    sequential.sample(None, 10, 3)  # type: ignore[arg-type]
    copy = sequential.__copy_for_sub_env__()
    assert isinstance(copy, SequentialStart) and copy is not sequential
    assert copy.sample(None, 10, 3) == 1  # type: ignore[arg-type]
    assert not isinstance(object(), PerSubEnv)
    assert not isinstance({"a": 1}, PerSubEnv)

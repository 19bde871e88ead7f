"""Every public name is importable from its package and from the module that defines it."""

from __future__ import annotations

import importlib
import types
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.registry import WrapperSpec

PACKAGES = [
    "sekai",
    "sekai.core",
    "sekai.spaces",
    "sekai.registry",
    "sekai.wrappers",
    "sekai.vector",
    "sekai.envs",
    "sekai.envs.classic_control",
    "sekai.envs.finance",
    "sekai.finance",
    "sekai.rendering",
    "sekai.utils",
    "sekai.stats",
    "sekai.compat",
    "sekai.error",
]

PUBLIC = [
    (package, name)
    for package in PACKAGES
    for name in importlib.import_module(package).__all__  # type: ignore[attr-defined]
]

# gymnasium's wrapper module names (0.x and 1.x) and the sekai wrappers each one gives.
ALIASES = {
    "autoreset": ["AutoReset"],
    "clip_action": ["ClipAction"],
    "filter_observation": ["FilterObservation"],
    "flatten_observation": ["FlattenObservation"],
    "frame_stack": ["FrameStackObservation"],
    "normalize": ["NormalizeObservation", "NormalizeReward"],
    "order_enforcing": ["OrderEnforcing"],
    "record_episode_statistics": ["RecordEpisodeStatistics"],
    "rescale_action": ["RescaleAction"],
    "time_aware_observation": ["TimeAwareObservation"],
    "time_limit": ["TimeLimit"],
    "stateful_action": ["ActionRepeat", "StickyAction"],
    "stateful_observation": [
        "DelayObservation",
        "FrameStackObservation",
        "NormalizeObservation",
        "TimeAwareObservation",
    ],
    "stateful_reward": ["NormalizeReward"],
    "transform_action": ["ClipAction", "RescaleAction"],
    "transform_observation": [
        "DtypeObservation",
        "FilterObservation",
        "FlattenObservation",
        "RescaleObservation",
        "TransformObservation",
    ],
    "transform_reward": ["ClipReward", "TransformReward"],
}

# How to build each wrapper around a registered env: (env id, constructor kwargs).
BUILD: dict[str, tuple[str, dict[str, Any]]] = {
    "AutoReset": ("CartPole-v1", {}),
    "ClipAction": ("Pendulum-v1", {}),
    "FilterObservation": ("Portfolio-v0", {"keys": ["weights"]}),
    "FlattenObservation": ("Portfolio-v0", {}),
    "FrameStackObservation": ("CartPole-v1", {"num_stack": 2}),
    "NormalizeObservation": ("Pendulum-v1", {}),
    "NormalizeReward": ("Pendulum-v1", {}),
    "OrderEnforcing": ("CartPole-v1", {}),
    "RecordEpisodeStatistics": ("CartPole-v1", {}),
    "RescaleAction": ("Pendulum-v1", {"min_action": -1.0, "max_action": 1.0}),
    "TimeAwareObservation": ("Pendulum-v1", {}),
    "TimeLimit": ("CartPole-v1", {"max_episode_steps": 5}),
    "ActionRepeat": ("CartPole-v1", {"repeat": 2}),
    "StickyAction": ("CartPole-v1", {"repeat_action_probability": 0.25}),
    "DelayObservation": ("Pendulum-v1", {"delay": 1}),
    "DtypeObservation": ("Pendulum-v1", {"dtype": np.float64}),
    "RescaleObservation": ("Pendulum-v1", {"min_obs": -1.0, "max_obs": 1.0}),
    "TransformObservation": ("Pendulum-v1", {"func": np.negative}),
    "ClipReward": ("Pendulum-v1", {"min_reward": -1.0}),
    "TransformReward": ("Pendulum-v1", {"func": abs}),
}

ALIAS_PATHS = [
    f"sekai.wrappers.{module}:{name}" for module, names in ALIASES.items() for name in names
]


def _public(package: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(package), name)
    except ImportError as e:  # a lazily loaded name whose optional dependency is missing
        pytest.skip(f"{package}.{name}: {e}")


@pytest.mark.parametrize(("package", "name"), PUBLIC, ids=[f"{p}.{n}" for p, n in PUBLIC])
def test_every_name_in_all_is_importable_from_its_package(package: str, name: str) -> None:
    obj = _public(package, name)
    namespace: dict[str, Any] = {}
    exec(f"from {package} import {name}", namespace)
    assert namespace[name] is obj


@pytest.mark.parametrize(("package", "name"), PUBLIC, ids=[f"{p}.{n}" for p, n in PUBLIC])
def test_every_public_object_is_held_by_its_defining_module(package: str, name: str) -> None:
    obj = _public(package, name)
    if isinstance(obj, types.ModuleType):
        assert importlib.import_module(obj.__name__) is obj
        return
    home = getattr(obj, "__module__", None)
    if not (isinstance(home, str) and home.split(".")[0] == "sekai"):
        return  # a constant or a type alias of other types: it has no defining sekai module
    module = importlib.import_module(home)
    assert getattr(module, getattr(obj, "__name__", name)) is obj


def test_classic_control_renderers_are_importable_from_the_package() -> None:
    from sekai.envs.classic_control import (
        AcrobotRenderer,
        CartPoleRenderer,
        MountainCarRenderer,
        PendulumRenderer,
        rendering,
    )

    renderers = [AcrobotRenderer, CartPoleRenderer, MountainCarRenderer, PendulumRenderer]
    assert set(rendering.__all__) == {cls.__name__ for cls in renderers}
    assert set(rendering.__all__) <= set(sekai.envs.classic_control.__all__)
    env = sekai.make("CartPole-v1")
    env.reset(seed=0)
    assert CartPoleRenderer(width=60, height=40).render(env).shape == (40, 60, 3)


@pytest.mark.parametrize("module", sorted(ALIASES))
def test_wrapper_alias_modules_re_export_the_grouped_classes(module: str) -> None:
    alias = importlib.import_module(f"sekai.wrappers.{module}")
    assert alias.__doc__ and "\n" not in alias.__doc__.strip()
    assert sorted(alias.__all__) == sorted(ALIASES[module])
    for name in alias.__all__:
        cls = getattr(alias, name)
        assert cls is getattr(sekai.wrappers, name) is getattr(sekai, name)
        assert cls.__module__ != alias.__name__
    defined_here = [
        value
        for value in vars(alias).values()
        if getattr(value, "__module__", None) == alias.__name__
    ]
    assert defined_here == []


def test_every_gymnasium_wrapper_counterpart_has_a_build_recipe() -> None:
    assert {name for names in ALIASES.values() for name in names} == set(BUILD)
    assert set(BUILD) <= set(sekai.wrappers.__all__)


@pytest.fixture
def registered() -> Iterator[list[str]]:
    ids: list[str] = []
    yield ids
    for env_id in ids:
        sekai.registry.deregister(env_id)


@pytest.mark.parametrize("path", ALIAS_PATHS)
def test_make_applies_an_additional_wrapper_given_by_its_gymnasium_path(
    path: str, registered: list[str]
) -> None:
    name = path.rsplit(":", 1)[1]
    env_id, kwargs = BUILD[name]
    base = sekai.spec(env_id)
    new_id = f"sekai_test_aliases/{path.replace('.', '_').replace(':', '_')}-v0"
    sekai.register(
        new_id,
        entry_point=base.entry_point,
        max_episode_steps=base.max_episode_steps,
        additional_wrappers=(WrapperSpec(name, path, kwargs),),
    )
    registered.append(new_id)
    env = sekai.make(new_id)
    assert type(env) is getattr(sekai.wrappers, name)
    assert env.spec is not None and env.spec.additional_wrappers[0].entry_point == path
    env.reset(seed=0)
    env.action_space.seed(0)
    env.step(env.action_space.sample())
    env.close()


@pytest.mark.parametrize(
    "entry_point", ["sekai.envs.classic_control:CartPoleEnv", "sekai.envs:CartPoleEnv"]
)
def test_package_paths_work_as_env_entry_points(entry_point: str, registered: list[str]) -> None:
    module, name = entry_point.split(":")
    target = getattr(importlib.import_module(module), name)
    new_id = f"sekai_test_aliases/{module.replace('.', '_')}-v0"
    sekai.register(new_id, entry_point=entry_point)
    registered.append(new_id)
    env = sekai.make(new_id)
    assert type(env) is target
    env.close()


def test_dir_of_sekai_lists_its_public_names_only() -> None:
    names = dir(sekai)
    assert names == sorted({*sekai.__all__, "renderer_for"})
    for leftover in ("annotations", "Any", "TYPE_CHECKING", "warnings", "_types", "_version"):
        assert leftover not in names
    for setup_name in ("annotations", "Any", "TYPE_CHECKING", "warnings"):
        assert not hasattr(sekai, setup_name)


def test_dir_of_sekai_compat_lists_its_public_names_only() -> None:
    assert dir(sekai.compat) == sorted(sekai.compat.__all__)

"""renderer_for: the renderer registered for an env id, a spec or an env."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.core import Env, ResetResult, StepResult
from sekai.error import EnvNotFound
from sekai.registry import EnvRegistry, EnvSpec
from sekai.rendering import BaseRenderer, Renderer
from sekai.spaces import Discrete

HERE = __name__

#: Every toy renderer built, with the keyword arguments it was given.
BUILT: list[dict[str, Any]] = []


class DotEnv(Env[int, int]):
    """A dot that moves right on every step."""

    def __init__(self, size: int = 3) -> None:
        self.size = size
        self.observation_space = Discrete(size + 1)
        self.action_space = Discrete(2)
        self.t = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[int]:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(0, {})

    def step(self, action: int) -> StepResult[int]:
        self.t += 1
        return StepResult(self.t, 1.0, self.t >= self.size, False, {})


class DotRenderer(BaseRenderer):
    """Draws the dot of a ``DotEnv`` in a one-row frame."""

    def __init__(self, *, width: int = 8, color: tuple[int, int, int] = (255, 0, 0)) -> None:
        BUILT.append({"width": width, "color": color})
        self.width = width
        self.color = color

    def render(self, env: Any) -> np.ndarray:
        frame = np.zeros((1, self.width, 3), dtype=np.uint8)
        frame[0, env.unwrapped.t % self.width] = self.color
        return frame


def dot_renderer(**kwargs: Any) -> DotRenderer:
    """A renderer factory given as a callable."""
    return DotRenderer(**kwargs)


def not_a_renderer(**kwargs: Any) -> int:
    return 7


def record_call(*args: Any, **kwargs: Any) -> DotRenderer:
    """Stands for code that must never run."""
    BUILT.append({"record_call": True})
    return DotRenderer()


@pytest.fixture(autouse=True)
def ids() -> Iterator[None]:
    """Toy ids in the default registry: a string renderer, a callable one, none, a bad one."""
    BUILT.clear()
    sekai.register(
        "rf/Dot-v0", f"{HERE}:DotEnv", max_episode_steps=5, renderer=f"{HERE}:DotRenderer"
    )
    sekai.register("rf/DotFn-v0", DotEnv, renderer=dot_renderer)
    sekai.register("rf/Bare-v0", DotEnv)
    sekai.register("rf/Bad-v0", DotEnv, renderer=f"{HERE}:not_a_renderer")
    yield
    for id in ("rf/Dot-v0", "rf/DotFn-v0", "rf/Bare-v0", "rf/Bad-v0"):
        sekai.deregister(id)
    BUILT.clear()


def test_exported_from_the_package_and_the_registry() -> None:
    assert sekai.renderer_for is sekai.registry.renderer_for
    assert sekai.registry.renderer_for is sekai.registry.registry.renderer_for


def test_from_an_id_with_the_renderer_options() -> None:
    renderer = sekai.renderer_for("rf/Dot-v0", width=4)
    assert isinstance(renderer, DotRenderer) and isinstance(renderer, Renderer)
    assert renderer.width == 4
    assert BUILT == [{"width": 4, "color": (255, 0, 0)}]
    assert sekai.renderer_for("rf/Dot-v0") is not renderer  # a new renderer on every call


def test_from_a_spec_and_from_envs() -> None:
    assert isinstance(sekai.renderer_for(sekai.spec("rf/DotFn-v0")), DotRenderer)
    env = sekai.make("rf/Dot-v0", size=2)
    env.reset(seed=0)
    env.step(1)
    renderer = sekai.renderer_for(env, width=3, color=(0, 9, 0))
    assert renderer.render(env)[0, 1].tolist() == [0, 9, 0]
    vec = sekai.make_vec("rf/Dot-v0", 2, vectorization_mode="sync")
    assert isinstance(sekai.renderer_for(vec), DotRenderer)
    vec.close()


def test_an_unknown_id_suggests() -> None:
    with pytest.raises(EnvNotFound) as info:
        sekai.renderer_for("rf/Dott-v0")
    assert "rf/Dot-v0" in info.value.suggestions


def test_no_renderer_says_how_to_register_one() -> None:
    with pytest.raises(
        ValueError, match=r"'rf/Bare-v0' has no renderer: register it with renderer="
    ):
        sekai.renderer_for("rf/Bare-v0")
    with pytest.raises(ValueError, match="has no renderer"):
        sekai.renderer_for(sekai.make("rf/Bare-v0"))


def test_an_env_without_spec_is_refused() -> None:
    with pytest.raises(ValueError, match="has no spec"):
        sekai.renderer_for(DotEnv())
    with pytest.raises(TypeError, match="an env id, an EnvSpec or an env, got int 3"):
        sekai.renderer_for(3)  # type: ignore[arg-type]


def test_the_result_must_be_a_renderer() -> None:
    with pytest.raises(TypeError, match=rf"'{HERE}:not_a_renderer' of 'rf/Bad-v0' returned int 7"):
        sekai.renderer_for("rf/Bad-v0")


def test_a_renderer_read_from_json_must_be_registered() -> None:
    saved = sekai.spec("rf/Dot-v0").to_json()
    assert json.loads(saved)["renderer"] == f"{HERE}:DotRenderer"
    assert isinstance(sekai.renderer_for(EnvSpec.from_json(saved)), DotRenderer)
    forged = EnvSpec.from_json(saved.replace(f"{HERE}:DotRenderer", f"{HERE}:record_call"))
    for build in (sekai.renderer_for, sekai.make, sekai.make_vec):
        with pytest.raises(ValueError, match=r"renderer .*registered: .*trust_entry_points=True"):
            build(forged)
    assert {"record_call": True} not in BUILT
    trusted = EnvSpec.from_json(forged.to_json(), trust_entry_points=True)
    assert isinstance(sekai.renderer_for(trusted), DotRenderer)
    assert {"record_call": True} in BUILT


def test_a_custom_registry_uses_its_own_ids() -> None:
    reg = EnvRegistry()
    reg.register("Own-v0", DotEnv, renderer=dot_renderer)
    assert isinstance(reg.renderer_for("Own-v0", width=2), DotRenderer)
    assert isinstance(reg.renderer_for(reg.make("Own-v0")), DotRenderer)
    with pytest.raises(EnvNotFound):
        sekai.renderer_for("Own-v0")


def test_a_built_in_renderer_class_as_the_renderer() -> None:
    sekai.register(
        "rf/CartPole-v1",
        "sekai.envs.classic_control.cartpole:CartPoleEnv",
        max_episode_steps=500,
        renderer="sekai.envs.classic_control.rendering:CartPoleRenderer",
    )
    try:
        env = sekai.make("rf/CartPole-v1")
        env.reset(seed=0)
        assert sekai.renderer_for(env, width=60, height=40).render(env).shape == (40, 60, 3)
        assert "renderer=sekai.envs.classic_control.rendering:CartPoleRenderer" in (
            sekai.spec("rf/CartPole-v1").pprint()
        )
    finally:
        sekai.deregister("rf/CartPole-v1")

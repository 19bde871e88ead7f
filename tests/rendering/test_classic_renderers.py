"""Classic-control renderers: frames, errors, and agreement with gymnasium's rgb_array."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.envs.classic_control.rendering import (
    AcrobotRenderer,
    CartPoleRenderer,
    MountainCarRenderer,
    PendulumRenderer,
)
from sekai.error import ResetRequired
from sekai.rendering import BaseRenderer, Renderer

RENDERERS: dict[str, tuple[Callable[[], Any], tuple[int, int, int]]] = {
    "CartPole-v1": (CartPoleRenderer, (400, 600, 3)),
    "MountainCar-v0": (MountainCarRenderer, (400, 600, 3)),
    "MountainCarContinuous-v0": (MountainCarRenderer, (400, 600, 3)),
    "Pendulum-v1": (PendulumRenderer, (500, 500, 3)),
    "Acrobot-v1": (AcrobotRenderer, (500, 500, 3)),
}


@pytest.mark.parametrize("env_id", RENDERERS)
def test_frames(env_id: str) -> None:
    make_renderer, shape = RENDERERS[env_id]
    renderer = make_renderer()
    assert isinstance(renderer, BaseRenderer) and isinstance(renderer, Renderer)
    env = sekai.make(env_id)  # wrapped in a TimeLimit
    with pytest.raises(ResetRequired):
        renderer.render(env)
    env.reset(seed=0)
    frame: Any = renderer.render(env)
    assert frame.shape == shape and frame.dtype == np.uint8
    assert (frame == 255).mean() > 0.8 and (frame != 255).any()
    frame[...] = 0
    assert (np.asarray(renderer.render(env.unwrapped)) != 0).any()  # a fresh array each time
    env.step(env.action_space.sample())
    assert np.shape(renderer.render(env)) == shape


def test_wrong_env_class() -> None:
    env = sekai.make("CartPole-v1")
    env.reset(seed=0)
    for renderer in (MountainCarRenderer(), PendulumRenderer(), AcrobotRenderer()):
        with pytest.raises(TypeError, match="CartPoleEnv"):
            renderer.render(env)
    with pytest.raises(TypeError):
        CartPoleRenderer().render(object())


def test_sizes() -> None:
    env = sekai.make("CartPole-v1")
    env.reset(seed=0)
    assert CartPoleRenderer(width=300, height=200).render(env).shape == (200, 300, 3)
    env = sekai.make("Acrobot-v1")
    env.reset(seed=0)
    assert AcrobotRenderer(size=200).render(env).shape == (200, 200, 3)
    with pytest.raises(ValueError):
        PendulumRenderer(size=0)
    with pytest.raises(TypeError, match=r"width must be an int, got float 600\.5"):
        MountainCarRenderer(width=600.5)  # type: ignore[arg-type]
    env = sekai.make("Pendulum-v1")
    env.reset(seed=0)
    assert PendulumRenderer(size=100.0).render(env).shape == (100, 100, 3)  # type: ignore[arg-type]


def test_colours() -> None:
    env = sekai.make("CartPole-v1")
    env.reset(seed=0)
    frame = CartPoleRenderer().render(env)
    colours = {tuple(c) for c in frame.reshape(-1, 3)}
    assert colours == {(255, 255, 255), (0, 0, 0), (202, 152, 101), (129, 132, 203)}
    assert (frame[399 - 100] == 0).all()  # the track line at y = 100


STATES: dict[str, Callable[[np.random.Generator], Any]] = {
    "CartPole-v1": lambda rng: [rng.uniform(-2.4, 2.4), 0.0, rng.uniform(-0.4, 0.4), 0.0],
    "MountainCar-v0": lambda rng: [rng.uniform(-1.2, 0.6), 0.0],
    "MountainCarContinuous-v0": lambda rng: [rng.uniform(-1.2, 0.6), 0.0],
    "Pendulum-v1": lambda rng: [rng.uniform(-np.pi, np.pi), 0.0],
    "Acrobot-v1": lambda rng: [*rng.uniform(-np.pi, np.pi, 2), 0.0, 0.0],
}


@pytest.mark.parametrize("env_id", RENDERERS)
def test_agrees_with_gymnasium(env_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    pytest.importorskip("pygame")
    gym = pytest.importorskip("gymnasium")
    reference = gym.make(env_id, render_mode="rgb_array").unwrapped
    env = sekai.make(env_id)
    base: Any = env.unwrapped
    reference.reset(seed=0)
    env.reset(seed=0)
    renderer = RENDERERS[env_id][0]()
    rng = np.random.default_rng(0)
    for _ in range(5):
        state = np.array(STATES[env_id](rng))
        reference.state = state.copy()
        base.state = state.copy() if env_id == "MountainCarContinuous-v0" else tuple(state)
        if env_id == "Pendulum-v1":
            reference.last_u = None  # gymnasium draws a torque arrow that sekai does not
        expected, frame = reference.render(), renderer.render(env)
        assert frame.shape == expected.shape
        assert (frame == expected).all(axis=-1).mean() > 0.98
    reference.close()

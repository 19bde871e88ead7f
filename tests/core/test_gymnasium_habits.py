"""Code written for gymnasium: results unpack, and its names for rendering and seeding say
where sekai keeps them (``dir(sekai)``: see test_public_names)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.core import (
    Env,
    MAResetResult,
    MAStepResult,
    MultiAgentEnv,
    ResetResult,
    StepResult,
    Wrapper,
)
from sekai.rendering import BaseRenderer
from sekai.spaces import Discrete

HERE = __name__
RENDERER_POINTERS = ("sekai.renderer_for(env)", "sekai.rendering", "sekai.compat.to_gymnasium")


def step_result() -> StepResult[np.ndarray]:
    return StepResult(np.arange(3), 1.5, True, False, {"k": 1})


# results ------------------------------------------------------------------------------------
RESULTS: list[tuple[Any, tuple[str, ...]]] = [
    (step_result(), ("observation", "reward", "terminated", "truncated", "info")),
    (ResetResult("obs", {"k": 1}), ("observation", "info")),
    (
        MAStepResult({"a": 1}, {"a": 0.5}, {"a": False}, {"a": True}, {"a": {}}),
        ("observations", "rewards", "terminated", "truncated", "info"),
    ),
    (MAResetResult({"a": 1}, {"a": {"k": 2}}), ("observations", "info")),
]


@pytest.mark.parametrize(("result", "names"), RESULTS, ids=lambda r: type(r).__name__)
def test_a_result_unpacks_indexes_and_counts_as_its_fields_in_order(
    result: Any, names: tuple[str, ...]
) -> None:
    fields = tuple(getattr(result, name) for name in names)
    assert names == tuple(field.name for field in dataclasses.fields(result))
    assert all(a is b for a, b in zip(tuple(result), fields, strict=True))
    assert len(result) == len(names)
    assert all(result[i] is fields[i] for i in range(len(names)))
    assert result[-1] is fields[-1]
    assert result[np.int64(0)] is fields[0]
    assert result[1:] == fields[1:]
    with pytest.raises(IndexError):
        result[len(names)]
    with pytest.raises(TypeError):
        result["observation"]


def test_gymnasium_style_unpacking_of_a_real_env() -> None:
    env = sekai.make("CartPole-v1")
    obs, info = env.reset(seed=3)
    assert isinstance(info, dict)
    np.testing.assert_array_equal(obs, env.reset(seed=3).observation)
    obs, reward, terminated, truncated, info = env.step(0)
    assert (reward, terminated, truncated) == (1.0, False, False)
    assert obs.shape == (4,) and isinstance(info, dict)
    assert env.reset(seed=3)[0].shape == (4,)
    with pytest.raises(ValueError, match="too many values to unpack"):
        obs, info = env.step(0)


def test_results_stay_frozen_slotted_and_compared_by_field() -> None:
    result = step_result()
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.reward = 0.0  # type: ignore[misc]
    with pytest.raises(TypeError, match="does not support item assignment"):
        result[1] = 0.0  # type: ignore[index]
    assert not hasattr(result, "__dict__")
    same = StepResult(result.observation, 1.5, True, False, {"k": 1})
    assert result == same
    assert result != StepResult(result.observation, 2.0, True, False, {"k": 1})
    assert result != tuple(result)  # a result equals results, not tuples
    assert ResetResult(1, {}) == ResetResult(1, {}) != MAResetResult(1, {})  # type: ignore[arg-type]


# rendering and seeding ----------------------------------------------------------------------
class Counter(Env[int, int]):
    """Counts steps; draws nothing."""

    def __init__(self) -> None:
        self.observation_space = Discrete(10)
        self.action_space = Discrete(2)
        self.t = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[int]:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(0, {})

    def step(self, action: int) -> StepResult[int]:
        self.t += 1
        return StepResult(self.t, 0.0, self.t >= 9, False, {})


class Layer(Wrapper[int, int, int, int]):
    """A wrapper that changes nothing."""


class SelfDrawing(Counter):
    """An env that does define gymnasium's names."""

    def __init__(self, render_mode: str | None = None) -> None:
        super().__init__()
        self.render_mode = render_mode

    def render(self) -> str:
        return f"t={self.t}"


class CounterRenderer(BaseRenderer):
    def render(self, env: Any) -> Any:
        return np.full((1, 1, 3), env.unwrapped.t, dtype=np.uint8)


class ForwardingFactory:
    """An entry point that passes every keyword argument on to ``Counter``."""

    def __call__(self, **kwargs: Any) -> Counter:
        return Counter(**kwargs)


@pytest.fixture
def ids() -> Iterator[None]:
    sekai.register("habits/Counter-v0", f"{HERE}:Counter", renderer=f"{HERE}:CounterRenderer")
    sekai.register("habits/Drawing-v0", f"{HERE}:SelfDrawing")
    sekai.register("habits/Forwarding-v0", ForwardingFactory())
    sekai.register("habits/RendererIsEnv-v0", Counter, renderer=Counter)
    yield
    for env_id in ("Counter", "Drawing", "Forwarding", "RendererIsEnv"):
        sekai.deregister(f"habits/{env_id}-v0")


class Solo(MultiAgentEnv[int, int, str]):
    """One agent counting steps."""

    def __init__(self) -> None:
        self.possible_agents = ["solo"]
        self.agents = []
        self.observation_spaces = {"solo": Discrete(10)}
        self.action_spaces = {"solo": Discrete(2)}

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self.agents = ["solo"]
        return MAResetResult({"solo": 0}, {})

    def step(self, actions: dict[str, int]) -> Any:
        return MAStepResult({"solo": 1}, {"solo": 0.0}, {"solo": True}, {"solo": False}, {})


STACKS = {
    "bare": Counter,
    "wrapped": lambda: Layer(Layer(Counter())),
    "made": lambda: sekai.make("CartPole-v1"),
}
KINDS = {**STACKS, "multi-agent": Solo}
GYMNASIUM_NAMES = ("render", "render_mode", "np_random")


@pytest.mark.parametrize("build", KINDS.values(), ids=list(KINDS))
@pytest.mark.parametrize("name", ["render", "render_mode"])
def test_render_names_point_to_renderers(build: Any, name: str) -> None:
    env = build()
    assert not hasattr(env, name)
    with pytest.raises(AttributeError, match=f"^{type(env).__name__} has no {name}: ") as info:
        getattr(env, name)
    for pointer in RENDERER_POINTERS:
        assert pointer in str(info.value)
    assert "render_mode='rgb_array'" in str(info.value)


@pytest.mark.parametrize("build", STACKS.values(), ids=list(STACKS))
def test_np_random_points_to_rng(build: Any) -> None:
    env = build()
    assert not hasattr(env, "np_random")
    with pytest.raises(AttributeError, match=r"has no np_random: .* in env\.rng") as info:
        env.np_random  # noqa: B018
    assert type(env).__name__ in str(info.value)
    draws = []
    for seed in (5, 5, 6):
        env.reset(seed=seed)
        assert env.rng is env.unwrapped.rng
        draws.append(env.rng.integers(2**32))
    assert draws[0] == draws[1] != draws[2]


@pytest.mark.parametrize("build", KINDS.values(), ids=list(KINDS))
def test_gymnasium_names_are_no_attributes(build: Any) -> None:
    """The hints answer reads only: no listing, class or instance shows the names."""
    env = build()
    for name in GYMNASIUM_NAMES:
        assert name not in dir(env)
        assert not hasattr(type(env), name)
        assert all(name not in vars(klass) for klass in type(env).__mro__)
        with pytest.raises(AttributeError, match=f"^{type(env).__name__} has no {name}: "):
            getattr(env, name)


def test_get_attr_and_has_attr_see_no_gymnasium_names() -> None:
    env = Layer(Counter())
    for name in GYMNASIUM_NAMES:
        assert not env.has_attr(name)
        with pytest.raises(AttributeError):
            env.get_attr(name)


def test_other_missing_attributes_keep_the_usual_error() -> None:
    env = Layer(Counter())
    with pytest.raises(
        AttributeError, match=r"^'Layer' object has no attribute 'nothing'$"
    ) as info:
        env.nothing  # type: ignore[attr-defined]  # noqa: B018
    assert info.value.name == "nothing" and info.value.obj is env
    with pytest.raises(AttributeError, match=r"^'Solo' object has no attribute 'nothing'$"):
        Solo().nothing  # type: ignore[attr-defined]  # noqa: B018


def test_an_env_that_defines_the_names_keeps_them() -> None:
    env = Layer(SelfDrawing(render_mode="ansi"))
    env.reset()
    env.step(0)
    assert env.unwrapped.render() == "t=1"  # type: ignore[attr-defined]
    assert env.get_attr("render_mode") == "ansi"
    bare = Counter()
    bare.render_mode = "rgb_array"  # type: ignore[attr-defined]
    assert bare.render_mode == "rgb_array"  # type: ignore[attr-defined]
    assert not hasattr(Counter(), "render_mode")


def test_the_renderer_the_message_names_draws_the_env(ids: None) -> None:
    env = sekai.make("habits/Counter-v0")
    env.reset()
    env.step(0)
    assert np.asarray(sekai.renderer_for(env).render(env))[0, 0].tolist() == [1, 1, 1]


def test_an_env_is_no_renderer_for_renderer_for(ids: None) -> None:
    with pytest.raises(TypeError, match=r"returned Counter .* lacks render"):
        sekai.renderer_for("habits/RendererIsEnv-v0")


def test_from_gymnasium_keeps_the_gymnasium_generator_in_rng() -> None:
    gymnasium = pytest.importorskip("gymnasium")
    env = sekai.compat.from_gymnasium(gymnasium.make("CartPole-v1"))
    env.reset(seed=1)
    assert env.rng is env.gym_env.np_random
    with pytest.raises(AttributeError, match=r"in env\.rng"):
        env.np_random  # type: ignore[attr-defined]  # noqa: B018


# make(render_mode=...) ----------------------------------------------------------------------
def test_make_refuses_render_mode_saying_how_sekai_draws(ids: None) -> None:
    for env_id in ("CartPole-v1", "habits/Counter-v0", "habits/Forwarding-v0"):
        with pytest.raises(TypeError) as info:
            sekai.make(env_id, render_mode="rgb_array")
        message = str(info.value)
        assert message.startswith(
            f"make({env_id!r}, render_mode='rgb_array'): sekai envs have no render_mode; "
        )
        for pointer in RENDERER_POINTERS:
            assert pointer in message
        assert isinstance(info.value.__cause__, TypeError)
        assert "unexpected keyword argument 'render_mode'" in str(info.value.__cause__)


def test_make_passes_render_mode_to_an_env_that_takes_it(ids: None) -> None:
    env = sekai.make("habits/Drawing-v0", render_mode="ansi")
    assert env.unwrapped.render_mode == "ansi"  # type: ignore[attr-defined]
    assert env.spec is not None and env.spec.kwargs == {"render_mode": "ansi"}


def test_other_type_errors_of_make_are_left_alone(ids: None) -> None:
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'colour'") as info:
        sekai.make("habits/Counter-v0", colour="red")
    assert "render_mode" not in str(info.value)


@pytest.mark.parametrize(
    ("env_id", "mode", "call"),
    [
        ("CartPole-v1", "sync", "make_vec"),
        ("CartPole-v1", "async", "make_vec"),
        ("CartPole-v1", "proc", "make_vec"),
        ("Trading-v0", "native", "make_vec"),
        # Its signature takes any keyword: refused when the first sub-env is made.
        ("habits/Forwarding-v0", "sync", "make"),
    ],
)
def test_make_vec_refuses_render_mode(ids: None, env_id: str, mode: str, call: str) -> None:
    with pytest.raises(TypeError) as info:
        sekai.make_vec(env_id, 2, vectorization_mode=mode, render_mode="rgb_array")
    message = str(info.value)
    assert message.startswith(f"{call}({env_id!r}, render_mode='rgb_array'): sekai envs have")
    for pointer in RENDERER_POINTERS:
        assert pointer in message


def test_make_vec_passes_render_mode_to_sub_envs_that_take_it(ids: None) -> None:
    vec = sekai.make_vec("habits/Drawing-v0", 2, vectorization_mode="sync", render_mode="ansi")
    assert vec.get_attr("render_mode") == ["ansi", "ansi"]
    vec.close()

"""The native classic-control envs against their single envs, bit for bit.

Every sub-env starts from a state set on both sides (boundaries included), takes the same
random actions, and must give the single env's observation, reward and flag to the last bit
(compared as integers, so ``-0.0`` differs from ``0.0``); a sub-env that finishes is
reset by the native env and its new state copied into the single env.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.envs.classic_control import (
    AcrobotEnv,
    AcrobotVecEnv,
    CartPoleEnv,
    CartPoleVecEnv,
    ContinuousMountainCarEnv,
    ContinuousMountainCarVecEnv,
    MountainCarEnv,
    MountainCarVecEnv,
    PendulumEnv,
    PendulumVecEnv,
)
from sekai.error import InvalidAction, ResetRequired
from sekai.testing import check_native_matches, check_vector_backends

Sampler = Callable[[np.random.Generator, int], np.ndarray]


def _bits(value: Any) -> np.ndarray:
    """The bit patterns of ``value``'s floats, so that comparing them is bit identity."""
    array = np.asarray(value)
    return array.view(np.uint64 if array.dtype == np.float64 else np.uint32)


def _with_edges(rng: np.random.Generator, values: np.ndarray, edges: list[float]) -> np.ndarray:
    """``values`` with a fifth of its entries replaced by ``edges`` and their neighbours."""
    near = [np.nextafter(e, d) for e in edges for d in (-np.inf, np.inf)]
    pool = np.array(edges + near, dtype=np.float64)
    chosen = rng.random(values.shape) < 0.2
    values[chosen] = rng.choice(pool, size=int(chosen.sum()))
    return values


def _cartpole_states(rng: np.random.Generator, n: int) -> np.ndarray:
    states = rng.uniform(-1.0, 1.0, size=(n, 4)) * [2.4, 3.0, 0.21, 3.0]
    theta = 12 * 2 * math.pi / 360
    states[:, 0] = _with_edges(rng, states[:, 0], [-2.4, 2.4, 0.0])
    states[:, 2] = _with_edges(rng, states[:, 2], [-theta, theta, 0.0])
    return states


def _mountain_car_states(rng: np.random.Generator, n: int) -> np.ndarray:
    position = _with_edges(rng, rng.uniform(-1.2, 0.6, n), [-1.2, 0.6, 0.5, 0.45])
    velocity = _with_edges(rng, rng.uniform(-0.07, 0.07, n), [-0.07, 0.07, 0.0])
    return np.stack([position, velocity], axis=1)


def _pendulum_states(rng: np.random.Generator, n: int) -> np.ndarray:
    theta = _with_edges(rng, rng.uniform(-10.0, 10.0, n), [-math.pi, math.pi, 0.0, 3 * math.pi])
    theta_dot = _with_edges(rng, rng.uniform(-8.0, 8.0, n), [-8.0, 8.0, 0.0])
    return np.stack([theta, theta_dot], axis=1)


def _acrobot_states(rng: np.random.Generator, n: int) -> np.ndarray:
    limits = [math.pi, math.pi, 4 * math.pi, 9 * math.pi]
    states = rng.uniform(-1.0, 1.0, size=(n, 4)) * limits
    for j, limit in enumerate(limits):
        states[:, j] = _with_edges(rng, states[:, j], [-limit, limit, 0.0])
    return states


def _integers(high: int) -> Sampler:
    return lambda rng, n: rng.integers(0, high, size=n)


def _floats(limit: float, dtype: Any = np.float32) -> Sampler:
    """Actions beyond ``[-limit, limit]`` too, with the bounds themselves among them."""

    def sample(rng: np.random.Generator, n: int) -> np.ndarray:
        values = _with_edges(rng, rng.uniform(-1.5 * limit, 1.5 * limit, n), [-limit, limit])
        return values.astype(dtype)[:, None]

    return sample


@dataclass(frozen=True)
class Case:
    """One env: its two classes, how to draw states and actions, how to set a state, and the
    attributes of the single env that ``get_attr`` gives per sub-env."""

    env: Callable[..., Any]
    vec: Callable[..., Any]
    states: Sampler
    actions: Sampler
    set_single: Callable[[Any, np.ndarray], None]
    per_env: tuple[str, ...] = ()


def _set_tuple(env: Any, row: np.ndarray) -> None:
    env.state = tuple(row.tolist())


def _set_array(env: Any, row: np.ndarray) -> None:
    env.state = np.array(row)  # its dtype too: float32 as after a step, float64 after reset


def _set_cartpole(env: Any, row: np.ndarray) -> None:
    env.state = tuple(row.tolist())
    env.steps_beyond_terminated = None  # as reset() leaves it


CASES = {
    "CartPole": Case(
        CartPoleEnv,
        CartPoleVecEnv,
        _cartpole_states,
        _integers(2),
        _set_cartpole,
        ("steps_beyond_terminated",),
    ),
    "MountainCar": Case(
        MountainCarEnv, MountainCarVecEnv, _mountain_car_states, _integers(3), _set_tuple
    ),
    "MountainCarContinuous": Case(
        ContinuousMountainCarEnv,
        ContinuousMountainCarVecEnv,
        lambda rng, n: _mountain_car_states(rng, n).astype(np.float32),
        _floats(1.0),
        _set_array,
    ),
    "Pendulum": Case(
        PendulumEnv, PendulumVecEnv, _pendulum_states, _floats(2.0), _set_tuple, ("last_u",)
    ),
    "Acrobot": Case(AcrobotEnv, AcrobotVecEnv, _acrobot_states, _integers(3), _set_tuple),
}


def _same_value(a: Any, b: Any) -> bool:
    """``a`` and ``b`` are both None, or scalars of one type with the same bytes."""
    if a is None or b is None:
        return a is b
    return type(a) is type(b) and np.asarray(a).tobytes() == np.asarray(b).tobytes()


def _run_from_states(
    case: Case,
    *,
    n: int,
    steps: int,
    seed: int,
    attrs: dict[str, Any] | None = None,
    **kwargs: Any,
) -> int:
    """Step ``n`` set states on both sides; returns how many episodes ended.

    ``kwargs`` build both envs, ``attrs`` are then set on both. ``case`` may be changed
    with ``dataclasses.replace`` to draw other states or actions.
    """
    rng = np.random.default_rng(seed)
    vec = case.vec(n, **kwargs)
    singles = [case.env(**kwargs) for _ in range(n)]
    for name, value in (attrs or {}).items():
        vec.set_attr(name, value)
        for env in singles:
            setattr(env, name, value)
    vec.reset(seed=seed)
    for env in singles:
        env.reset(seed=0)
    states = case.states(rng, n)
    vec.state = states
    for env, row in zip(singles, states, strict=True):
        case.set_single(env, row)
    ended = 0
    for k in range(steps):
        actions = case.actions(rng, n)
        result = vec.step(actions)
        answers = {name: vec.get_attr(name) for name in case.per_env}
        for i, env in enumerate(singles):
            single = env.step(actions[i])
            done = bool(result.terminated[i])
            obs = result.infos[i]["final_observation"] if done else result.observations[i]
            where = f"step {k}, sub-env {i}, from {states[i].tolist()}"
            assert obs.dtype == single.observation.dtype, where
            assert np.array_equal(_bits(obs), _bits(single.observation)), where
            assert _bits(result.rewards[i]) == _bits(float(single.reward)), where
            assert done == single.terminated, where
            if done:
                ended += 1
                case.set_single(env, vec.state[i])
            for name, values in answers.items():
                assert _same_value(values[i], getattr(env, name)), (name, where)
    vec.close()
    return ended


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_sub_env_is_its_single_env_bit_for_bit(name: str) -> None:
    ended = _run_from_states(CASES[name], n=200, steps=50, seed=1)
    if name != "Pendulum":  # it never ends
        assert ended > 0  # the episode ends (and the autoreset) were exercised too


@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int64, np.bool_])
@pytest.mark.parametrize("name", ["MountainCarContinuous", "Pendulum"])
def test_continuous_actions_keep_their_dtype_as_in_the_single_env(name: str, dtype: Any) -> None:
    case = CASES[name]
    limit = 1.0 if name == "MountainCarContinuous" else 2.0
    actions = _floats(limit, dtype) if dtype in (np.float64, np.float16) else _integers(3)
    if dtype == np.bool_:
        actions = lambda rng, n: rng.random((n, 1)) < 0.5  # noqa: E731
    elif dtype == np.int64:
        actions = lambda rng, n: rng.integers(-3, 4, size=(n, 1))  # noqa: E731
    _run_from_states(dataclasses.replace(case, actions=actions), n=100, steps=20, seed=4)


def test_mountain_car_continuous_from_float64_states_as_after_a_reset() -> None:
    case = dataclasses.replace(CASES["MountainCarContinuous"], states=_mountain_car_states)
    assert _run_from_states(case, n=200, steps=30, seed=5) > 0
    goal = {"goal_velocity": 0.07}  # reached only by a clipped velocity, a Python float
    assert _run_from_states(case, n=200, steps=30, seed=6, **goal) >= 0


def test_cartpole_bit_identity_holds_for_the_semi_implicit_integrator_and_sutton_barto() -> None:
    case = CASES["CartPole"]
    attrs = {"kinematics_integrator": "semi-implicit"}
    ended = _run_from_states(case, n=100, steps=30, seed=2, attrs=attrs, sutton_barto_reward=True)
    assert ended > 0


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("max_episode_steps", [None, 7])
def test_one_sub_env_replays_the_single_env_through_resets(
    name: str, max_episode_steps: int | None
) -> None:
    case = CASES[name]
    problems = check_native_matches(
        lambda: _limited(case.env(), max_episode_steps),
        lambda **kw: case.vec(max_episode_steps=max_episode_steps, **kw),
        num_envs=1,
        steps=300,
        seed=3,
    )
    assert problems == []


def _limited(env: Any, steps: int | None) -> Any:
    return env if steps is None else sekai.wrappers.TimeLimit(env, max_episode_steps=steps)


@pytest.mark.parametrize("name", sorted(CASES))
def test_native_envs_keep_the_vector_contract_on_every_backend(name: str) -> None:
    case = CASES[name]
    problems = check_vector_backends(
        case.env, native=case.vec, backends=("sync", "native"), num_envs=3, n_steps=40
    )
    assert problems == []


@pytest.mark.parametrize("name", sorted(set(CASES) - {"Pendulum"}))
def test_reset_options_bound_the_start_states(name: str) -> None:
    vec = CASES[name].vec(64)
    vec.reset(seed=0, options={"low": -0.01, "high": 0.01})
    assert np.abs(vec.state).max() <= 0.01
    vec.reset(seed=0, options=[{"low": 0.5, "high": 0.5}] + [None] * 63)
    assert vec.state[0, 0] == 0.5
    assert np.abs(vec.state[1:, 0]).max() <= 0.6
    with pytest.raises(ValueError, match="must not exceed"):
        vec.reset(options={"low": 1.0, "high": 0.0})
    with pytest.raises(TypeError):
        vec.reset(options={"low": "a"})


def test_pendulum_reset_options_bound_angle_and_speed() -> None:
    vec = PendulumVecEnv(64)
    vec.reset(seed=0, options={"x_init": 0.1, "y_init": 0.2})
    assert (np.abs(vec.state).max(axis=0) <= [0.1, 0.2]).all()
    assert np.abs(vec.state).max(axis=0)[0] > 0.05
    vec.reset(seed=0, options=[{"x_init": 0.0, "y_init": 0.0}, None] * 32)
    assert np.array_equal(vec.state[0::2], np.zeros((32, 2)))
    with pytest.raises(TypeError):
        vec.reset(options={"x_init": "a"})


@pytest.mark.parametrize("name", ["CartPole", "MountainCar"])
def test_discrete_actions_are_checked_like_the_single_env(name: str) -> None:
    case = CASES[name]
    vec = case.vec(3)
    with pytest.raises(ResetRequired):
        vec.step(np.zeros(3, dtype=np.int64))
    vec.reset(seed=0)
    high = vec.action_space.n
    for bad in (
        np.array([0, 1, high]),
        np.array([0, -1, 0]),
        np.array([0.0, 1.0, 0.0]),
        np.array([True, False, True]),
        np.zeros(4, dtype=np.int64),
        "abc",
    ):
        with pytest.raises(InvalidAction):
            vec.step(bad)
    for good in ([0, 1, 0], np.array([1, 0, 1], dtype=np.uint8), np.array([0, 1, 1], np.int32)):
        assert vec.step(good).observations.shape == (3, vec.observation_space.shape[0])


@pytest.mark.parametrize("name", ["MountainCarContinuous", "Pendulum"])
def test_continuous_actions_are_checked_like_the_single_env(name: str) -> None:
    vec = CASES[name].vec(3)
    vec.reset(seed=0)
    with pytest.raises(TypeError, match="numeric"):
        vec.step(np.array([["a"], ["b"], ["c"]]))
    for bad in (np.zeros((4, 1), np.float32), np.zeros((3, 0), np.float32), np.float32(0.5)):
        with pytest.raises(InvalidAction):
            vec.step(bad)
    # Only the first element of a row counts, whatever the row's shape, as in the single env.
    wide = vec.step(np.array([[0.5, 9.0], [0.5, -9.0], [0.5, 0.0]], np.float32))
    assert wide.observations.shape == (3, vec.observation_space.shape[0])


def test_state_is_a_copy_and_checked_on_assignment() -> None:
    vec = CartPoleVecEnv(2)
    vec.reset(seed=0)
    state = vec.state
    state[:] = 1.0
    assert not np.array_equal(vec.state, state)
    vec.state = np.zeros((2, 4), dtype=np.float32)
    assert vec.state.dtype == np.float64
    assert vec.get_attr("state")[1].tolist() == [0.0, 0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="shape"):
        vec.state = np.zeros((3, 4))
    with pytest.raises(TypeError, match="real array"):
        vec.state = [["a"] * 4] * 2


def test_parameters_are_the_templates_and_shared() -> None:
    vec = CartPoleVecEnv(4, sutton_barto_reward=True)
    assert vec.template.sutton_barto_reward is True
    assert vec.get_attr("x_threshold") == [2.4] * 4
    vec.set_attr("x_threshold", 0.0)  # every step now ends the episode
    vec.reset(seed=0)
    result = vec.step(np.ones(4, dtype=np.int64))
    assert result.terminated.all()
    assert result.rewards.tolist() == [-1.0] * 4
    with pytest.raises(ValueError, match="equal values"):
        vec.set_attr("force_mag", [1.0, 2.0, 3.0, 4.0])
    assert CartPoleVecEnv.metadata == CartPoleEnv.metadata


def test_observation_bounds_are_the_templates() -> None:
    for vec, names in (
        (MountainCarVecEnv(2), ("low", "high")),
        (ContinuousMountainCarVecEnv(2), ("low_state", "high_state")),
    ):
        for name in names:
            value = getattr(vec.template, name)
            answers = vec.get_attr(name)
            assert len(answers) == 2 and all(answer is value for answer in answers)
            np.testing.assert_array_equal(value, getattr(vec.observation_space, name.split("_")[0]))


def test_cartpole_steps_beyond_terminated_per_sub_env() -> None:
    """0 for a sub-env frozen by termination, as the single env after that step, else None."""
    single = CartPoleEnv()
    single.reset(seed=0)
    single.state = (2.39, 5.0, 0.0, 0.0)
    assert single.step(1).terminated and single.steps_beyond_terminated == 0
    # Sub-env 1 is cut by the limit, and its next state would be a termination.
    vec = CartPoleVecEnv(3, autoreset=False, max_episode_steps=1)
    vec.reset(seed=0)
    assert vec.get_attr("steps_beyond_terminated") == [None, None, None]
    vec.state = np.array([[2.39, 5.0, 0.0, 0.0], [2.3, 4.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    first = vec.step(np.array([1, 1, 1]))
    assert first.terminated.tolist() == [True, False, False] and vec.frozen.all()
    assert vec.get_attr("steps_beyond_terminated") == [0, None, None]
    vec.step(np.array([1, 1, 1]))
    assert vec.get_attr("steps_beyond_terminated") == [0, None, None]
    vec.reset(options={"reset_mask": np.array([True, False, False])})
    assert vec.get_attr("steps_beyond_terminated") == [None, None, None]
    again = CartPoleVecEnv(1)
    again.reset(seed=0)
    again.state = np.array([[2.39, 5.0, 0.0, 0.0]])
    assert again.step(np.array([1])).terminated[0]
    assert again.get_attr("steps_beyond_terminated") == [None]  # reset at once


def test_frozen_sub_envs_keep_their_state() -> None:
    vec = CartPoleVecEnv(2, autoreset=False)
    vec.reset(seed=0)
    vec.state = np.array([[2.39, 5.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    first = vec.step(np.array([1, 1]))
    assert first.terminated.tolist() == [True, False]
    frozen = vec.state[0].copy()
    second = vec.step(np.array([0, 0]))
    assert np.array_equal(vec.state[0], frozen)
    assert np.array_equal(second.observations[0], first.observations[0])
    assert second.rewards[0] == 0.0 and second.infos[0] == {}


def test_bit_identity_holds_where_numpy_array_power_is_not_c_pow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sekai.envs.classic_control import _vector

    monkeypatch.setattr(_vector, "array_power_is_c_pow", lambda dtype: False)
    x = np.random.default_rng(0).uniform(-5.0, 5.0, 1000)
    assert np.array_equal(_vector.square(x), np.array([v**2 for v in x.tolist()]))
    for name in ("Pendulum", "Acrobot"):
        _run_from_states(CASES[name], n=20, steps=20, seed=7)

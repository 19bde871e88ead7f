"""Behaviour of the classic-control environments: contract, validation, seeding, errors."""

from __future__ import annotations

import asyncio
import copy
import math
import pickle
import warnings
from typing import Any

import numpy as np
import pytest

from sekai.core.env import Env
from sekai.core.result import ResetResult, StepResult
from sekai.envs.classic_control import (
    AcrobotEnv,
    CartPoleEnv,
    ContinuousMountainCarEnv,
    MountainCarEnv,
    PendulumEnv,
)
from sekai.error import InvalidAction, ResetRequired
from sekai.spaces import Box, Discrete

DISCRETE = [CartPoleEnv, MountainCarEnv, AcrobotEnv]
CONTINUOUS = [ContinuousMountainCarEnv, PendulumEnv]
ALL = DISCRETE + CONTINUOUS
LOW_HIGH = [CartPoleEnv, MountainCarEnv, ContinuousMountainCarEnv, AcrobotEnv]


def _valid_action(env: Env[Any, Any]) -> Any:
    if isinstance(env.action_space, Discrete):
        return 1
    return np.array([0.5], dtype=np.float32)


# --- spaces, metadata, attributes ------------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "fps"),
    [
        (CartPoleEnv, 50),
        (MountainCarEnv, 30),
        (ContinuousMountainCarEnv, 30),
        (PendulumEnv, 30),
        (AcrobotEnv, 15),
    ],
)
def test_metadata_render_fps(cls: type[Env[Any, Any]], fps: int) -> None:
    assert cls.metadata == {"render_fps": fps}


def test_spaces() -> None:
    cartpole = CartPoleEnv()
    theta2 = np.float32(2 * 12 * 2 * math.pi / 360)
    assert cartpole.observation_space == Box(
        np.array([-4.8, -np.inf, -theta2, -np.inf], dtype=np.float32),
        np.array([4.8, np.inf, theta2, np.inf], dtype=np.float32),
    )
    assert cartpole.action_space == Discrete(2)
    mc_obs = Box(np.array([-1.2, -0.07]), np.array([0.6, 0.07]), dtype=np.float32)
    assert MountainCarEnv().observation_space == mc_obs
    assert MountainCarEnv().action_space == Discrete(3)
    assert ContinuousMountainCarEnv().observation_space == mc_obs
    assert ContinuousMountainCarEnv().action_space == Box(-1.0, 1.0, (1,), np.float32)
    assert PendulumEnv().observation_space == Box(
        np.array([-1.0, -1.0, -8.0]), np.array([1.0, 1.0, 8.0]), dtype=np.float32
    )
    assert PendulumEnv().action_space == Box(-2.0, 2.0, (1,), np.float32)
    high = np.array([1, 1, 1, 1, 4 * math.pi, 9 * math.pi], dtype=np.float32)
    assert AcrobotEnv().observation_space == Box(-high, high, dtype=np.float32)
    assert AcrobotEnv().action_space == Discrete(3)


def test_public_constants() -> None:
    env = CartPoleEnv()
    assert env.x_threshold == 2.4
    assert env.theta_threshold_radians == 12 * 2 * math.pi / 360
    assert (env.gravity, env.masscart, env.masspole, env.length) == (9.8, 1.0, 0.1, 0.5)
    assert (env.total_mass, env.polemass_length) == (1.1, 0.05)
    assert (env.force_mag, env.tau, env.kinematics_integrator) == (10.0, 0.02, "euler")
    assert env.state is None and env.sutton_barto_reward is False
    mc = MountainCarEnv()
    assert (mc.min_position, mc.max_position, mc.max_speed) == (-1.2, 0.6, 0.07)
    assert (mc.goal_position, mc.force, mc.gravity, mc.goal_velocity) == (0.5, 0.001, 0.0025, 0.0)
    cmc = ContinuousMountainCarEnv(goal_velocity=0.02)
    assert (cmc.min_action, cmc.max_action, cmc.goal_position, cmc.power) == (
        -1.0,
        1.0,
        0.45,
        0.0015,
    )
    assert cmc.goal_velocity == 0.02
    pendulum = PendulumEnv()
    assert (pendulum.max_speed, pendulum.max_torque, pendulum.dt) == (8, 2.0, 0.05)
    assert (pendulum.g, pendulum.m, pendulum.l, pendulum.last_u) == (10.0, 1.0, 1.0, None)
    assert AcrobotEnv.AVAIL_TORQUE == (-1.0, 0.0, 1.0)
    assert (AcrobotEnv.dt, AcrobotEnv.MAX_VEL_1, AcrobotEnv.MAX_VEL_2) == (
        0.2,
        4 * math.pi,
        9 * math.pi,
    )
    assert AcrobotEnv.torque_noise_max == 0.0 and AcrobotEnv.book_or_nips == "book"


@pytest.mark.parametrize("cls", [MountainCarEnv, ContinuousMountainCarEnv])
def test_height_is_static(cls: Any) -> None:
    assert cls.height(0.0) == pytest.approx(0.55)
    assert cls.height(math.pi / 6) == pytest.approx(1.0)
    xs = np.linspace(-1.2, 0.6, 7)
    np.testing.assert_allclose(cls.height(xs), 0.45 * np.sin(3 * xs) + 0.55)


def test_str() -> None:
    assert str(CartPoleEnv()) == "<CartPoleEnv>"


# --- results ---------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ALL)
def test_results_types_and_fresh_observations(cls: type[Env[Any, Any]]) -> None:
    env = cls()
    reset = env.reset(seed=3)
    assert isinstance(reset, ResetResult) and reset.info == {}
    assert reset.observation.dtype == np.float32
    assert env.observation_space.contains(reset.observation)
    previous = reset.observation
    for _ in range(20):
        result = env.step(_valid_action(env))
        assert isinstance(result, StepResult)
        assert type(result.reward) is float
        assert type(result.terminated) is bool and result.truncated is False
        assert result.info == {}
        obs = result.observation
        assert isinstance(obs, np.ndarray) and obs.dtype == np.float32
        assert obs is not previous and not np.shares_memory(obs, previous)
        previous = obs
        if result.terminated:
            break


@pytest.mark.parametrize("cls", ALL)
def test_mutating_an_observation_does_not_touch_the_env(cls: type[Env[Any, Any]]) -> None:
    env, twin = cls(), cls()
    env.reset(seed=5).observation[:] = 0.3
    twin.reset(seed=5)
    action = _valid_action(env)
    for _ in range(5):
        env.step(action).observation[:] = 0.3
        twin.step(action)
    assert np.array_equal(env.step(action).observation, twin.step(action).observation)


def test_async_methods_run_the_sync_logic() -> None:
    env, twin = CartPoleEnv(), CartPoleEnv()

    async def run() -> StepResult[Any]:
        await env.async_reset(seed=1)
        return await env.async_step(0)

    twin.reset(seed=1)
    assert np.array_equal(asyncio.run(run()).observation, twin.step(0).observation)


# --- reset-required and action validation ----------------------------------------------------


@pytest.mark.parametrize("cls", ALL)
def test_step_before_reset_raises(cls: type[Env[Any, Any]]) -> None:
    env = cls()
    with pytest.raises(ResetRequired):
        env.step(_valid_action(env))


@pytest.mark.parametrize("cls", CONTINUOUS)
def test_continuous_reset_required_is_checked_before_the_action(cls: type[Env[Any, Any]]) -> None:
    with pytest.raises(ResetRequired):
        cls().step("not an action")


@pytest.mark.parametrize("cls", DISCRETE)
@pytest.mark.parametrize(
    "action", [-1, 3, 100, 1.0, 0.0, True, False, None, "1", np.array([1]), np.float64(1.0)]
)
def test_discrete_invalid_action(cls: type[Env[Any, Any]], action: Any) -> None:
    env = cls()
    with pytest.raises(InvalidAction):  # validated before the reset state
        env.step(action)
    env.reset(seed=0)
    with pytest.raises(InvalidAction):
        env.step(action)


def test_discrete_out_of_range_per_env() -> None:
    for env in (CartPoleEnv(), MountainCarEnv(), AcrobotEnv()):
        env.reset(seed=0)
        assert isinstance(env.action_space, Discrete)
        n = env.action_space.n
        with pytest.raises(InvalidAction):
            env.step(n)
        with pytest.raises(InvalidAction):
            env.step(np.int64(n))
        env.step(n - 1)


@pytest.mark.parametrize("cls", DISCRETE)
@pytest.mark.parametrize(
    "make_action", [int, np.int64, np.int32, np.uint8, np.int16, lambda a: np.array(a)]
)
def test_discrete_integer_action_types(cls: type[Env[Any, Any]], make_action: Any) -> None:
    env, twin = cls(), cls()
    env.reset(seed=9)
    twin.reset(seed=9)
    for a in (0, 1, 0, 1, 1):
        assert np.array_equal(env.step(make_action(a)).observation, twin.step(a).observation)


@pytest.mark.parametrize("cls", CONTINUOUS)
@pytest.mark.parametrize("action", ["a", None, object(), {"x": 1}, ["x"], b"1"])
def test_continuous_non_numeric_action_raises_type_error(
    cls: type[Env[Any, Any]], action: Any
) -> None:
    env = cls()
    env.reset(seed=0)
    with pytest.raises(TypeError):
        env.step(action)


@pytest.mark.parametrize("cls", CONTINUOUS)
def test_continuous_action_forms(cls: type[Env[Any, Any]]) -> None:
    """Lists, scalars and 0-d / 2-d arrays act like the flat float64 / float32 array."""
    for action, reference in [
        ([0.25], np.array([0.25])),
        (0.25, np.array([0.25])),
        (np.float32(0.25), np.array([0.25], dtype=np.float32)),
        (np.array([[0.25]], dtype=np.float32), np.array([0.25], dtype=np.float32)),
        (np.array(0.25), np.array([0.25])),
    ]:
        env, twin = cls(), cls()
        env.reset(seed=2)
        twin.reset(seed=2)
        ours = env.step(action)
        theirs = twin.step(reference)
        assert np.array_equal(ours.observation, theirs.observation)
        assert ours.reward == theirs.reward
    env = cls()
    env.reset(seed=2)
    with pytest.raises(InvalidAction):
        env.step(np.array([], dtype=np.float32))


# --- constructor validation ------------------------------------------------------------------


@pytest.mark.parametrize("value", [1, 0, "yes", None, 1.0])
def test_cartpole_sutton_barto_reward_must_be_bool(value: Any) -> None:
    with pytest.raises(TypeError, match="sutton_barto_reward"):
        CartPoleEnv(sutton_barto_reward=value)


@pytest.mark.parametrize("cls", [MountainCarEnv, ContinuousMountainCarEnv])
@pytest.mark.parametrize(
    ("value", "error"),
    [("0", TypeError), (None, TypeError), ([0.0], ValueError), (True, TypeError), (1j, ValueError)],
)
def test_goal_velocity_must_be_real(cls: Any, value: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="goal_velocity"):
        cls(goal_velocity=value)


@pytest.mark.parametrize(
    ("value", "error"),
    [("10", TypeError), (None, TypeError), ([9.8], ValueError), (False, TypeError)],
)
def test_pendulum_g_must_be_real(value: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="g"):
        PendulumEnv(g=value)


def test_real_constructor_arguments_are_accepted() -> None:
    flag: Any = np.bool_(True)
    assert CartPoleEnv(sutton_barto_reward=flag).sutton_barto_reward is True
    assert MountainCarEnv(goal_velocity=1).goal_velocity == 1.0
    assert ContinuousMountainCarEnv(goal_velocity=np.float32(0.5)).goal_velocity == 0.5
    assert PendulumEnv(g=np.int64(9)).g == 9.0


# --- reset options ---------------------------------------------------------------------------


@pytest.mark.parametrize("cls", LOW_HIGH)
def test_reset_bounds_options(cls: type[Env[Any, Any]]) -> None:
    env = cls()
    env.reset(seed=0, options={"low": 0.25, "high": 0.25})
    state = np.asarray(env.state, dtype=np.float64)  # type: ignore[attr-defined]
    if cls in (MountainCarEnv, ContinuousMountainCarEnv):
        assert state.tolist() == [0.25, 0.0]
    else:
        assert np.all(state == np.float32(0.25) if cls is AcrobotEnv else state == 0.25)
    env.reset(seed=0, options={"low": -10.0})  # high keeps its default
    env.reset(seed=0, options={"high": 10.0})  # low keeps its default
    env.reset(seed=0, options={})
    with pytest.raises(TypeError):
        env.reset(options={"low": "0.1"})
    with pytest.raises(TypeError):
        env.reset(options={"high": None})
    with pytest.raises(ValueError):
        env.reset(options={"low": [0.1]})
    with pytest.raises(ValueError):
        env.reset(options={"low": 0.2, "high": 0.1})
    with pytest.raises(ValueError):
        env.reset(options={"low": 10.0})  # above the default high


def test_reset_bounds_default_ranges() -> None:
    for cls, low, high in [
        (CartPoleEnv, -0.05, 0.05),
        (AcrobotEnv, -0.1, 0.1),
        (MountainCarEnv, -0.6, -0.4),
        (ContinuousMountainCarEnv, -0.6, -0.4),
    ]:
        env = cls()
        env.reset(seed=1)
        for _ in range(50):
            state = np.asarray(env.reset().observation if cls is not AcrobotEnv else env.state)
            head = state[:1] if cls in (MountainCarEnv, ContinuousMountainCarEnv) else state
            assert np.all((head >= np.float32(low)) & (head <= np.float32(high)))


def test_pendulum_options() -> None:
    env = PendulumEnv()
    env.reset(seed=0, options={"x_init": 0.5, "y_init": 0.25})
    for _ in range(50):
        env.reset(options={"x_init": 0.5, "y_init": 0.25})
        theta, theta_dot = env.state  # type: ignore[misc]
        assert -0.5 <= theta <= 0.5 and -0.25 <= theta_dot <= 0.25
    env.reset(options={"x_init": 0, "y_init": 0})
    assert env.state == (0.0, 0.0)
    assert env.last_u is None
    env.reset(options={})
    with pytest.raises(TypeError, match="x_init"):
        env.reset(options={"x_init": "1"})
    with pytest.raises(TypeError, match="y_init"):
        env.reset(options={"y_init": None})


# --- seeding ---------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ALL)
def test_seeded_reset_sequence_is_reproducible(cls: type[Env[Any, Any]]) -> None:
    first, second = cls(), cls()
    a = [first.reset(seed=7).observation] + [first.reset().observation for _ in range(3)]
    b = [second.reset(seed=7).observation] + [second.reset().observation for _ in range(3)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], a[1])
    assert not np.array_equal(a[0], cls().reset(seed=8).observation)


@pytest.mark.parametrize("cls", ALL)
def test_reset_with_generator_and_unseeded(cls: type[Env[Any, Any]]) -> None:
    env, twin = cls(), cls()
    generator = np.random.default_rng(42)
    obs = env.reset(seed=generator).observation
    assert env.rng is generator
    assert np.array_equal(obs, twin.reset(seed=42).observation)
    unseeded = cls()
    unseeded.reset()
    unseeded.step(_valid_action(unseeded))


# --- CartPole rewards after termination ------------------------------------------------------


def _run_until_terminated(env: CartPoleEnv) -> StepResult[Any]:
    env.reset(seed=0)
    while True:
        result = env.step(1)
        if result.terminated:
            return result
        assert result.reward == (0.0 if env.sutton_barto_reward else 1.0)


@pytest.mark.parametrize(("sutton", "final", "after"), [(False, 1.0, 0.0), (True, -1.0, -1.0)])
def test_cartpole_steps_after_termination(sutton: bool, final: float, after: float) -> None:
    env = CartPoleEnv(sutton_barto_reward=sutton)
    assert _run_until_terminated(env).reward == final
    with pytest.warns(UserWarning):
        result = env.step(0)
    assert result.terminated is True and result.reward == after
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):  # no further warnings
            assert env.step(0).reward == after
    env.reset()
    result = env.step(0)
    assert result.terminated is False and result.reward == (0.0 if sutton else 1.0)


def test_cartpole_semi_implicit_integrator() -> None:
    euler, semi = CartPoleEnv(), CartPoleEnv()
    semi.kinematics_integrator = "semi-implicit euler"
    euler.reset(seed=4)
    semi.reset(seed=4)
    x, _, theta, _ = semi.state  # type: ignore[misc]
    obs = semi.step(1).observation
    assert not np.array_equal(obs, euler.step(1).observation)
    assert semi.state is not None
    new_x, new_x_dot, new_theta, new_theta_dot = semi.state
    assert new_x == x + 0.02 * new_x_dot and new_theta == theta + 0.02 * new_theta_dot


# --- dynamics spot checks --------------------------------------------------------------------


def test_mountain_car_left_wall_stops_the_car() -> None:
    env = MountainCarEnv()
    env.reset(seed=0)
    env.state = (-1.19, -0.05)
    result = env.step(0)
    assert env.state == (-1.2, 0.0)
    assert result.observation.tolist() == [np.float32(-1.2), 0.0]
    assert result.reward == -1.0


def test_continuous_mountain_car_reward_and_state_dtype() -> None:
    env = ContinuousMountainCarEnv()
    env.reset(seed=0)
    assert env.state is not None and env.state.dtype == np.float64
    result = env.step(np.array([3.0], dtype=np.float32))  # clipped force, unclipped penalty
    assert env.state.dtype == np.float32
    assert result.reward == pytest.approx(-0.9)
    env.state = np.array([0.44, 0.07], dtype=np.float32)
    result = env.step(np.array([1.0], dtype=np.float32))
    assert result.terminated is True and result.reward == pytest.approx(99.9)


def test_pendulum_last_u_and_reward_range() -> None:
    env = PendulumEnv()
    env.reset(seed=0)
    env.step(np.array([5.0], dtype=np.float32))
    assert env.last_u == np.float32(2.0) and env.last_u.dtype == np.float32
    env.step(np.array([-0.5]))
    assert env.last_u == -0.5
    env.state = (math.pi, 8.0)
    assert -16.3 < env.step(np.array([2.0], dtype=np.float32)).reward < -16.2
    env.state = (0.0, 0.0)
    assert env.step(np.array([0.0], dtype=np.float32)).reward == 0.0


def test_acrobot_terminal_reward_and_noise() -> None:
    env = AcrobotEnv()
    env.reset(seed=0)
    env.state = (math.pi, 0.0, 0.0, 0.0)  # pointing straight up
    result = env.step(1)
    assert result.terminated is True and result.reward == 0.0
    env.reset(seed=0)
    assert env.step(1).reward == -1.0
    noisy = AcrobotEnv()
    noisy.torque_noise_max = 0.5
    noisy.reset(seed=0)
    quiet = AcrobotEnv()
    quiet.reset(seed=0)
    assert not np.array_equal(noisy.step(1).observation, quiet.step(1).observation)


@pytest.mark.parametrize("cls", ALL)
def test_pickle_and_deepcopy_continue_identically(cls: type[Env[Any, Any]]) -> None:
    env = cls()
    env.reset(seed=11)
    action = _valid_action(env)
    env.step(action)
    clones = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    expected = [env.step(action).observation for _ in range(3)]
    for clone in clones:
        assert all(np.array_equal(clone.step(action).observation, obs) for obs in expected)

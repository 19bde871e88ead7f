"""Side-by-side runs of sekai's classic-control envs against gymnasium's unwrapped twins.

Every observation must be bit-identical (same values, float32 dtype), every reward equal and
every flag equal, for the same seeds and the same actions.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from sekai.envs.classic_control import (
    AcrobotEnv,
    CartPoleEnv,
    ContinuousMountainCarEnv,
    MountainCarEnv,
    PendulumEnv,
)

gym = pytest.importorskip("gymnasium")

Policy = Callable[[np.ndarray, np.random.Generator], Any]


def _gym_env(env_id: str, **kwargs: Any) -> Any:
    return gym.make(env_id, **kwargs).unwrapped


def _assert_same_obs(ours: np.ndarray, theirs: np.ndarray, where: str) -> None:
    assert isinstance(ours, np.ndarray), where
    assert ours.dtype == np.float32 == theirs.dtype, where
    assert ours.shape == theirs.shape, where
    assert np.array_equal(ours, theirs), f"{where}: {ours!r} != {theirs!r}"


def _run_side_by_side(
    ours: Any,
    theirs: Any,
    policy: Policy,
    *,
    seeds: tuple[int, ...],
    episodes_per_seed: int,
    max_steps: int,
    action_seed: int,
    reset_options: dict[str, Any] | None = None,
    steps_after_termination: int = 0,
) -> dict[str, int]:
    """Run both envs with identical actions; return step / termination counts."""
    rng = np.random.default_rng(action_seed)
    counts = {"steps": 0, "terminated": 0, "episodes": 0}
    for seed in seeds:
        for episode in range(episodes_per_seed):
            reset_seed = seed if episode == 0 else None
            result = ours.reset(seed=reset_seed, options=reset_options)
            their_obs, their_info = theirs.reset(seed=reset_seed, options=reset_options)
            where = f"seed={seed} episode={episode} reset"
            _assert_same_obs(result.observation, their_obs, where)
            assert result.info == {} == their_info
            counts["episodes"] += 1
            obs = result.observation
            extra = -1
            for t in range(max_steps):
                action = policy(obs, rng)
                result = ours.step(action)
                their_obs, their_reward, their_term, their_trunc, _ = theirs.step(action)
                where = f"seed={seed} episode={episode} t={t} action={action!r}"
                _assert_same_obs(result.observation, their_obs, where)
                assert type(result.reward) is float, where
                assert result.reward == their_reward, f"{where}: {result.reward} != {their_reward}"
                assert type(result.terminated) is bool and type(result.truncated) is bool
                assert result.terminated == their_term, where
                assert result.truncated == their_trunc, where
                assert result.info == {}, where
                counts["steps"] += 1
                obs = result.observation
                if result.terminated:
                    if extra < 0:
                        counts["terminated"] += 1
                        extra = steps_after_termination
                    if extra == 0:
                        break
                    extra -= 1
    return counts


def _discrete_random(n: int) -> Policy:
    def policy(obs: np.ndarray, rng: np.random.Generator) -> Any:
        return int(rng.integers(n))

    return policy


def test_cartpole_matches_gymnasium() -> None:
    ours, theirs = CartPoleEnv(), _gym_env("CartPole-v1")
    counts = _run_side_by_side(
        ours,
        theirs,
        _discrete_random(2),
        seeds=(0, 1, 2, 3, 4, 2**40 + 5),
        episodes_per_seed=40,
        max_steps=500,
        action_seed=11,
    )
    assert counts["steps"] >= 4_000 and counts["terminated"] == counts["episodes"]


def test_cartpole_balancing_policy_matches_gymnasium() -> None:
    """Long episodes (mostly away from termination), with numpy-integer actions."""

    def policy(obs: np.ndarray, rng: np.random.Generator) -> Any:
        if rng.random() < 0.1:
            return rng.integers(2)  # a numpy int64
        return np.int64(1 if obs[2] + 0.5 * obs[3] > 0 else 0)

    ours, theirs = CartPoleEnv(), _gym_env("CartPole-v1")
    counts = _run_side_by_side(
        ours, theirs, policy, seeds=(5, 6), episodes_per_seed=5, max_steps=1_000, action_seed=3
    )
    assert counts["steps"] >= 6_000


@pytest.mark.parametrize("sutton_barto_reward", [False, True])
def test_cartpole_steps_after_termination_match_gymnasium(sutton_barto_reward: bool) -> None:
    ours = CartPoleEnv(sutton_barto_reward=sutton_barto_reward)
    theirs = _gym_env("CartPole-v1", sutton_barto_reward=sutton_barto_reward)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        counts = _run_side_by_side(
            ours,
            theirs,
            _discrete_random(2),
            seeds=(21, 22),
            episodes_per_seed=10,
            max_steps=500,
            action_seed=5,
            steps_after_termination=15,
        )
    assert counts["terminated"] == 20


def test_cartpole_reset_options_match_gymnasium() -> None:
    ours, theirs = CartPoleEnv(), _gym_env("CartPole-v1")
    counts = _run_side_by_side(
        ours,
        theirs,
        _discrete_random(2),
        seeds=(8,),
        episodes_per_seed=20,
        max_steps=500,
        action_seed=8,
        reset_options={"low": -0.2, "high": 0.15},
    )
    assert counts["episodes"] == 20


def _mountain_car_policy(obs: np.ndarray, rng: np.random.Generator) -> Any:
    """Mostly pump energy (reaches the goal and the left wall), sometimes act at random."""
    if rng.random() < 0.3:
        return int(rng.integers(3))
    return 2 if obs[1] >= 0 else 0


@pytest.mark.parametrize("goal_velocity", [0.0, 0.01])
def test_mountain_car_matches_gymnasium(goal_velocity: float) -> None:
    ours = MountainCarEnv(goal_velocity=goal_velocity)
    theirs = _gym_env("MountainCar-v0", goal_velocity=goal_velocity)
    counts = _run_side_by_side(
        ours,
        theirs,
        _mountain_car_policy,
        seeds=(0, 1, 2, 3),
        episodes_per_seed=10,
        max_steps=400,
        action_seed=1,
    )
    assert counts["steps"] >= 5_000 and counts["terminated"] > 20


def test_mountain_car_random_policy_and_options_match_gymnasium() -> None:
    ours, theirs = MountainCarEnv(), _gym_env("MountainCar-v0")
    counts = _run_side_by_side(
        ours,
        theirs,
        _discrete_random(3),
        seeds=(4, 5),
        episodes_per_seed=4,
        max_steps=500,
        action_seed=4,
        reset_options={"low": -1.1, "high": 0.3},
    )
    assert counts["steps"] >= 1_000


def _continuous_policy(limit: float, scale: float, dtype: Any = np.float32) -> Policy:
    """Random actions in ``[-scale, scale]`` (beyond the bounds) or bang-bang energy pumping."""

    def policy(obs: np.ndarray, rng: np.random.Generator) -> Any:
        if rng.random() < 0.4:
            return rng.uniform(-scale, scale, size=(1,)).astype(dtype)
        return np.array([limit if obs[-1] >= 0 else -limit], dtype=dtype)

    return policy


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_continuous_mountain_car_matches_gymnasium(dtype: Any) -> None:
    ours, theirs = ContinuousMountainCarEnv(), _gym_env("MountainCarContinuous-v0")
    counts = _run_side_by_side(
        ours,
        theirs,
        _continuous_policy(1.2, 1.6, dtype),
        seeds=(0, 1, 2),
        episodes_per_seed=10,
        max_steps=400,
        action_seed=2,
    )
    assert counts["steps"] >= 3_000 and counts["terminated"] > 10


def test_continuous_mountain_car_random_actions_match_gymnasium() -> None:
    ours, theirs = ContinuousMountainCarEnv(), _gym_env("MountainCarContinuous-v0")

    def policy(obs: np.ndarray, rng: np.random.Generator) -> Any:
        return rng.uniform(-1.5, 1.5, size=(1,)).astype(np.float32)

    counts = _run_side_by_side(
        ours,
        theirs,
        policy,
        seeds=(3, 4),
        episodes_per_seed=3,
        max_steps=999,
        action_seed=9,
        reset_options={"low": -1.0, "high": 0.2},
    )
    assert counts["steps"] >= 3_000


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pendulum_matches_gymnasium(dtype: Any) -> None:
    ours, theirs = PendulumEnv(), _gym_env("Pendulum-v1")
    counts = _run_side_by_side(
        ours,
        theirs,
        _continuous_policy(2.0, 3.0, dtype),
        seeds=(0, 1, 2, 3),
        episodes_per_seed=5,
        max_steps=200,
        action_seed=4,
    )
    assert counts["steps"] == 4_000
    assert ours.last_u is not None and ours.last_u.dtype == dtype


def test_pendulum_options_and_gravity_match_gymnasium() -> None:
    ours, theirs = PendulumEnv(g=9.81), _gym_env("Pendulum-v1", g=9.81)
    counts = _run_side_by_side(
        ours,
        theirs,
        _continuous_policy(2.0, 2.5),
        seeds=(7, 8),
        episodes_per_seed=5,
        max_steps=200,
        action_seed=7,
        reset_options={"x_init": 3.0, "y_init": 7.5},
    )
    assert counts["steps"] == 2_000


def _acrobot_policy(obs: np.ndarray, rng: np.random.Generator) -> Any:
    """Torque along the second joint's velocity (reaches the goal), sometimes random."""
    if rng.random() < 0.2:
        return int(rng.integers(3))
    return 2 if obs[5] >= 0 else 0


def test_acrobot_matches_gymnasium() -> None:
    ours, theirs = AcrobotEnv(), _gym_env("Acrobot-v1")
    counts = _run_side_by_side(
        ours,
        theirs,
        _acrobot_policy,
        seeds=(0, 1, 2, 3),
        episodes_per_seed=20,
        max_steps=500,
        action_seed=6,
    )
    assert counts["steps"] >= 6_000 and counts["terminated"] > 40


def test_acrobot_random_policy_and_options_match_gymnasium() -> None:
    ours, theirs = AcrobotEnv(), _gym_env("Acrobot-v1")
    counts = _run_side_by_side(
        ours,
        theirs,
        _discrete_random(3),
        seeds=(9,),
        episodes_per_seed=8,
        max_steps=500,
        action_seed=9,
        reset_options={"low": -0.5, "high": 0.5},
    )
    assert counts["steps"] >= 2_000


# --- one step from arbitrary states: exercises clipping, walls, wrapping and bounds ---------


def _step_from(ours: Any, theirs: Any, our_state: Any, their_state: Any, action: Any) -> None:
    ours.state = our_state
    theirs.state = their_state
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = ours.step(action)
        their_obs, their_reward, their_term, their_trunc, _ = theirs.step(action)
    where = f"state={their_state!r} action={action!r}"
    _assert_same_obs(result.observation, their_obs, where)
    assert result.reward == their_reward, where
    assert result.terminated == their_term and result.truncated == their_trunc, where


def test_arbitrary_states_match_gymnasium() -> None:
    rng = np.random.default_rng(2024)
    pairs: list[tuple[Any, Any, np.ndarray]] = [
        (CartPoleEnv(), _gym_env("CartPole-v1"), np.array([3.0, 4.0, 0.5, 6.0])),
        (MountainCarEnv(), _gym_env("MountainCar-v0"), np.array([1.0, 0.12])),
        (AcrobotEnv(), _gym_env("Acrobot-v1"), np.array([4.0, 4.0, 5 * math.pi, 11 * math.pi])),
        (PendulumEnv(), _gym_env("Pendulum-v1"), np.array([12.0, 10.0])),
    ]
    for ours, theirs, half_width in pairs:
        n_actions = ours.action_space.n if hasattr(ours.action_space, "n") else 0
        for _ in range(400):
            state = rng.uniform(-half_width, half_width)
            if n_actions:
                action: Any = int(rng.integers(n_actions))
            else:
                action = rng.uniform(-3, 3, size=(1,)).astype(np.float32)
            _step_from(ours, theirs, tuple(state.tolist()), state.copy(), action)
    mc, gym_mc = MountainCarEnv(), _gym_env("MountainCar-v0")
    for position in (-1.2, -1.19, 0.5, 0.6):
        for velocity in (-0.07, -0.01, 0.0, 0.07):
            for action in range(3):
                state = np.array([position, velocity])
                _step_from(mc, gym_mc, (position, velocity), state, action)
    cmc, gym_cmc = ContinuousMountainCarEnv(), _gym_env("MountainCarContinuous-v0")
    for _ in range(400):
        dtype = np.float32 if rng.random() < 0.5 else np.float64
        state = rng.uniform([-1.3, -0.1], [0.7, 0.1]).astype(dtype)
        action = rng.uniform(-3, 3, size=(1,)).astype(np.float32)
        _step_from(cmc, gym_cmc, state.copy(), state.copy(), action)


@pytest.mark.parametrize(
    ("cls", "env_id"),
    [(ContinuousMountainCarEnv, "MountainCarContinuous-v0"), (PendulumEnv, "Pendulum-v1")],
)
@pytest.mark.parametrize("dtype", [np.float16, np.int64, np.int32])
def test_other_action_dtypes_match_gymnasium(cls: Any, env_id: str, dtype: Any) -> None:
    """Actions keep their dtype: half-precision and integer actions promote like gymnasium's."""
    counts = _run_side_by_side(
        cls(),
        _gym_env(env_id),
        _continuous_policy(1.0, 3.0, dtype),
        seeds=(13,),
        episodes_per_seed=2,
        max_steps=200,
        action_seed=13,
    )
    assert counts["steps"] >= 200


# --- MountainCarContinuous: the float fast path against gymnasium's NumPy-scalar promotion ----


def _same_step(ours: Any, theirs: Any, action: Any, where: str, their_action: Any = None) -> Any:
    """One step of each env; bit-identical observations, equal rewards (NaN too) and flags."""
    result = ours.step(action)
    their_action = action if their_action is None else their_action
    their_obs, their_reward, their_term, their_trunc, _ = theirs.step(their_action)
    obs = result.observation
    assert obs.dtype == np.float32 and obs.shape == (2,), where
    assert obs.tobytes() == their_obs.tobytes(), f"{where}: {obs!r} != {their_obs!r}"
    reward = result.reward
    assert type(reward) is float, where
    assert reward == their_reward or (reward != reward and their_reward != their_reward), where
    assert result.terminated is their_term and result.truncated is their_trunc is False, where
    return obs


def _f32_neighbours(value: float, ulps: int) -> list[float]:
    """``value`` rounded to float32 and its float32 neighbours ``ulps`` steps either side."""
    center = np.float32(value)
    out, up, down = [center], center, center
    for _ in range(ulps):
        up, down = np.nextafter(up, np.float32(np.inf)), np.nextafter(down, np.float32(-np.inf))
        out += [up, down]
    return [float(x) for x in out] + [value]


def test_continuous_mountain_car_many_long_episodes_match_gymnasium() -> None:
    """>= 100k steps over many seeds: random, bang-bang and out-of-bound actions, both walls."""
    ours, theirs = ContinuousMountainCarEnv(), _gym_env("MountainCarContinuous-v0")
    rng = np.random.default_rng(123)
    steps = 0
    for seed in range(50):
        options = None if seed % 3 else {"low": -1.15, "high": 0.55}
        obs = ours.reset(seed=seed, options=options).observation
        assert obs.tobytes() == theirs.reset(seed=seed, options=options)[0].tobytes()
        scale = (1.0, 1.2, 4.0, 1e-3)[seed % 4]
        noise = rng.uniform(-scale, scale, size=(2_100, 1)).astype(np.float32)
        pump = np.float32((1.0, 1.0000001, 0.8, 50.0)[seed % 4])
        for t in range(2_100):
            if t % 7 == 3 or seed % 5 == 4:
                action = noise[t]
            else:  # energy pumping: reaches the goal, the right wall and the left wall
                action = np.array([pump if obs[1] >= 0 else -pump], dtype=np.float32)
            obs = _same_step(ours, theirs, action, f"seed={seed} t={t} action={action!r}")
            steps += 1
    assert steps >= 100_000


@pytest.mark.parametrize("goal_velocity", [0.0, 0.01, -0.003])
def test_continuous_mountain_car_boundary_states_match_gymnasium(goal_velocity: float) -> None:
    """Positions and velocities a few float32 ulps around every threshold, all dtypes."""
    ours = ContinuousMountainCarEnv(goal_velocity=goal_velocity)
    theirs = _gym_env("MountainCarContinuous-v0", goal_velocity=goal_velocity)
    positions = [*_f32_neighbours(-1.2, 2), *_f32_neighbours(0.45, 2), *_f32_neighbours(0.6, 2)]
    positions += [-1.1999, -0.5, 0.0, -0.0, 0.5999]
    speeds = [*_f32_neighbours(0.07, 2), *_f32_neighbours(-0.07, 2), *_f32_neighbours(0.0, 1)]
    speeds += [*_f32_neighbours(goal_velocity, 2), 0.0685, -0.0685, 1e-9, -1e-9]
    actions = [1.0, -1.0, 0.0, -0.0, 0.5, 3.0, -3.0, 1e-45, -2.5e-44, 0.3333333]
    actions += [float(np.nextafter(np.float32(1), np.float32(2))), -1.0000001, 1e30]
    count = 0
    for state_dtype in (np.float32, np.float64):
        for position in positions:
            for speed in speeds:
                for value in actions:
                    for action_dtype in (np.float32, np.float64):
                        action = np.array([value]).astype(action_dtype)
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            ours.state = np.array([position, speed], dtype=state_dtype)
                            theirs.state = np.array([position, speed], dtype=state_dtype)
                            where = f"state=({position!r}, {speed!r}) {state_dtype} {action!r}"
                            _same_step(ours, theirs, action, where)
                        count += 1
    assert count > 10_000


def test_continuous_mountain_car_nan_inf_and_other_actions_match_gymnasium() -> None:
    ours, theirs = ContinuousMountainCarEnv(), _gym_env("MountainCarContinuous-v0")
    actions: list[Any] = [
        np.array([np.inf], np.float32),
        np.array([-np.inf]),
        np.array([0.25], np.float16),
        np.array([1], np.int8),
        np.array([0.5, 9.0], np.float32)[::-1][1:],
        np.float32(-0.4),
        np.float64(0.9),
        [0.3],
        (-2,),
        np.array([True]),
        np.array([np.nan], np.float32),  # NaN state from here on
        np.array([0.5], np.float32),
    ]
    for seed in range(3):
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        assert ours.step(np.array([[0.75]], np.float32)).observation.dtype == np.float32
        theirs.step(np.array([0.75], np.float32))  # gymnasium wants a 1-D action
        for t, action in enumerate(actions):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # gymnasium indexes the action; sekai also takes scalars and sequences
                their_action = np.atleast_1d(np.asarray(action))
                _same_step(ours, theirs, action, f"seed={seed} t={t} {action!r}", their_action)


def test_continuous_mountain_car_state_and_constants_edits_match_gymnasium() -> None:
    """``state`` reads, assignments and in-place edits; changed physics constants."""
    ours, theirs = ContinuousMountainCarEnv(), _gym_env("MountainCarContinuous-v0")
    rng = np.random.default_rng(5)
    changes: list[tuple[str, Any]] = [
        ("max_speed", 0.05),
        ("power", 0.0031),
        ("goal_position", 0.3),
        ("min_position", -1.0),
        ("max_action", 0.7),
        ("power", np.float32(0.002)),  # a NumPy constant: the NumPy-scalar path
        ("power", 0.0015),
        ("goal_velocity", np.float64(0.002)),
        ("goal_velocity", 0.0),
        ("min_action", 2),  # an int bound: the NumPy-scalar path
        ("min_action", -1.0),
    ]
    for seed, (name, value) in enumerate(changes):
        setattr(ours, name, value)
        setattr(theirs, name, value)
        assert getattr(ours, name) is value
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        assert ours.state.dtype == theirs.state.dtype == np.float64
        assert np.array_equal(ours.state, theirs.state)
        obs = ours.state
        for t in range(400):
            if t % 50 == 7:  # edit the state in place, as read
                ours.state[1] = theirs.state[1] = np.float32(0.069)
            if t % 50 == 21:
                ours.state = theirs.state = rng.uniform([-1.3, -0.08], [0.7, 0.08])
            sign = 1.0 if obs[1] >= 0 else -1.0
            action = np.array([sign * rng.uniform(0.5, 1.5)], dtype=np.float32)
            obs = _same_step(ours, theirs, action, f"{name}={value!r} t={t}")
            if t % 10 == 0:
                assert ours.state.dtype == theirs.state.dtype == np.float32
                assert ours.state.tobytes() == theirs.state.tobytes()


@pytest.mark.parametrize("goal_velocity", [0.0, 0.01])
def test_continuous_mountain_car_exact_goal_hits_match_gymnasium(goal_velocity: float) -> None:
    """Steps landing exactly on float32(goal_position) / float32(goal_velocity).

    A float32 position compares with ``goal_position`` rounded to float32 (NEP 50), so these
    states terminate in gymnasium although ``float32(0.45) < 0.45``.
    """
    ours = ContinuousMountainCarEnv(goal_velocity=goal_velocity)
    theirs = _gym_env("MountainCarContinuous-v0", goal_velocity=goal_velocity)
    zero = np.array([0.0], dtype=np.float32)
    goal_p, goal_v = np.float32(0.45), np.float32(goal_velocity)
    hits = 0
    for index, start, target in ((0, (0.43, 0.02), goal_p), (1, (0.5, 0.0), goal_v)):
        # one step moves by ``delta``: start ``delta`` short of the target (a fixed point)
        state = np.array(start, dtype=np.float32)
        for _ in range(4):
            theirs.state = state.copy()
            state[index] = target - (theirs.step(zero)[0][index] - state[index])
        center = state[index]
        for direction in (np.inf, -np.inf):
            state[index] = center
            for _ in range(25):
                ours.state, theirs.state = state.copy(), state.copy()
                obs = _same_step(ours, theirs, zero, f"state={state!r}")
                hits += bool(obs[index] == target)
                state[index] = np.nextafter(state[index], np.float32(direction))
    assert hits >= 2


def test_continuous_mountain_car_inexact_and_crossed_bounds_match_gymnasium() -> None:
    """Action bounds that float32 cannot hold exactly (above and below), and low > high."""
    ours, theirs = ContinuousMountainCarEnv(), _gym_env("MountainCarContinuous-v0")
    rng = np.random.default_rng(17)
    for low, high in ((-0.3, 0.6), (-0.6, 0.3), (0.5, 0.2)):
        for env in (ours, theirs):
            env.min_action, env.max_action = low, high
        for _ in range(300):
            state = rng.uniform([-1.1, -0.06], [0.5, 0.06]).astype(np.float32)
            for value in (low, high, -low, -high, 0.0):
                for dtype in (np.float32, np.float64):
                    ours.state, theirs.state = state.copy(), state.copy()
                    action = np.array([value], dtype=dtype)
                    _same_step(ours, theirs, action, f"bounds=({low}, {high}) {action!r}")

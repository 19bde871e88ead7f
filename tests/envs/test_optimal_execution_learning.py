"""OptimalExecution's learnable settings (-v1) and reference policies: what each one claims."""

from __future__ import annotations

import math
import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sekai
from sekai import check_env
from sekai.envs.finance import OptimalExecutionEnv
from sekai.envs.finance.optimal_execution.encoding import (
    centred_fraction,
    centred_fractions,
    fractions_to_centred,
)
from sekai.envs.finance.optimal_execution.policies import ScheduledActions
from sekai.envs.finance.vector import OptimalExecutionVecEnv
from sekai.spaces import Box

V1 = {
    "centred_action": True,
    "expected_reward": True,
    "reward_scale": 100.0,
    "observe_price": False,
}
NOTIONAL = 1e6 * 50.0


def _objective(env: OptimalExecutionEnv, holdings: np.ndarray) -> float:
    """``E[shortfall] + λ·Var`` of the static schedule with these holdings (currency)."""
    mean, variance = env.expected_shortfall(-np.diff(holdings))
    return mean + env.risk_aversion * variance


def _episode(env: OptimalExecutionEnv, policy: Any, seed: int = 0, **reset: Any) -> dict[str, Any]:
    """One episode of ``policy``: its return, actions, holdings (start included) and trades."""
    obs = env.reset(seed=seed, **reset).observation
    total, actions, holdings, trades = 0.0, [], [env.inventory], []
    done = False
    while not done:
        action = policy(obs)
        result = env.step(action)
        obs, done = result.observation, result.terminated or result.truncated
        total += result.reward
        actions.append(action)
        holdings.append(result.info["inventory"])
        trades.append(result.info["shares_sold"])
    return {
        "return": total,
        "actions": np.array(actions),
        "holdings": np.array(holdings),
        "trades": np.array(trades),
    }


# --- the registered id and the options ---------------------------------------------------------


def test_v1_is_registered_with_the_learnable_options() -> None:
    spec = sekai.spec("OptimalExecution-v1")
    assert spec.entry_point == "sekai.envs.finance.optimal_execution:OptimalExecutionEnv"
    assert spec.vector_entry_point == "sekai.envs.finance.vector:OptimalExecutionVecEnv"
    assert spec.kwargs == V1 and spec.max_episode_steps is None
    ids = [s.id for s in sekai.all_specs()]
    assert ids.index("OptimalExecution-v1") == ids.index("OptimalExecution-v0") + 1
    env = sekai.make("OptimalExecution-v1").unwrapped
    assert isinstance(env, OptimalExecutionEnv)
    assert env.observation_space == Box(0.0, 1.0, shape=(2,), dtype=np.float32)
    assert env.action_space == Box(-1.0, 1.0, shape=(1,), dtype=np.float32)
    assert (env.centred_action, env.expected_reward, env.observe_price) == (True, True, False)
    assert env.reward_scale == 100.0
    vec = sekai.make_vec("OptimalExecution-v1", 3)
    assert isinstance(vec, OptimalExecutionVecEnv)
    assert vec.observation_space == env.observation_space
    assert vec.action_space == env.action_space
    assert vec.get_attr("reward_scale") == [100.0] * 3
    assert vec.reset(seed=0).observations.tolist() == [[1.0, 1.0]] * 3


def test_v0_defaults_leave_the_options_off() -> None:
    env = sekai.make("OptimalExecution-v0").unwrapped
    assert (env.centred_action, env.expected_reward, env.observe_price) == (False, False, True)
    assert env.reward_scale == 1e4
    assert env.action_space == Box(0.0, 1.0, shape=(1,), dtype=np.float32)
    assert env.observation_space.shape == (3,)


def test_v0_episode_follows_the_v0_formulas_exactly() -> None:
    """A whole -v0 episode (clipped actions, the forced last sale) against its formulas."""
    env = sekai.make("OptimalExecution-v0")
    rng = np.random.default_rng(5)
    fractions = rng.uniform(-0.2, 0.3, 25).astype(np.float32)
    result = env.reset(seed=8)
    z = np.random.default_rng(8).standard_normal(25)
    x, mid, shortfall = 1e6, 50.0, 0.0
    for k, fraction in enumerate(fractions):
        assert (
            result.observation.tolist()
            == np.array(
                [x / 1e6, (25 - k) / 25, (mid - 50.0) / (0.95 * math.sqrt(5.0))], np.float32
            ).tolist()
        )
        result = env.step(np.array([fraction]))
        n = x if k == 24 else min(max(float(fraction), 0.0), 1.0) * x
        price = mid - 0.0625 - 2.5e-6 * n / 0.2 if n > 0 else mid
        x -= n
        shortfall += n * (50.0 - price)
        mid += 0.95 * math.sqrt(0.2) * z[k]
        mid -= 2.5e-7 * n
        penalty = 1e-6 * 0.95 * 0.95 * 0.2 * x * x
        assert result.reward == 1e4 * (n * (price - 50.0) - penalty) / (1e6 * 50.0)
        assert (result.info["inventory"], result.info["mid_price"]) == (x, mid)
        assert result.info["implementation_shortfall"] == shortfall
    assert result.terminated and x == 0.0


@pytest.mark.parametrize(
    ("name", "value", "error"),
    [
        ("centred_action", 1, TypeError),
        ("expected_reward", "yes", TypeError),
        ("observe_price", None, TypeError),
        ("reward_scale", 0.0, ValueError),
        ("reward_scale", -1.0, ValueError),
        ("reward_scale", math.inf, ValueError),
        ("reward_scale", "1", TypeError),
    ],
)
def test_invalid_options_name_themselves(name: str, value: Any, error: type) -> None:
    with pytest.raises(error, match=name):
        OptimalExecutionEnv(**{name: value})
    with pytest.raises(error, match=name):
        OptimalExecutionVecEnv(2, **{name: value})


def test_space_options_are_read_only_and_reward_options_writable() -> None:
    env = OptimalExecutionEnv(**V1)
    for name in ("centred_action", "observe_price"):
        with pytest.raises(AttributeError):
            setattr(env, name, False)
    vec = OptimalExecutionVecEnv(2, **V1)
    for name in ("centred_action", "observe_price"):
        with pytest.raises(AttributeError, match="read-only"):
            vec.set_attr(name, False)
    vec.set_attr("reward_scale", 1e4)
    vec.set_attr("expected_reward", False)
    assert (vec.template.reward_scale, vec.template.expected_reward) == (1e4, False)


# --- the centred action ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "share"),
    [
        (-1.0, 0.0),
        (-0.5, 0.5 / 25),
        (0.0, 1 / 25),
        (0.25, 1 / 25 + 0.25 * (1 - 1 / 25)),
        (1.0, 1.0),
        (-3.0, 0.0),
        (2.0, 1.0),
    ],
)
def test_centred_action_scales_the_twap_rate(action: float, share: float) -> None:
    env = OptimalExecutionEnv(centred_action=True)
    env.reset(seed=0)
    result = env.step(np.array([action], np.float32))
    assert result.info["shares_sold"] == pytest.approx(share * 1e6, rel=1e-15, abs=0.0)
    assert result.terminated is (share == 1.0)


def test_centred_action_sells_at_the_twap_rate_and_everything_on_the_last_step() -> None:
    env = OptimalExecutionEnv(centred_action=True, n_steps=4)
    env.reset(seed=0)
    sold = [env.step(np.zeros(1, np.float32)).info["shares_sold"] for _ in range(4)]
    assert sold == pytest.approx([2.5e5] * 4, rel=1e-15)
    env.reset(seed=0)
    sold = [env.step(np.full(1, -1.0, np.float32)).info["shares_sold"] for _ in range(4)]
    assert sold == [0.0, 0.0, 0.0, 1e6]  # a = -1 holds, but the last step sells everything


@settings(max_examples=200, deadline=None)
@given(
    st.floats(-2.0, 2.0, allow_nan=False),
    st.integers(1, 400),
    st.floats(0.0, 1.0, allow_nan=False),
)
def test_encoding_forms_agree_and_invert(action: float, steps_left: int, share: float) -> None:
    one = centred_fraction(action, steps_left)
    batch = centred_fractions(np.array([action, action]), np.array([steps_left, steps_left]))
    assert batch.tolist() == [one, one]  # bit for bit
    assert 0.0 <= one <= 1.0
    encoded = fractions_to_centred(share, steps_left)
    assert -1.0 <= encoded <= 1.0
    assert centred_fraction(float(encoded), steps_left) == pytest.approx(share, abs=1e-15)


# --- reference policies ------------------------------------------------------------------------


def test_reference_policies_play_the_schedules_on_v0() -> None:
    env = OptimalExecutionEnv()
    policies = env.reference_policies()
    assert list(policies) == ["almgren_chriss", "twap"]
    ac = _episode(env, policies["almgren_chriss"])
    np.testing.assert_array_equal(ac["actions"], env.almgren_chriss_actions())
    twap = _episode(env, policies["twap"])
    np.testing.assert_array_equal(
        twap["actions"][:, 0], (1.0 / np.arange(25, 0, -1)).astype(np.float32)
    )
    np.testing.assert_allclose(twap["trades"], np.full(25, 4e4), rtol=1e-6)


def test_reference_policies_sell_the_same_schedules_on_v1() -> None:
    env = OptimalExecutionEnv(**V1)
    policies = env.reference_policies()
    ac = _episode(env, policies["almgren_chriss"])
    assert ac["actions"].dtype == np.float32 and ac["actions"].shape == (25, 1)
    assert np.all((ac["actions"] >= 0) & (ac["actions"] <= 1))  # faster than TWAP
    np.testing.assert_allclose(ac["holdings"], env.almgren_chriss_trajectory(), rtol=1e-6)
    twap = _episode(env, policies["twap"])
    assert np.all(twap["actions"] == 0.0)
    np.testing.assert_allclose(twap["holdings"], 1e6 * (1 - np.arange(26) / 25), atol=1e-6)


@pytest.mark.parametrize("options", [{}, V1])
def test_reference_policies_are_vectorised(options: dict[str, Any]) -> None:
    vec = OptimalExecutionVecEnv(4, autoreset=False, **options)
    single = OptimalExecutionEnv(**options)
    for name, policy in vec.reference_policies().items():
        obs = vec.reset(seed=0, options={"random_start": True}).observations
        steps = 0
        while True:
            batch = policy(obs)
            assert batch.shape == (4, 1) and batch.dtype == np.float32, name
            for row, action in zip(obs, batch, strict=True):
                np.testing.assert_array_equal(policy(row), action)
                np.testing.assert_array_equal(single.reference_policies()[name](row), action)
            result = vec.step(batch)
            obs, steps = result.observations, steps + 1
            if result.dones.all():
                break
        assert steps == 25


def test_scheduled_actions_read_time_to_go_and_check_their_table() -> None:
    policy = ScheduledActions([0.1, 0.2, 0.3, 1.0])
    batch = np.array([[1.0, 1.0], [0.5, 0.75], [0.0, 0.25], [0.0, 0.0], [0.2, 0.5000001]])
    np.testing.assert_array_equal(
        policy(batch), np.array([[0.1], [0.2], [1.0], [1.0], [0.3]], np.float32)
    )
    assert policy(batch[1]).shape == (1,) and repr(policy) == "ScheduledActions(n_steps=4)"
    again = pickle.loads(pickle.dumps(policy))
    np.testing.assert_array_equal(again(batch), policy(batch))
    with pytest.raises(ValueError, match="actions"):
        ScheduledActions([])
    with pytest.raises(ValueError, match="actions"):
        ScheduledActions([[0.1]])
    with pytest.raises(ValueError, match="actions"):
        ScheduledActions([np.nan])
    with pytest.raises(TypeError, match="actions"):
        ScheduledActions("0.1")


# --- Almgren-Chriss is the optimum of the env's reward -----------------------------------------


@pytest.mark.parametrize("name", ["almgren_chriss", "twap"])
def test_expected_return_is_minus_the_mean_variance_objective(name: str) -> None:
    """Under the expected reward the return of a schedule is exactly its closed-form cost."""
    env = OptimalExecutionEnv(**V1)
    episode = _episode(env, env.reference_policies()[name])
    mean, variance = env.expected_shortfall(episode["trades"])
    expected = -100.0 * (mean + env.risk_aversion * variance) / NOTIONAL
    assert episode["return"] == pytest.approx(expected, rel=1e-12)
    plan = (
        env.almgren_chriss_trajectory()
        if name == "almgren_chriss"
        else 1e6 * (1 - np.arange(26) / 25)
    )
    assert episode["return"] == pytest.approx(-100.0 * _objective(env, plan) / NOTIONAL, rel=1e-7)


def test_closed_form_objective_is_stationary_and_minimal_at_almgren_chriss() -> None:
    env = OptimalExecutionEnv()
    ac = env.almgren_chriss_trajectory()
    best = _objective(env, ac)
    h = 1e3  # shares
    for j in range(1, 25):
        up, down = ac.copy(), ac.copy()
        up[j] += h
        down[j] -= h
        rise_up, rise_down = _objective(env, up) - best, _objective(env, down) - best
        # zero gradient: the two sides rise alike; positive curvature: both rise
        assert rise_up > 0 and rise_down > 0
        assert rise_up == pytest.approx(rise_down, rel=1e-6)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=25, max_size=25),
    st.booleans(),
)
def test_no_action_sequence_beats_almgren_chriss_on_the_expected_reward(
    actions: list[float], random_start: bool
) -> None:
    """Every episode's expected return is a schedule's cost: none is below Almgren-Chriss's,
    from the full block or from a random inventory."""
    env = OptimalExecutionEnv(**V1)
    reset = {"options": {"random_start": random_start}}
    best = _episode(env, env.reference_policies()["almgren_chriss"], seed=5, **reset)["return"]
    moves = iter(actions)
    other = _episode(env, lambda obs: np.array([next(moves)], np.float32), seed=5, **reset)
    assert other["return"] <= best + 1e-12


def _fractions(holdings: np.ndarray) -> np.ndarray:
    """The v0 actions ``(N, 1)`` that follow ``holdings``."""
    return ((holdings[:-1] - holdings[1:]) / holdings[:-1])[:, None]


def _realised_returns(actions: np.ndarray, paths: int, seed: int) -> np.ndarray:
    vec = OptimalExecutionVecEnv(paths, autoreset=False)
    vec.reset(seed=seed)
    totals = np.zeros(paths)
    for action in actions:
        result = vec.step(np.repeat(action[None].astype(np.float32), paths, axis=0))
        totals += result.rewards
    assert result.terminated.all()
    return totals


def test_almgren_chriss_beats_twap_and_perturbed_schedules_in_monte_carlo() -> None:
    """On the realised v0 reward, with common prices: AC's mean return is above TWAP's and
    every perturbed schedule's, by the closed-form difference, within 3 standard errors."""
    env = OptimalExecutionEnv()
    paths, j = 4000, np.arange(26)
    ac = env.almgren_chriss_trajectory()
    best = _realised_returns(env.almgren_chriss_actions(), paths, seed=11)
    mean, variance = env.expected_shortfall(-np.diff(ac))
    objective = -1e4 * (mean + env.risk_aversion * variance) / NOTIONAL
    assert abs(best.mean() - objective) < 3 * best.std(ddof=1) / math.sqrt(paths)
    others = [1e6 * (1 - j / 25)] + [
        ac + size * 1e6 * np.sin(math.pi * waves * j / 25)
        for size, waves in [(0.05, 1), (-0.05, 1), (0.03, 2), (-0.03, 2)]
    ]
    for holdings in others:
        assert np.all(np.diff(holdings) < 0)
        returns = _realised_returns(_fractions(holdings), paths, seed=11)
        lead = best - returns
        error = lead.std(ddof=1) / math.sqrt(paths)
        closed = 1e4 * (_objective(env, holdings) - _objective(env, ac)) / NOTIONAL
        assert lead.mean() > 3 * error
        assert abs(lead.mean() - closed) < 3 * error


# --- the expected reward -----------------------------------------------------------------------


def _price_chaser(obs: np.ndarray) -> np.ndarray:
    """Sell faster when the price is up, slower when it is down (reads the price entry)."""
    return np.clip(obs[..., 2:3] * 2.0, -1.0, 1.0).astype(np.float32)


def test_expected_reward_differs_from_the_realised_by_price_noise_only() -> None:
    """Per episode: realised - expected = scale·Σ x_after·(Δmid + gamma·n)/(X0·s0), that is
    scale·sigma·√τ·Σ x_after·Z/(X0·s0), the part with mean zero."""
    options = {"centred_action": True, "reward_scale": 100.0}
    realised = OptimalExecutionEnv(**options)
    expected = OptimalExecutionEnv(expected_reward=True, **options)
    for seed in range(20):
        obs = realised.reset(seed=seed).observation
        expected.reset(seed=seed)
        gap, noise, done = 0.0, 0.0, False
        while not done:
            mid, action = realised.mid, _price_chaser(obs)
            one, other = realised.step(action), expected.step(action)
            assert one.info == other.info
            np.testing.assert_array_equal(one.observation, other.observation)
            gap += one.reward - other.reward
            n = one.info["shares_sold"]
            noise += realised.inventory * (realised.mid - mid + realised.gamma * n)
            obs, done = one.observation, one.terminated
        assert gap == pytest.approx(100.0 * noise / NOTIONAL, rel=1e-9, abs=1e-12)


def test_expected_reward_has_the_realised_mean_under_a_price_reading_policy() -> None:
    paths = 20_000
    options = {"centred_action": True, "reward_scale": 100.0}
    realised = OptimalExecutionVecEnv(paths, autoreset=False, **options)
    expected = OptimalExecutionVecEnv(paths, autoreset=False, expected_reward=True, **options)
    obs = realised.reset(seed=3).observations
    expected.reset(seed=3)
    totals = np.zeros((2, paths))
    for _ in range(25):
        action = _price_chaser(obs)
        one, other = realised.step(action), expected.step(action)
        totals += [one.rewards, other.rewards]
        obs = one.observations
    assert one.terminated.all() and other.terminated.all()
    gap = totals[0] - totals[1]
    assert gap.std() > 1.0  # the realised return carries the price noise; the expected one not
    assert abs(gap.mean()) < 3 * gap.std(ddof=1) / math.sqrt(paths)


# --- random starts -----------------------------------------------------------------------------


def test_random_start_draws_the_initial_inventory() -> None:
    env = OptimalExecutionEnv(**V1)
    for seed in range(5):
        result = env.reset(seed=seed, options={"random_start": True})
        start = 1e6 * (1.0 - np.random.default_rng(seed).random())
        assert env.inventory == start and result.info["inventory"] == start
        assert result.observation.tolist() == [np.float32(start / 1e6), 1.0]
    env.reset(seed=0, options={"random_start": False})
    assert env.inventory == 1e6
    with pytest.raises(TypeError, match=r"options\['random_start'\]"):
        env.reset(options={"random_start": 1})
    vec = OptimalExecutionVecEnv(3, **V1)
    with pytest.raises(TypeError, match=r"options\['random_start'\]"):
        vec.reset(options={"random_start": "yes"})
    vec.reset(seed=4, options=[{"random_start": True}, None, {"random_start": True}])
    draws = np.random.default_rng(4).random(2)
    assert vec.inventory.tolist() == [1e6 * (1 - draws[0]), 1e6, 1e6 * (1 - draws[1])]


# --- single == native ---------------------------------------------------------------------------


@pytest.mark.parametrize("options", [V1, {**V1, "expected_reward": False, "observe_price": True}])
def test_one_sub_env_reproduces_the_single_env_under_the_options(options: dict[str, Any]) -> None:
    rng = np.random.default_rng(2)
    env = OptimalExecutionEnv(**options)
    vec = OptimalExecutionVecEnv(1, autoreset=False, **options)
    for episode in range(12):
        reset = {"random_start": bool(episode % 2)}
        single = env.reset(seed=episode, options=reset)
        batch = vec.reset(seed=episode, options=reset)
        np.testing.assert_array_equal(batch.observations[0], single.observation)
        assert batch.infos[0] == pytest.approx(single.info, nan_ok=True, rel=0, abs=0)
        done = False
        while not done:
            action = rng.uniform(-1.2, 0.6, 1).astype(np.float32)
            step, stepped = env.step(action), vec.step(action[None])
            assert stepped.rewards[0] == step.reward
            np.testing.assert_array_equal(stepped.observations[0], step.observation)
            assert stepped.infos[0] == step.info
            assert bool(stepped.terminated[0]) is step.terminated
            done = step.terminated


def test_every_sub_env_reproduces_the_single_env_under_v1() -> None:
    """v1's rewards and observations do not depend on the prices, so every sub-env of a
    batch, whatever its draws, steps exactly like a single env given its actions."""
    n = 6
    vec = OptimalExecutionVecEnv(n, autoreset=False, **V1)
    singles = [OptimalExecutionEnv(**V1) for _ in range(n)]
    rng = np.random.default_rng(9)
    batch = vec.reset(seed=1).observations
    for env, row in zip(singles, batch, strict=True):
        np.testing.assert_array_equal(env.reset(seed=100).observation, row)
    running = [True] * n
    for _ in range(25):
        actions = rng.uniform(-1.0, 0.3, (n, 1)).astype(np.float32)
        result = vec.step(actions)
        for i, env in enumerate(singles):
            if not running[i]:
                continue
            step = env.step(actions[i])
            assert result.rewards[i] == step.reward
            np.testing.assert_array_equal(result.observations[i], step.observation)
            for key in ("shares_sold", "inventory", "timestamp"):
                assert result.infos[i][key] == step.info[key], key
            assert bool(result.terminated[i]) is step.terminated
            running[i] = not step.terminated
    assert not any(running) and vec.frozen.all()


def test_v1_passes_check_env() -> None:
    assert check_env(sekai.make("OptimalExecution-v1").unwrapped, n_steps=400) == []

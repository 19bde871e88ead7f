"""OptimalExecutionEnv: parameters, spaces, exact dynamics, errors, Almgren-Chriss baselines."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest

from sekai import check_env
from sekai.envs.finance import OptimalExecutionEnv
from sekai.envs.finance._checks import EPISODE_ENDED
from sekai.error import InvalidAction, ResetRequired
from sekai.spaces import Box

INFO_KEYS = [
    "shares_sold",
    "execution_price",
    "inventory",
    "mid_price",
    "implementation_shortfall",
    "shortfall_bps",
    "timestamp",
    "dt",
]


def test_defaults_and_stored_parameters() -> None:
    env = OptimalExecutionEnv()
    assert OptimalExecutionEnv.metadata == {"render_fps": 5}
    assert (env.X0, env.s0, env.sigma, env.total_time, env.n_steps) == (1e6, 50.0, 0.95, 5.0, 25)
    assert env.tau == 5.0 / 25
    assert (env.gamma, env.eta, env.epsilon, env.risk_aversion) == (2.5e-7, 2.5e-6, 0.0625, 1e-6)
    assert env.observation_space == Box(
        np.array([0.0, 0.0, -np.inf], np.float32),
        np.array([1.0, 1.0, np.inf], np.float32),
        dtype=np.float32,
    )
    assert env.action_space == Box(0.0, 1.0, shape=(1,), dtype=np.float32)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("n_steps", 0),
        ("n_steps", 2.5),
        ("n_steps", 0.0),
        ("initial_inventory", 0.0),
        ("initial_inventory", math.inf),
        ("s0", 0.0),
        ("s0", -1.0),
        ("total_time", 0.0),
        ("temporary_impact", 0.0),
        ("temporary_impact", math.nan),
        ("sigma", -1.0),
        ("permanent_impact", -1e-9),
        ("fixed_cost", -0.1),
        ("risk_aversion", -1.0),
        ("risk_aversion", None),
    ],
)
def test_invalid_parameter_names_it(name: str, value: Any) -> None:
    # the wrong kind (a bool, a string, None, a fraction for the int n_steps) is a TypeError;
    # a wrong value a ValueError
    fraction = name == "n_steps" and isinstance(value, float) and not value.is_integer()
    error = TypeError if fraction or isinstance(value, (bool, str, type(None))) else ValueError
    with pytest.raises(error, match=name):
        OptimalExecutionEnv(**{name: value})


def test_temporary_impact_must_exceed_half_the_permanent_one() -> None:
    # tau = 1: eta - gamma * tau / 2 = 1e-6 - 1e-6 = 0
    with pytest.raises(ValueError, match="temporary_impact - permanent_impact"):
        OptimalExecutionEnv(total_time=1.0, n_steps=1, permanent_impact=2e-6, temporary_impact=1e-6)
    env = OptimalExecutionEnv(sigma=0.0, permanent_impact=0.0, fixed_cost=0.0, risk_aversion=0.0)
    assert env.sigma == 0.0 and env.gamma == 0.0


def test_reset_state_info_and_observation() -> None:
    env = OptimalExecutionEnv()
    result = env.reset(seed=0, options={})
    assert result.observation.dtype == np.float32
    assert result.observation.tolist() == [1.0, 1.0, 0.0]
    info = result.info
    assert list(info) == INFO_KEYS
    assert info["shares_sold"] == 0.0 and math.isnan(info["execution_price"])
    assert info["inventory"] == 1e6 and info["mid_price"] == 50.0
    assert info["implementation_shortfall"] == 0.0 and info["shortfall_bps"] == 0.0
    assert info["timestamp"] == 0.0 and info["dt"] == 0.2
    assert (env.inventory, env.mid, env.shortfall, env.elapsed_steps) == (1e6, 50.0, 0.0, 0)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.5, 1.0, -1.0, 3.0])
def test_first_step_matches_hand_computation(seed: int, fraction: float) -> None:
    env = OptimalExecutionEnv()
    env.reset(seed=seed)
    result = env.step(np.array([fraction], np.float32))
    z = np.random.default_rng(seed).standard_normal()
    f = min(max(float(np.float32(fraction)), 0.0), 1.0)
    n = f * 1e6
    price = 50.0 - 0.0625 - 2.5e-6 * n / 0.2 if n > 0 else 50.0
    x = 1e6 - n
    mid = 50.0 + 0.95 * math.sqrt(0.2) * z - 2.5e-7 * n
    reward = 1e4 * (n * (price - 50.0) - 1e-6 * 0.95**2 * 0.2 * x * x) / (1e6 * 50.0)
    assert result.reward == pytest.approx(reward, rel=1e-12, abs=1e-12)
    assert result.terminated is (x == 0) and result.truncated is False
    info = result.info
    assert list(info) == INFO_KEYS
    assert info["shares_sold"] == n and info["execution_price"] == pytest.approx(price)
    assert info["inventory"] == x and info["mid_price"] == pytest.approx(mid, rel=1e-15)
    shortfall = n * (50.0 - price)
    assert info["implementation_shortfall"] == pytest.approx(shortfall, abs=1e-6)
    assert info["shortfall_bps"] == pytest.approx(1e4 * shortfall / 5e7, abs=1e-12)
    assert info["timestamp"] == 0.2 and env.elapsed_steps == 1
    np.testing.assert_allclose(
        result.observation, [x / 1e6, 24 / 25, (mid - 50.0) / (0.95 * math.sqrt(5.0))], rtol=1e-6
    )


def test_last_step_sells_everything_and_episode_ends() -> None:
    env = OptimalExecutionEnv(n_steps=4)
    with pytest.raises(ResetRequired) as before_reset:
        env.step(np.zeros(1, np.float32))
    env.reset(seed=0)
    flags = [env.step(np.zeros(1, np.float32)).done for _ in range(3)]
    assert flags == [False] * 3 and env.inventory == 1e6
    result = env.step(np.zeros(1, np.float32))
    assert result.terminated and not result.truncated
    assert result.info["shares_sold"] == 1e6 and env.inventory == 0.0
    assert result.observation[:2].tolist() == [0.0, 0.0]
    with pytest.raises(ResetRequired) as after_done:
        env.step(np.zeros(1, np.float32))
    assert str(after_done.value) == EPISODE_ENDED != str(before_reset.value)


def test_selling_everything_early_terminates_and_tiny_remainders_snap() -> None:
    env = OptimalExecutionEnv()
    env.reset(seed=0)
    assert env.step(np.ones(1, np.float32)).terminated
    env.reset(seed=0)
    result = env.step(np.array([1 - 1e-10]))  # leaves 1e-4 shares < 1e-9 * X0
    assert result.terminated and env.inventory == 0.0 and result.observation[0] == 0.0


def test_no_trade_executes_at_mid_and_zero_volatility_observation() -> None:
    env = OptimalExecutionEnv(sigma=0.0, permanent_impact=0.0)
    env.reset(seed=0)
    result = env.step(np.zeros(1, np.float32))
    assert result.info["execution_price"] == 50.0 and result.reward == 0.0
    assert result.observation[2] == 0.0
    env.step(np.full(1, 0.5, np.float32))
    assert env.mid == 50.0


@pytest.mark.parametrize(
    "action",
    [np.zeros(2, np.float32), np.float32(0.5), 0.5, np.zeros((1, 1)), [np.nan], [np.inf], ["x"]],
)
def test_invalid_actions(action: Any) -> None:
    env = OptimalExecutionEnv()
    env.reset(seed=0)
    with pytest.raises(InvalidAction):
        env.step(action)
    assert env.elapsed_steps == 0


def test_trajectory_and_actions() -> None:
    env = OptimalExecutionEnv()
    holdings = env.almgren_chriss_trajectory()
    assert holdings.dtype == np.float64 and holdings.shape == (26,)
    assert holdings[0] == 1e6 and holdings[-1] == 0.0 and np.all(np.diff(holdings) < 0)
    eta_tilde = 2.5e-6 - 2.5e-7 * 0.2 / 2
    kappa = (2 / 0.2) * math.asinh(0.2 * math.sqrt(1e-6 * 0.95**2 / eta_tilde) / 2)
    t = np.arange(26) * 0.2
    np.testing.assert_allclose(
        holdings, 1e6 * np.sinh(kappa * (5.0 - t)) / np.sinh(kappa * 5.0), rtol=1e-12, atol=1e-6
    )
    actions = env.almgren_chriss_actions()
    assert actions.dtype == np.float32 and actions.shape == (25, 1)
    expected = (holdings[:-1] - holdings[1:]) / holdings[:-1]
    np.testing.assert_allclose(actions[:, 0], expected, rtol=1e-6)
    assert actions[-1, 0] == 1.0


def test_risk_neutral_schedule_is_twap() -> None:
    env = OptimalExecutionEnv(risk_aversion=0.0, n_steps=10)
    np.testing.assert_allclose(env.almgren_chriss_trajectory(), 1e6 * (1 - np.arange(11) / 10))
    np.testing.assert_allclose(env.almgren_chriss_actions()[:, 0], 1 / (10 - np.arange(10)))


def test_trajectory_is_overflow_safe() -> None:
    env = OptimalExecutionEnv(risk_aversion=1e6, n_steps=200, total_time=500.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        holdings = env.almgren_chriss_trajectory()
        actions = env.almgren_chriss_actions()
    assert np.all(np.isfinite(holdings)) and holdings[0] == 1e6 and holdings[-1] == 0.0
    assert np.all(holdings >= 0) and actions[0, 0] == 1.0 and np.all(actions == 1.0)


def test_expected_shortfall_formula() -> None:
    env = OptimalExecutionEnv(n_steps=4, total_time=2.0)
    trades = np.array([4e5, 3e5, 2e5, 1e5])
    mean, variance = env.expected_shortfall(trades)
    eta_tilde = 2.5e-6 - 2.5e-7 * 0.5 / 2
    assert mean == pytest.approx(
        0.5 * 2.5e-7 * 1e12 + 0.0625 * 1e6 + eta_tilde / 0.5 * (16 + 9 + 4 + 1) * 1e10
    )
    assert variance == pytest.approx(0.95**2 * 0.5 * (36 + 9 + 1 + 0) * 1e10)


def _executed_schedule(env: OptimalExecutionEnv, actions: np.ndarray) -> np.ndarray:
    """The shares each step sells under ``actions`` (deterministic: only the price is random)."""
    x, trades = env.X0, []
    for k, fraction in enumerate(actions[:, 0].astype(np.float64)):
        n = x if k == env.n_steps - 1 else min(max(fraction, 0.0), 1.0) * x
        trades.append(n)
        x = 0.0 if x - n < 1e-9 * env.X0 else x - n
    return np.array(trades)


def test_monte_carlo_shortfall_matches_expected_shortfall() -> None:
    """20000 single-env episodes under the AC actions: mean and variance within 3 std errors."""
    env = OptimalExecutionEnv()
    actions = env.almgren_chriss_actions()
    mean, variance = env.expected_shortfall(_executed_schedule(env, actions))
    paths = 20_000
    env.reset(seed=2024)
    totals = np.empty(paths)
    for p in range(paths):
        env.reset()
        for action in actions:
            result = env.step(action)
        assert result.terminated
        totals[p] = result.info["implementation_shortfall"]
    assert abs(totals.mean() - mean) < 3 * math.sqrt(variance / paths)
    assert abs(totals.var(ddof=1) - variance) < 3 * variance * math.sqrt(2 / (paths - 1))


def test_almgren_chriss_beats_twap_on_mean_variance() -> None:
    env = OptimalExecutionEnv()
    lam = env.risk_aversion
    ac_mean, ac_var = env.expected_shortfall(-np.diff(env.almgren_chriss_trajectory()))
    twap_mean, twap_var = env.expected_shortfall(np.full(25, 1e6 / 25))
    assert ac_mean > twap_mean and ac_var < twap_var
    assert ac_mean + lam * ac_var < 0.8 * (twap_mean + lam * twap_var)


def test_same_seed_same_episode() -> None:
    def rollout(seed: int) -> list[float]:
        env = OptimalExecutionEnv()
        env.reset(seed=seed)
        return [env.step(a).reward for a in env.almgren_chriss_actions()]

    assert rollout(3) == rollout(3) != rollout(4)


def test_check_env_is_clean() -> None:
    assert check_env(OptimalExecutionEnv(), n_steps=400, check_determinism=True) == []

"""Trading-v1: the learnable settings of TradingEnv and its reference policies.

``growth_optimal`` is the Kelly position clipped to the allowed ones, the ``"expected"``
reward has the mean of the realised log return, the ``"relative"`` one is the log return in
excess of holding the asset, the native env matches the single env under every setting, and
Trading-v0 keeps its behaviour.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sekai
from sekai.envs.finance import TradingEnv, TradingVecEnv
from sekai.envs.finance.windowed.growth import expected_log_growth_1d
from sekai.finance import LogReturn
from sekai.testing import check_native_matches


def _history(n: int = 200, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 100 * np.exp(np.cumsum(rng.normal(0.0, 0.01, n)))


def _native(**kwargs: Any) -> Any:
    def build(num_envs: int, autoreset: bool) -> TradingVecEnv:
        return TradingVecEnv(num_envs, autoreset=autoreset, **kwargs)

    return build


# --- reference policies -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mu", "sigma", "positions", "kelly"),
    [
        (0.05, 0.2, (-1.0, 0.0, 1.0), 1.0),  # mu / sigma^2 = 1.25: always long
        (0.01, 0.2, (-1.0, 0.0, 1.0), 0.0),  # 0.25: nearer flat
        (0.03, 0.2, (-1.0, 0.0, 1.0), 1.0),  # 0.75: nearer long
        (-0.08, 0.2, (-1.0, 0.0, 1.0), -1.0),  # -2: short
        (0.02, 0.2, (0.0, 0.25, 0.5, 0.75, 1.0), 0.5),  # 0.5 exactly
        (0.06, 0.3, (0.0, 0.25, 0.5, 0.75, 1.0), 0.75),  # 0.667
        (0.05, 0.1, (0.0, 1.0, 2.0, 3.0, 4.0), 4.0),  # 5: clipped to the largest
    ],
)
def test_growth_optimal_is_the_kelly_fraction_clipped_to_the_positions(
    mu: float, sigma: float, positions: tuple[float, ...], kelly: float
) -> None:
    env = TradingEnv(mu=mu, sigma=sigma, positions=positions)
    policy = env.reference_policies()["growth_optimal"]
    obs, _ = env.reset(seed=0)
    assert env.positions[policy(obs)] == kelly
    # the nearest position to mu / sigma^2 (the continuous-time growth rate is a parabola)
    assert kelly == positions[int(np.argmin(np.abs(np.array(positions) - mu / sigma**2)))]


def test_default_market_is_always_long_and_flat_is_position_zero() -> None:
    env = sekai.make("Trading-v1").unwrapped
    policies = env.reference_policies()
    assert sorted(policies) == ["flat", "growth_optimal"]
    obs, _ = env.reset(seed=3)
    assert (policies["growth_optimal"](obs), policies["flat"](obs)) == (2, 1)
    vec = sekai.make_vec("Trading-v1", 4)
    batch = vec.reset(seed=0).observations
    actions = vec.reference_policies()["growth_optimal"](batch)
    assert actions.dtype == np.int64 and actions.tolist() == [2, 2, 2, 2]
    assert vec.reference_policies()["flat"](batch).tolist() == [1, 1, 1, 1]


def test_reference_policies_work_on_v0_and_need_a_known_market() -> None:
    v0 = sekai.make("Trading-v0").unwrapped
    obs, _ = v0.reset(seed=0)
    assert obs.shape == (31,) and v0.reference_policies()["growth_optimal"](obs) == 2
    history = TradingEnv(_history(), episode_length=20, lookback=5)
    assert sorted(history.reference_policies()) == ["flat"]
    no_flat = TradingEnv(positions=(-1.0, 1.0))
    assert sorted(no_flat.reference_policies()) == ["growth_optimal"]


def test_expected_log_growth_matches_closed_forms_and_monte_carlo() -> None:
    mu, sigma, dt = 0.1, 0.4, 1 / 12
    growth = expected_log_growth_1d([0.0, 1.0, 0.5, -1.0], mu, sigma, dt)
    assert growth[0] == 0.0
    assert growth[1] == pytest.approx((mu - sigma**2 / 2) * dt, rel=1e-12)
    r = np.expm1(np.random.default_rng(0).normal((mu - sigma**2 / 2) * dt, sigma * dt**0.5, 10**6))
    for p, value in ((0.5, growth[2]), (-1.0, growth[3])):
        sample = np.log(1 + p * r)
        assert abs(sample.mean() - value) < 4 * sample.std() / 1e3


def test_growth_optimal_beats_every_other_constant_position_on_the_realised_reward() -> None:
    """Trading-v0's own reward over 2000 episodes on common paths: long beats flat and short."""
    vec = sekai.make_vec("Trading-v0", 2000, vector_kwargs={"autoreset": False})
    totals = {}
    for action in (0, 1, 2):
        vec.reset(seed=5)
        total = np.zeros(2000)
        for _ in range(252):
            total += vec.step(np.full(2000, action)).rewards
        totals[action] = total
    for other in (0, 1):
        diff = totals[2] - totals[other]
        assert diff.mean() > 4 * diff.std() / np.sqrt(2000)


# --- the learnable settings ---------------------------------------------------------------------


def test_v1_registration_observation_and_reward() -> None:
    env = sekai.make("Trading-v1", episode_length=10)
    base = env.unwrapped
    assert (base.observation_mode, base.reward_mode, base.random_start) == (
        "state",
        "expected",
        True,
    )
    assert env.observation_space.shape == (2,)
    obs, _ = env.reset(seed=0)
    assert obs[0] in (-1.0, 0.0, 1.0) and obs[1] == 1.0
    scale = base.sigma**2 * base.dt
    growth = expected_log_growth_1d(base.positions, base.mu, base.sigma, base.dt)
    position = float(obs[0])
    for k in range(1, 11):
        obs, reward, terminated, truncated, info = env.step(2)
        cost = 1e-3 * abs(1.0 - position)
        assert reward == pytest.approx((np.log(1 - cost) + growth[2]) / scale, rel=1e-12)
        assert obs.tolist() == [1.0, np.float32((10 - k) / 10)]
        assert info["cost"] == pytest.approx(cost, abs=1e-15)
        position = 1.0
    assert truncated and not terminated


def test_expected_reward_has_the_mean_of_the_realised_log_return() -> None:
    """Same paths, same random actions: (expected reward x scale) - realised log return has
    mean 0 within 4 standard errors; without its -sigma^2/2 term it would be 15 off."""
    kwargs: dict[str, Any] = {"mu": 0.1, "sigma": 0.4, "dt": 1 / 12, "episode_length": 100}
    expected = TradingVecEnv(1000, reward_mode="expected", random_start=True, **kwargs)
    realised = TradingVecEnv(1000, random_start=True, **kwargs)
    expected.reset(seed=1)
    realised.reset(seed=1)
    scale = 0.4**2 / 12
    rng = np.random.default_rng(2)
    diffs = []
    for _ in range(100):
        actions = rng.integers(0, 3, 1000)
        a, b = expected.step(actions), realised.step(actions)
        diffs.append(a.rewards * scale - b.rewards)
    diff = np.concatenate(diffs)
    assert abs(diff.mean()) < 4 * diff.std() / np.sqrt(diff.size)
    assert 15 * diff.std() / np.sqrt(diff.size) < 0.4**2 / 24


def test_relative_reward_is_the_excess_over_holding_the_asset() -> None:
    env = TradingEnv(_history(), reward_mode="relative", episode_length=30, lookback=5)
    plain = TradingEnv(_history(), episode_length=30, lookback=5)
    log_returns = np.diff(np.log(_history()))
    scale = log_returns.std()
    assert env.observation_mode == "returns"
    env.reset(seed=0, options={"start": 40})
    plain.reset(seed=0, options={"start": 40})
    for action in [0, 2, 2, 1, 0, 2, 1, 1]:
        a, b = env.step(action), plain.step(action)
        r = b.info["asset_return"]
        assert a.reward == pytest.approx((b.reward - np.log1p(r)) / scale, rel=1e-9, abs=1e-12)


def test_auto_settings_on_a_history_scale_the_returns() -> None:
    prices = _history()
    env = sekai.make("Trading-v1", prices=prices, lookback=5, episode_length=20).unwrapped
    assert (env.observation_mode, env.reward_mode) == ("scaled", "relative")
    obs, _ = env.reset(seed=0, options={"start": 30})
    log_returns = np.diff(np.log(prices))
    scaled = log_returns.astype(np.float32)[25:30] / np.float32(log_returns.std())
    np.testing.assert_array_equal(obs[:5], scaled)
    assert obs[6] == 1.0 and env.observation_space.shape == (7,)


def test_random_start_draws_every_position_uniformly() -> None:
    env = TradingEnv(random_start=True, episode_length=5, positions=(-1.0, 0.0, 0.5, 1.0))
    starts = [env.reset(seed=seed)[1]["position"] for seed in range(800)]
    counts = np.array([starts.count(p) for p in (-1.0, 0.0, 0.5, 1.0)])
    assert counts.sum() == 800 and (np.abs(counts - 200) < 4 * np.sqrt(150)).all()
    vec = TradingVecEnv(800, random_start=True, episode_length=5)
    vec.reset(seed=0)
    assert set(np.unique(vec.position)) == {-1.0, 0.0, 1.0}


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"observation": "scaled", "reward_mode": "relative"},
        {"observation": "returns", "reward_mode": "expected", "random_start": False},
    ],
)
def test_native_matches_the_single_env_under_v1(kwargs: dict[str, Any]) -> None:
    options = {"episode_length": 30, "lookback": 4, "transaction_cost": 2e-3, **kwargs}
    v1 = {"observation": "auto", "reward_mode": "auto", "random_start": True, **options}
    problems = check_native_matches(
        lambda: TradingEnv(**v1), _native(**v1), num_envs=1, steps=80, seed=3
    )
    assert problems == []


def test_native_matches_the_single_env_on_a_history_with_several_sub_envs() -> None:
    v1 = {"prices": _history(), "episode_length": 20, "lookback": 5, "sampler": "sequential"}
    v1 |= {"observation": "auto", "reward_mode": "auto"}
    starts = [{"start": 5 + 7 * i} for i in range(4)]
    problems = check_native_matches(
        lambda: TradingEnv(**v1), _native(**v1), num_envs=4, steps=70, options=starts
    )
    assert problems == []


def test_learning_settings_are_read_only_and_answered_by_the_native_env() -> None:
    vec = sekai.make_vec("Trading-v1", 2)
    assert vec.get_attr("reward_mode") == ["expected", "expected"]
    assert vec.get_attr("observation_mode") == ["state", "state"]
    with pytest.raises(AttributeError, match="read-only"):
        vec.set_attr("reward_mode", "realised")
    with pytest.raises(AttributeError):
        vec.template.random_start = False  # type: ignore[misc]


def test_changing_the_market_recomputes_the_expected_reward() -> None:
    env = TradingEnv(reward_mode="expected", episode_length=5)
    env.reset(seed=0)
    first = env.step(1).reward
    env.sigma = 0.4
    env.reset(seed=0)
    assert env.step(1).reward == first * 0.2**2 / 0.4**2


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"observation": "prices"}, ValueError, "observation must be one of"),
        ({"observation": 1}, TypeError, "observation must be one of"),
        ({"reward_mode": "sharpe"}, ValueError, "reward_mode must be one of"),
        ({"random_start": 1}, TypeError, "random_start must be a bool"),
        ({"reward_mode": "expected", "prices": _history(400)}, ValueError, "known"),
        ({"reward_mode": "relative", "reward": LogReturn()}, ValueError, "reward_mode='realised'"),
    ],
)
def test_bad_learning_options_raise(kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        TradingEnv(**kwargs)


def test_v0_is_unchanged() -> None:
    env = sekai.make("Trading-v0").unwrapped
    assert (env.observation_mode, env.reward_mode, env.random_start) == (
        "returns",
        "realised",
        False,
    )
    obs, info = env.reset(seed=0)
    assert obs.shape == (31,) and obs[-1] == 0.0 and info["position"] == 0.0
    obs, reward, _, _, info = env.step(2)
    assert reward == float(np.log((1 - 1e-3) * (1 + info["asset_return"])))
    assert obs[-1] == 1.0 and env.observation_space.shape == (31,)

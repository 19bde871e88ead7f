"""Portfolio-v1: the learnable settings of PortfolioEnv and its reference policies.

``best_constant`` is the optimum among constant long-only weights (closed forms without
costs, Monte Carlo against perturbed weights with them), the ``"expected"`` reward has the
mean of the realised log return, the ``"relative"`` one is the log return in excess of the
equal-weight benchmark, the ``"logits"`` action 0 is equal weight, the native env matches
the single env under every setting, and Portfolio-v0 keeps its behaviour.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sekai
from sekai.envs.finance import PortfolioEnv, PortfolioVecEnv
from sekai.envs.finance.portfolio.env import LOGIT_SCALE
from sekai.envs.finance.windowed.growth import project_to_simplex
from sekai.finance import DifferentialSharpe
from sekai.testing import check_native_matches


def _history(n: int = 200, k: int = 3, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 100 * np.exp(np.cumsum(rng.normal(0.0, 0.01, (n, k)), axis=0))


def _native(**kwargs: Any) -> Any:
    def build(num_envs: int, autoreset: bool) -> PortfolioVecEnv:
        return PortfolioVecEnv(num_envs, autoreset=autoreset, **kwargs)

    return build


def _episode_rewards(vec: PortfolioVecEnv, action: np.ndarray, seed: int) -> np.ndarray:
    """Each sub-env's episode reward under the constant ``action`` (autoreset off)."""
    vec.reset(seed=seed)
    total = np.zeros(vec.num_envs)
    batch = np.tile(action, (vec.num_envs, 1))
    while not vec.frozen.all():
        total += vec.step(batch).rewards
    return total


# --- best constant weights: closed forms --------------------------------------------------------


@pytest.mark.parametrize(("mu", "sigma", "kelly"), [(0.04, 0.4, 0.25), (0.09, 0.3, 1.0)])
def test_best_constant_of_one_asset_without_costs_is_kelly_clipped(
    mu: float, sigma: float, kelly: float
) -> None:
    env = PortfolioEnv(n_assets=1, mu=[mu], sigma=[sigma], transaction_cost=0.0)
    weights = env.best_constant_weights()
    assert weights[0] == pytest.approx(min(mu / sigma**2, 1.0), abs=2e-3)
    assert weights.sum() == pytest.approx(1.0, abs=1e-12) and weights[0] == pytest.approx(
        kelly, abs=2e-3
    )


def test_best_constant_of_two_assets_without_costs_is_merton() -> None:
    mu, sigma, rho = np.array([0.03, 0.02]), np.array([0.3, 0.4]), 0.3
    corr = np.array([[1.0, rho], [rho, 1.0]])
    env = PortfolioEnv(n_assets=2, mu=mu, sigma=sigma, corr=corr, transaction_cost=0.0)
    merton = np.linalg.solve(corr * np.outer(sigma, sigma), mu)
    weights = env.best_constant_weights()
    np.testing.assert_allclose(weights[:2], merton, atol=2e-3)
    assert weights[2] == pytest.approx(1 - merton.sum(), abs=4e-3)


def test_best_constant_without_costs_maximises_the_growth_rate_on_the_simplex() -> None:
    """Five assets of the default market, no costs: the weights maximise w·mu - w'Σw/2 on the
    simplex (checked by projected gradient on that continuous-time objective)."""
    env = PortfolioEnv(transaction_cost=0.0)
    cov = env.corr * np.outer(env.sigma, env.sigma)
    w = np.full(6, 1 / 6)
    for _ in range(20000):
        w = project_to_simplex(w + 0.5 * np.append(env.mu - cov @ w[:-1], 0.0))
    np.testing.assert_allclose(env.best_constant_weights(), w, atol=3e-3)


# --- best constant weights: Monte Carlo with costs ----------------------------------------------


def test_best_constant_beats_perturbed_constant_weights_on_the_env_reward() -> None:
    """Portfolio-v1's own reward, 400 episodes on common paths: no perturbed constant weight
    vector (nor equal weight) does better than best_constant beyond 3 standard errors, and
    the best constant beats equal weight."""
    kwargs: dict[str, Any] = {"n_assets": 3, "episode_length": 100}
    env = sekai.make("Portfolio-v1", **kwargs).unwrapped
    vec = sekai.make_vec("Portfolio-v1", 400, vector_kwargs={"autoreset": False}, **kwargs)
    best = env.best_constant_weights()
    base = _episode_rewards(vec, env.weights_to_action(best), seed=7)
    rng = np.random.default_rng(0)
    candidates = [np.array([1, 1, 1, 0]) / 3]
    for _ in range(8):
        direction = rng.normal(size=4)
        candidates.append(project_to_simplex(best + 0.08 * direction / np.linalg.norm(direction)))
    for k, weights in enumerate(candidates):
        other = _episode_rewards(vec, env.weights_to_action(weights), seed=7)
        diff = base - other
        assert diff.mean() > -3 * diff.std() / np.sqrt(400), (weights, diff.mean())
        if k == 0:
            assert diff.mean() > 3 * diff.std() / np.sqrt(400)


def test_best_constant_counts_the_costs_and_the_start() -> None:
    free = PortfolioEnv(transaction_cost=0.0).best_constant_weights()
    costly = PortfolioEnv(transaction_cost=1e-3).best_constant_weights()
    random = PortfolioEnv(transaction_cost=1e-3, random_start=True).best_constant_weights()
    # rebalancing costs push the weights towards the least volatile asset (fewer trades)
    assert costly[0] > free[0] + 0.03
    assert not np.allclose(random, costly, atol=1e-3)
    assert np.isclose(costly.sum(), 1.0) and (costly >= 0).all()


def test_best_constant_needs_a_known_market() -> None:
    env = PortfolioEnv(_history(), episode_length=20, lookback=5)
    assert sorted(env.reference_policies()) == ["equal_weight"]
    with pytest.raises(ValueError, match="known parameters"):
        env.best_constant_weights()


# --- reference policies and the logits action ---------------------------------------------------


def test_equal_weight_is_action_zero_and_policies_take_batches() -> None:
    env = sekai.make("Portfolio-v1").unwrapped
    policies = env.reference_policies()
    assert sorted(policies) == ["best_constant", "equal_weight"]
    obs, _ = env.reset(seed=0)
    action = policies["equal_weight"](obs)
    assert action.dtype == np.float32 and not action.any()
    np.testing.assert_array_equal(env.action_to_weights(action), [0.2] * 5 + [0.0])
    best = env.best_constant_weights()
    np.testing.assert_allclose(
        env.action_to_weights(policies["best_constant"](obs)), best, atol=1e-6
    )
    vec = sekai.make_vec("Portfolio-v1", 3)
    batch = vec.reset(seed=0).observations
    actions = vec.reference_policies()["best_constant"](batch)
    assert actions.shape == (3, 6) and (actions == policies["best_constant"](obs)).all()


def test_reference_policies_work_on_v0() -> None:
    env = sekai.make("Portfolio-v0").unwrapped
    obs, _ = env.reset(seed=0)
    policies = env.reference_policies()
    np.testing.assert_allclose(
        env.action_to_weights(policies["equal_weight"](obs)), [0.2] * 5 + [0.0], atol=1e-7
    )
    np.testing.assert_allclose(
        env.action_to_weights(policies["best_constant"](obs)),
        env.best_constant_weights(),
        atol=1e-6,
    )
    short = PortfolioEnv(allow_short=True)
    action = short.reference_policies()["equal_weight"](short.reset(seed=0)[0])
    np.testing.assert_array_equal(action, np.full(5, 0.2, np.float32))


def test_logits_action_softmax_and_cash() -> None:
    env = PortfolioEnv(n_assets=3, action_mode="logits")
    assert env.action_space.shape == (4,) and (env.action_space.low == -1).all()
    weights = env.action_to_weights(np.array([1.0, 0.0, -1.0, -0.25], np.float32))
    logits = np.exp(LOGIT_SCALE * np.array([1.0, 0.0, -1.0]))
    np.testing.assert_allclose(weights, np.append(0.75 * logits / logits.sum(), 0.25), rtol=1e-12)
    assert env.action_to_weights(np.array([0, 0, 0, 1.0]))[-1] == 0.0
    np.testing.assert_array_equal(env.action_to_weights(np.array([0, 0, 0, -1.0])), [0, 0, 0, 1])
    # out-of-box actions are clipped
    np.testing.assert_array_equal(
        env.action_to_weights(np.array([5.0, 0, 0, 0])),
        env.action_to_weights(np.array([1.0, 0, 0, 0])),
    )
    for target in ([0.5, 0.3, 0.1, 0.1], [0.2, 0.2, 0.6, 0.0]):
        np.testing.assert_allclose(
            env.action_to_weights(env.weights_to_action(target)), target, atol=1e-6
        )


# --- rewards, observations and starts -----------------------------------------------------------


def test_expected_reward_has_the_mean_of_the_realised_log_return() -> None:
    """Same paths and random actions: expected x scale + benchmark - realised log return has
    mean 0 within 4 standard errors (steps of half a year, where dropping the second-order
    term would be over 10 standard errors off)."""
    kwargs: dict[str, Any] = {"n_assets": 3, "dt": 1 / 2, "episode_length": 60}
    kwargs |= {"action_mode": "logits", "random_start": True}
    expected = PortfolioVecEnv(1000, reward_mode="expected", **kwargs)
    realised = PortfolioVecEnv(1000, **kwargs)
    expected.reset(seed=1)
    realised.reset(seed=1)
    scales = expected.template.learning_scales()
    rng = np.random.default_rng(2)
    diffs = []
    for _ in range(60):
        actions = rng.uniform(-1, 1, (1000, 4)).astype(np.float32)
        a, b = expected.step(actions), realised.step(actions)
        diffs.append(a.rewards * scales.reward + scales.benchmark - b.rewards)
    diff = np.concatenate(diffs)
    assert abs(diff.mean()) < 4 * diff.std() / np.sqrt(diff.size)
    equal = np.full(3, 1 / 3)
    assert 0.5 * equal @ scales.growth.second @ equal > 10 * diff.std() / np.sqrt(diff.size)


def test_relative_reward_is_the_excess_over_equal_weight() -> None:
    prices = _history()
    env = PortfolioEnv(prices, reward_mode="relative", episode_length=30, lookback=5)
    plain = PortfolioEnv(prices, episode_length=30, lookback=5)
    bench = np.log1p(np.expm1(np.diff(np.log(prices), axis=0)).mean(axis=1))
    env.reset(seed=0, options={"start": 40})
    plain.reset(seed=0, options={"start": 40})
    rng = np.random.default_rng(0)
    for _ in range(10):
        action = rng.random(4).astype(np.float32)
        a, b = env.step(action), plain.step(action)
        excess = b.reward - np.log1p(b.info["asset_returns"].mean())
        assert a.reward == pytest.approx(excess / bench.std(), rel=1e-9, abs=1e-12)


def test_v1_observation_and_auto_settings() -> None:
    env = sekai.make("Portfolio-v1", episode_length=4).unwrapped
    assert (env.action_mode, env.observation_mode, env.reward_mode, env.random_start) == (
        "logits",
        "state",
        "expected",
        True,
    )
    obs, info = env.reset(seed=0)
    assert list(obs) == ["weights", "time_left"] and obs["time_left"].tolist() == [1.0]
    np.testing.assert_array_equal(obs["weights"], info["weights"].astype(np.float32))
    for k in range(1, 5):
        obs, *_ = env.step(np.zeros(6, np.float32))
        assert obs["time_left"].tolist() == [(4 - k) / 4]
    history = sekai.make("Portfolio-v1", prices=_history(), episode_length=20, lookback=5).unwrapped
    assert (history.observation_mode, history.reward_mode) == ("scaled", "relative")
    obs, _ = history.reset(seed=0, options={"start": 30})
    log_returns = np.diff(np.log(_history()), axis=0)
    scaled = log_returns.astype(np.float32)[25:30] / log_returns.std(axis=0).astype(np.float32)
    np.testing.assert_array_equal(obs["returns"], scaled)
    assert list(obs) == ["returns", "weights", "time_left"]


def test_random_start_is_uniform_on_the_simplex() -> None:
    vec = PortfolioVecEnv(4000, n_assets=3, random_start=True, episode_length=5)
    vec.reset(seed=0)
    weights = vec.weights
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-12)
    # Dirichlet(1, 1, 1, 1): mean 1/4, variance 3/80
    np.testing.assert_allclose(weights.mean(axis=0), 0.25, atol=4 * np.sqrt(3 / 80 / 4000))
    np.testing.assert_allclose(weights.var(axis=0), 3 / 80, rtol=0.1)
    env = PortfolioEnv(random_start=True)
    assert env.reset(seed=1)[1]["weights"].min() > 0


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"observation": "scaled", "reward_mode": "relative"},
        {"action_mode": "scores", "reward_mode": "expected", "random_start": False},
        {"n_assets": 9},
    ],
)
def test_native_matches_the_single_env_under_v1(kwargs: dict[str, Any]) -> None:
    options = {"episode_length": 30, "lookback": 4, "n_assets": 3, **kwargs}
    v1 = {"action_mode": "logits", "observation": "auto", "reward_mode": "auto"}
    v1 |= {"random_start": True, **options}
    problems = check_native_matches(
        lambda: PortfolioEnv(**v1), _native(**v1), num_envs=1, steps=80, seed=3
    )
    assert problems == []


def test_native_matches_the_single_env_on_a_history_with_several_sub_envs() -> None:
    v1 = {"prices": _history(), "episode_length": 20, "lookback": 5, "sampler": "sequential"}
    v1 |= {"action_mode": "logits", "observation": "auto", "reward_mode": "auto"}
    starts = [{"start": 5 + 7 * i} for i in range(4)]
    problems = check_native_matches(
        lambda: PortfolioEnv(**v1), _native(**v1), num_envs=4, steps=70, options=starts
    )
    assert problems == []


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"action_mode": "weights"}, ValueError, "action_mode must be"),
        ({"action_mode": "logits", "allow_short": True}, ValueError, "allow_short=False"),
        ({"observation": "prices"}, ValueError, "observation must be one of"),
        ({"reward_mode": 2}, TypeError, "reward_mode must be one of"),
        ({"random_start": "yes"}, TypeError, "random_start must be a bool"),
        ({"reward_mode": "expected", "prices": _history(400)}, ValueError, "known parameters"),
        ({"reward_mode": "relative", "reward": DifferentialSharpe()}, ValueError, "'realised'"),
    ],
)
def test_bad_learning_options_raise(kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        PortfolioEnv(**kwargs)


def test_v0_is_unchanged() -> None:
    env = sekai.make("Portfolio-v0").unwrapped
    assert (env.action_mode, env.observation_mode, env.reward_mode, env.random_start) == (
        "scores",
        "returns",
        "realised",
        False,
    )
    assert env.action_space.shape == (6,) and env.action_space.low.min() == 0.0
    obs, _ = env.reset(seed=0)
    assert list(obs) == ["returns", "weights"] and obs["weights"].tolist() == [0] * 5 + [1]
    obs, reward, _, _, info = env.step(np.array([1, 1, 1, 1, 1, 0], np.float32))
    growth = (1 - 1e-3) * (1 + info["asset_returns"].mean())
    assert reward == pytest.approx(np.log(growth), rel=1e-12)

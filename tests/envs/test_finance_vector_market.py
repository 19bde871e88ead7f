"""MarketVecEnv: exact agreement with the single env on fixed data (listings, delistings,
slots, costs, financing), exactly one sub-env on simulated markets, the same distribution
with many, and the batched attributes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sekai
from sekai.envs.finance.market import MarketEnv, MarketVecEnv, default_market
from sekai.error import InvalidAction, ResetRequired
from sekai.finance import (
    DifferentialSharpe,
    MarketData,
    MarketModel,
    ProportionalCost,
    Simulation,
    SpreadCost,
    SquareRootImpact,
)
from sekai.testing import check_native_matches, check_vector_backends

NAN = np.nan


def _universe(rows: int = 90, assets: int = 6, seed: int = 0, dated: bool = False) -> MarketData:
    """Prices whose assets list late and delist early (NaN outside), with volume, spread and
    an exogenous rate series."""
    rng = np.random.default_rng(seed)
    prices = 50.0 * np.exp(np.cumsum(rng.normal(0.0, 0.02, (rows, assets)), axis=0))
    for j in range(assets):
        first = int(rng.integers(0, rows // 3)) if j % 2 else 0
        last = int(rng.integers(2 * rows // 3, rows)) if j % 3 == 1 else rows
        prices[:first, j] = NAN
        prices[last:, j] = NAN
    volume = rng.uniform(1e3, 1e4, (rows, assets))
    spread = rng.uniform(1e-4, 1e-3, (rows, assets))
    spread[rng.random((rows, assets)) < 0.1] = NAN
    stamps = np.datetime64("2020-01-01") + np.arange(rows)
    return MarketData(
        prices,
        fields={"volume": volume, "spread": spread},
        assets=[f"A{j}" for j in range(assets)],
        timestamps=stamps if dated else None,
        exogenous={"rate": rng.normal(0.0, 1.0, rows)} if dated else {},
    )


FIXED_CASES = {
    "fixed slots": {},
    "dynamic slots": {"max_assets": 3},
    "extra slots": {"max_assets": 8},
    "shorts, leverage and financing": {
        "allow_short": True,
        "max_leverage": 2.0,
        "cash_rate": 0.02,
        "margin_rate": 0.05,
        "borrow_rate": 0.04,
        "delisting_return": -0.5,
    },
    "costs with context": {
        "transaction_cost": SquareRootImpact(0.5) + SpreadCost() + ProportionalCost(1e-3),
        "reward": DifferentialSharpe(0.1),
    },
    "features and exogenous": {"features": ("volume",), "exogenous": ("rate",), "dated": True},
}


@pytest.mark.parametrize("case", sorted(FIXED_CASES))
def test_native_equals_the_single_env_on_fixed_data(case: str) -> None:
    options = dict(FIXED_CASES[case])
    data = _universe(dated=bool(options.pop("dated", False)))
    kwargs = {"data": data, "lookback": 4, "episode_length": 9, "sampler": "sequential", **options}
    starts = [{"start": 4 + 13 * i} for i in range(5)]
    problems = check_native_matches(
        lambda: MarketEnv(**kwargs),
        lambda **vector: MarketVecEnv(**kwargs, **vector),
        num_envs=5,
        steps=60,
        options=starts,
        seed=1,
    )
    assert problems == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"allow_short": True, "max_leverage": 1.5},
        {"model": default_market(4), "exogenous": ["regime"], "privileged_state": True},
        {"model": default_market(7), "max_assets": 3, "lookback": 3},
    ],
    ids=["default", "shorts", "state", "slots"],
)
def test_one_sub_env_replays_the_single_env_on_a_simulated_market(kwargs: dict[str, Any]) -> None:
    options = {"episode_length": 25, **kwargs}
    problems = check_native_matches(
        lambda: MarketEnv(**options),
        lambda **vector: MarketVecEnv(**options, **vector),
        num_envs=1,
        steps=120,
        seed=4,
    )
    assert problems == []


def _rollout_means(vec: Any, steps: int) -> np.ndarray:
    """Mean tradable count at reset, then the mean summed reward and gross exposure after
    ``steps`` steps (within the episode) of equal scores on every slot and cash."""
    tradable = vec.reset(seed=123).observations["assets"]["mask"].sum(axis=1)
    actions = np.ones((vec.num_envs, vec.action_space.shape[0]), np.float32)
    rewards = np.zeros(vec.num_envs)
    for _ in range(steps):
        result = vec.step(actions)
        rewards += result.rewards
    exposure = result.observations["account"][:, 1]
    return np.array([tradable.mean(), rewards.mean(), exposure.mean()])


def test_simulated_markets_agree_in_distribution() -> None:
    n, steps = 400, 30
    native = _rollout_means(MarketVecEnv(n, episode_length=steps + 1), steps)
    sync = _rollout_means(
        sekai.SyncVecEnv([lambda: MarketEnv(episode_length=steps + 1)] * n), steps
    )
    # listed assets at the start, the equal-weight log return and the gross exposure, each
    # within 4 to 5 standard errors of the difference (seeded, so the outcome is fixed)
    assert np.all(np.abs(native - sync) <= [0.4, 0.02, 0.01])
    assert native[0] > 5.0 and 0.5 < native[2] < 1.0  # the rollout did something


def test_make_vec_builds_the_native_env_and_it_keeps_the_vector_contract() -> None:
    vec = sekai.make_vec("Market-v0", 4, episode_length=10)
    assert isinstance(vec, MarketVecEnv)
    vec.close()
    problems = check_vector_backends(
        "Market-v0",
        backends=("sync", "native"),
        env_kwargs={"episode_length": 5, "model": default_market(5), "max_assets": 3},
        num_envs=3,
        n_steps=20,
    )
    assert problems == []


def test_batched_attributes_masks_and_weights() -> None:
    data = _universe()
    vec = MarketVecEnv(2, data=data, lookback=4, episode_length=9, max_assets=3)
    with pytest.raises(ResetRequired):
        vec.latent_state  # noqa: B018
    vec.reset(options=[{"start": 4}, {"start": 60}])
    singles = [MarketEnv(data, lookback=4, episode_length=9, max_assets=3) for _ in range(2)]
    for env, start in zip(singles, (4, 60), strict=True):
        env.reset(options={"start": start})
    assert list(vec.slot_assets) == [env.slot_assets for env in singles]
    np.testing.assert_array_equal(vec.action_mask(), [env.action_mask() for env in singles])
    assert [row.tolist() for row in vec.call("action_mask")] == [
        env.action_mask().tolist() for env in singles
    ]
    actions = np.array([[0.2, 0.5, 0.9, 0.1], [1.0, 0.0, 0.3, 0.0]], np.float32)
    expected = [env.target_weights(a) for env, a in zip(singles, actions, strict=True)]
    np.testing.assert_array_equal(vec.target_weights(actions), expected)
    assert vec.latent_state.tolist() == [{}, {}]
    assert vec.get_attr("equity") == [1.0, 1.0]


def test_parameters_are_shared_and_shape_parameters_read_only() -> None:
    vec = MarketVecEnv(3, episode_length=5)
    assert vec.get_attr("delisting_return") == [0.0] * 3
    vec.set_attr("delisting_return", -1.0)
    assert vec.template.delisting_return == -1.0
    shaped = ("max_assets", "config", "model", "lookback", "n_total", "exogenous")
    for name in (*shaped, "history", "window"):
        with pytest.raises(AttributeError, match="read-only"):
            vec.set_attr(name, getattr(vec, name))
    assert MarketVecEnv.metadata == MarketEnv.metadata


def test_frozen_sub_envs_keep_their_state() -> None:
    vec = MarketVecEnv(3, episode_length=4, autoreset=False)
    vec.reset(seed=0, options=None)
    actions = np.full((3, 11), 0.5, np.float32)
    for _ in range(3):
        vec.step(actions)
    vec._t = np.array([3, 1, 1])  # sub-env 0 ends on the next step, the others go on
    vec.step(actions)
    weights, equity = vec.weights.copy(), vec.equity.copy()
    result = vec.step(np.zeros((3, 11), np.float32))
    assert result.truncated[0] and result.rewards[0] == 0.0 and result.infos[0] == {}
    np.testing.assert_array_equal(vec.weights[0], weights[0])
    assert vec.equity[0] == equity[0] and vec.elapsed_steps[0] == 4


@pytest.mark.parametrize(
    "actions",
    [
        np.ones((2, 10), np.float32),
        np.full((2, 11), np.nan, np.float32),
        np.array([["a"] * 11] * 2),
        np.ones(11),
    ],
)
def test_invalid_actions(actions: Any) -> None:
    vec = MarketVecEnv(2, episode_length=5)
    vec.reset(seed=0)
    with pytest.raises(InvalidAction):
        vec.step(actions)


def test_a_model_without_a_paths_axis_is_refused() -> None:
    class OnePath(MarketModel):
        @property
        def n_assets(self) -> int:
            return 2

        @property
        def dt(self) -> float:
            return 0.01

        def simulate(self, rng: Any, n_steps: int, *, n_paths: int | None = None) -> Any:
            return Simulation(np.full((n_steps + 1, 2), 100.0))

    vec = MarketVecEnv(2, model=OnePath(), episode_length=5)
    with pytest.raises(ValueError, match="n_paths"):
        vec.reset(seed=0)

"""Market's discrete action mode (MarketDiscrete-v0): the weights each action leads to, the
action masks, and the native version agreeing with the single env number for number."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sekai
from sekai.envs.finance.market import MarketEnv, MarketVecEnv, default_market
from sekai.envs.finance.market.trades import MIN_TRADE, trade_mask, trade_targets
from sekai.error import InvalidAction
from sekai.finance import AccountConfig, MarketData, ProportionalCost, SquareRootImpact
from sekai.spaces import Box, Discrete
from sekai.testing import check_native_matches, check_vector_backends
from sekai.utils.checker import check_env

NAN = np.nan

# Three assets, lookback 1, episode 5 (decision rows 1..5): A delists after row 4, B lists at
# row 2, C is flat.
PRICES = np.array(
    [
        [100.0, NAN, 10.0],
        [100.0, NAN, 10.0],
        [110.0, 50.0, 10.0],
        [121.0, 55.0, 10.0],
        [121.0, 44.0, 10.0],
        [NAN, 44.0, 10.0],
        [NAN, 48.4, 10.0],
    ]
)
HOLD, BUY_A, BUY_B, BUY_C, SELL_A, SELL_B, SELL_C = range(7)


def _env(**kwargs: Any) -> MarketEnv:
    data = MarketData(PRICES, assets=["A", "B", "C"])
    options: dict[str, Any] = {
        "lookback": 1,
        "episode_length": 5,
        "sampler": 0,
        "action_mode": "discrete",
        "transaction_cost": 0.0,
    }
    return MarketEnv(data, **{**options, **kwargs})


def _targets(env: MarketEnv, weights: list[float]) -> tuple[list[list[float]], list[int]]:
    """The target weights of every action from ``weights``, and the action mask there."""
    env.weights = np.array(weights)
    targets = [env.target_weights(action).tolist() for action in range(env.action_space.n)]
    return targets, env.action_mask().tolist()


# -- spaces and registration ----------------------------------------------------------------


def test_market_v0_keeps_its_box_and_market_discrete_v0_is_the_discrete_mode() -> None:
    market = sekai.make("Market-v0")
    assert market.action_space == Box(0.0, 1.0, (11,), np.float32)
    assert market.unwrapped.action_mode == "weights"
    assert sekai.spec("Market-v0").kwargs == {}
    discrete = sekai.make("MarketDiscrete-v0")
    assert discrete.action_space == Discrete(21)
    assert discrete.observation_space == market.observation_space
    base = discrete.unwrapped
    assert type(base) is MarketEnv
    assert base.action_mode == "discrete" and base.trade_size == 0.1
    spec = sekai.spec("MarketDiscrete-v0")
    assert spec.kwargs == {"action_mode": "discrete"}
    assert spec.max_episode_steps is None
    assert spec.vector_entry_point == "sekai.envs.finance.market:MarketVecEnv"
    assert sekai.make("MarketDiscrete-v0", allow_short=True).action_space == Discrete(21)
    assert sekai.make("MarketDiscrete-v0", max_assets=4).action_space == Discrete(9)
    vec = sekai.make_vec("MarketDiscrete-v0", 3)
    assert isinstance(vec, MarketVecEnv) and vec.action_space == Discrete(21)
    vec.close()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"action_mode": "trades"}, ValueError, "action_mode must be 'weights' or 'discrete'"),
        ({"action_mode": None}, TypeError, "action_mode must be 'weights' or 'discrete'"),
        ({"trade_size": 0.0}, ValueError, "trade_size must be finite and > 0"),
        ({"trade_size": -0.1}, ValueError, "trade_size must be finite and > 0"),
        ({"trade_size": NAN}, ValueError, "trade_size"),
        ({"trade_size": "0.1"}, TypeError, "trade_size must be a real number"),
        ({"trade_size": True}, TypeError, "trade_size must be a real number"),
    ],
)
def test_options_are_checked(kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        _env(**kwargs)


def test_check_env_passes_with_shorts_and_slots() -> None:
    env = MarketEnv(
        action_mode="discrete",
        max_assets=4,
        allow_short=True,
        max_leverage=2.0,
        trade_size=0.3,
        episode_length=60,
    )
    assert check_env(env, n_steps=150, check_determinism=True) == []


def test_action_mode_is_read_only() -> None:
    env = _env()
    with pytest.raises(AttributeError):
        env.action_mode = "weights"  # type: ignore[misc]
    vec = MarketVecEnv(2, episode_length=5, action_mode="discrete")
    with pytest.raises(AttributeError, match="read-only"):
        vec.set_attr("action_mode", "weights")
    vec.set_attr("trade_size", 0.5)
    assert vec.template.trade_size == 0.5 and vec.get_attr("trade_size") == [0.5, 0.5]


# -- actions and masks ------------------------------------------------------------------------


def test_each_action_moves_one_slot_by_the_trade_size_within_the_cash() -> None:
    env = _env(trade_size=0.25)
    env.reset()  # decision row 1: B is not listed yet
    np.testing.assert_array_equal(env.tradable, [True, False, True])
    targets, mask = _targets(env, [0.25, 0.0, 0.625])  # cash 0.125
    assert targets == [
        [0.25, 0.0, 0.625],  # hold
        [0.375, 0.0, 0.625],  # buy A: only the cash left
        [0.25, 0.0, 0.625],  # buy B: not listed, masked, holds
        [0.25, 0.0, 0.75],  # buy C: only the cash left
        [0.0, 0.0, 0.625],  # sell A: all of it
        [0.25, 0.0, 0.625],  # sell B: masked, holds
        [0.25, 0.0, 0.375],  # sell C: one step
    ]
    assert mask == [1, 1, 0, 1, 1, 0, 1]
    targets, mask = _targets(env, [0.0, 0.0, 0.0])  # all cash
    assert targets[BUY_A] == [0.25, 0.0, 0.0] and targets[BUY_C] == [0.0, 0.0, 0.25]
    assert targets[SELL_A] == targets[SELL_C] == [0.0, 0.0, 0.0]
    assert mask == [1, 1, 0, 1, 0, 0, 0]  # nothing to sell


def test_leverage_caps_buys_long_only() -> None:
    env = _env(trade_size=0.5, max_leverage=2.0)
    env.reset()
    targets, mask = _targets(env, [1.0, 0.0, 0.75])  # cash -0.75, gross 1.75
    assert targets[BUY_A] == [1.25, 0.0, 0.75] and targets[BUY_C] == [1.0, 0.0, 1.0]
    assert targets[SELL_A] == [0.5, 0.0, 0.75] and targets[SELL_C] == [1.0, 0.0, 0.25]
    assert mask == [1, 1, 0, 1, 1, 0, 1]
    targets, mask = _targets(env, [1.25, 0.0, 0.75])  # at the cap
    assert mask == [1, 0, 0, 0, 1, 0, 1]
    assert targets[BUY_A] == targets[HOLD] == [1.25, 0.0, 0.75]


def test_shorts_buy_and_sell_within_the_gross_exposure() -> None:
    env = _env(trade_size=0.5, allow_short=True, max_leverage=1.5)
    env.reset()
    targets, mask = _targets(env, [0.5, 0.0, -0.75])  # gross 1.25
    assert targets == [
        [0.5, 0.0, -0.75],
        [0.75, 0.0, -0.75],  # buy A up to the cap
        [0.5, 0.0, -0.75],
        [0.5, 0.0, -0.25],  # buy C covers part of the short
        [0.0, 0.0, -0.75],  # sell A: one step
        [0.5, 0.0, -0.75],
        [0.5, 0.0, -1.0],  # sell C: deeper short up to the cap
    ]
    assert mask == [1, 1, 0, 1, 1, 0, 1]


def test_over_the_cap_only_trades_towards_zero_are_allowed() -> None:
    env = _env(trade_size=0.5, allow_short=True, max_leverage=1.5)
    env.reset()
    targets, mask = _targets(env, [0.5, 0.0, -1.25])  # gross 1.75, as prices may drift
    assert mask == [1, 0, 0, 1, 1, 0, 0]
    assert targets[BUY_C] == [0.5, 0.0, -0.75] and targets[SELL_A] == [0.0, 0.0, -1.25]
    assert targets[BUY_A] == targets[SELL_C] == targets[HOLD]
    env = _env(trade_size=0.5, allow_short=True, max_leverage=1.0)
    env.reset()
    targets, mask = _targets(env, [-0.25, 0.0, -1.0])  # a short may be covered, not grown
    assert mask == [1, 1, 0, 1, 0, 0, 0]
    assert targets[BUY_A] == [0.0, 0.0, -1.0] and targets[BUY_C] == [-0.25, 0.0, -0.5]


def test_masks_over_an_episode_with_listings_and_a_delisting() -> None:
    env = _env(trade_size=0.5)
    result = env.reset()
    assert env.action_mask().tolist() == [1, 1, 0, 1, 0, 0, 0]  # B unlisted, nothing held
    np.testing.assert_array_equal(env.tradable, result.observation["assets"]["mask"])
    result = env.step(BUY_A)  # row 1 -> 2: A +10 %
    np.testing.assert_array_equal(result.info["weights"], [0.55 / 1.05, 0.0, 0.0])
    assert result.info["turnover"] == 0.5
    assert env.action_mask().tolist() == [1, 1, 1, 1, 1, 0, 0]  # B listed now
    result = env.step(BUY_C)  # the cash left, 0.5 / 1.05, goes into C
    assert result.info["turnover"] == pytest.approx(0.5 / 1.05, rel=1e-15)
    assert abs(result.info["weights"].sum() - 1.0) < MIN_TRADE
    assert env.action_mask().tolist() == [1, 0, 0, 0, 1, 0, 1]  # no cash to buy
    result = env.step(SELL_B)  # masked: holds
    assert result.info["turnover"] == 0.0
    weights = result.info["weights"]
    result = env.step(HOLD)  # row 4 -> 5: A delists, its value moves to cash
    assert result.info["weights"].tolist() == [0.0, 0.0, weights[2]]
    np.testing.assert_array_equal(env.tradable, [False, True, True])
    assert env.action_mask().tolist() == [1, 0, 1, 1, 0, 0, 1]
    result = env.step(SELL_A)  # the delisted slot cannot trade: holds
    assert result.info["turnover"] == 0.0 and result.truncated


def test_dynamic_slots_mask_by_the_slot_s_current_asset() -> None:
    env = _env(max_assets=2, trade_size=0.5)
    assert env.action_space == Discrete(5)
    env.reset()
    assert env.slot_assets == ("A", "C")
    assert env.action_mask().tolist() == [1, 1, 1, 0, 0]
    env.step(1)
    env.step(2)  # fully invested in A and C
    assert env.action_mask().tolist() == [1, 0, 0, 1, 1]
    env.step(0)
    env.step(0)  # A delists: its slot goes to B, with weight 0
    assert env.slot_assets == ("B", "C")
    assert env.weights[0] == 0.0
    assert env.action_mask().tolist() == [1, 1, 1, 0, 1]


@pytest.mark.parametrize(
    "action", [1.0, np.float32(1.0), True, -1, 7, np.array([1]), "1", None, np.array(2.0)]
)
def test_invalid_actions(action: Any) -> None:
    env = _env()
    env.reset()
    with pytest.raises(InvalidAction):
        env.step(action)


def test_integer_kinds_are_accepted() -> None:
    for action in (1, np.int64(1), np.int8(1), np.uint16(1), np.array(1)):
        env = _env()
        env.reset()
        assert env.step(action).info["turnover"] == 0.1


def test_functions_work_on_batches() -> None:
    config = AccountConfig()
    weights = np.array([[0.25, 0.5], [0.0, 0.0], [0.5, 0.5]])
    tradable = np.array([[True, True], [True, False], [True, True]])
    np.testing.assert_array_equal(
        trade_mask(weights, tradable, config), [[1, 1, 1, 1, 1], [1, 1, 0, 0, 0], [1, 0, 0, 1, 1]]
    )
    targets = trade_targets(np.array([1, 2, 4]), weights, tradable, config, 0.125)
    np.testing.assert_array_equal(targets, [[0.375, 0.5], [0.0, 0.0], [0.5, 0.375]])


# -- the native version -------------------------------------------------------------------------


def _universe(rows: int = 90, assets: int = 6, seed: int = 0) -> MarketData:
    """Prices whose assets list late and delist early (NaN outside), with volume and spread."""
    rng = np.random.default_rng(seed)
    prices = 50.0 * np.exp(np.cumsum(rng.normal(0.0, 0.02, (rows, assets)), axis=0))
    for j in range(assets):
        first = int(rng.integers(0, rows // 3)) if j % 2 else 0
        last = int(rng.integers(2 * rows // 3, rows)) if j % 3 == 1 else rows
        prices[:first, j] = NAN
        prices[last:, j] = NAN
    volume = rng.uniform(1e3, 1e4, (rows, assets))
    return MarketData(prices, fields={"volume": volume}, assets=[f"A{j}" for j in range(assets)])


CASES = {
    "fixed slots": {},
    "dynamic slots": {"max_assets": 3},
    "shorts, leverage and financing": {
        "allow_short": True,
        "max_leverage": 2.0,
        "cash_rate": 0.02,
        "margin_rate": 0.05,
        "borrow_rate": 0.04,
        "delisting_return": -0.5,
        "trade_size": 0.4,
    },
    "costs with context": {
        "transaction_cost": SquareRootImpact(0.5) + ProportionalCost(1e-3),
        "trade_size": 0.3,
    },
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_native_equals_the_single_env_on_fixed_data(case: str) -> None:
    kwargs = {
        "data": _universe(),
        "lookback": 4,
        "episode_length": 9,
        "sampler": "sequential",
        "action_mode": "discrete",
        **CASES[case],
    }
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
    [{}, {"allow_short": True, "max_leverage": 1.5}, {"model": default_market(7), "max_assets": 3}],
    ids=["default", "shorts", "slots"],
)
def test_one_sub_env_replays_the_single_env_on_a_simulated_market(kwargs: dict[str, Any]) -> None:
    options = {"episode_length": 25, "action_mode": "discrete", **kwargs}
    problems = check_native_matches(
        lambda: MarketEnv(**options),
        lambda **vector: MarketVecEnv(**options, **vector),
        num_envs=1,
        steps=120,
        seed=4,
    )
    assert problems == []


@pytest.mark.parametrize("kwargs", [{}, {"max_assets": 3, "allow_short": True}])
def test_native_masks_and_targets_follow_the_single_envs_under_masked_play(
    kwargs: dict[str, Any],
) -> None:
    """Allowed actions only, drawn from the masks, so that buys and sells both happen often."""
    options = {
        "data": _universe(),
        "lookback": 4,
        "episode_length": 40,
        "action_mode": "discrete",
        "trade_size": 0.3,
        **kwargs,
    }
    starts = [4, 17, 30, 43]
    vec = MarketVecEnv(4, **options)
    vec.reset(options=[{"start": s} for s in starts])
    singles = [MarketEnv(**options) for _ in starts]
    for env, start in zip(singles, starts, strict=True):
        env.reset(options={"start": start})
    rng = np.random.default_rng(7)
    traded = 0
    for _ in range(39):  # the episode goes on (the native env would autoreset at its end)
        masks = vec.action_mask()
        np.testing.assert_array_equal(masks, [env.action_mask() for env in singles])
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        targets = vec.target_weights(actions)
        np.testing.assert_array_equal(
            targets, [env.target_weights(a) for env, a in zip(singles, actions, strict=True)]
        )
        result = vec.step(actions)
        for i, (env, action) in enumerate(zip(singles, actions, strict=True)):
            single = env.step(action)
            assert result.rewards[i] == single.reward
            np.testing.assert_array_equal(vec.weights[i], env.weights)
        traded += sum(info["turnover"] > 0 for info in result.infos)
    assert traded > 100  # most allowed actions trade (156 steps in all)


def test_native_conformance_and_masks_through_call() -> None:
    vec = sekai.make_vec("MarketDiscrete-v0", 3, model=default_market(5), episode_length=6)
    vec.reset(seed=0)
    masks = vec.action_mask()
    assert masks.shape == (3, 11) and masks.dtype == np.int8
    assert [row.tolist() for row in vec.call("action_mask")] == masks.tolist()
    vec.close()
    problems = check_vector_backends(
        "MarketDiscrete-v0",
        backends=("sync", "native"),
        env_kwargs={"episode_length": 5, "model": default_market(5), "max_assets": 3},
        num_envs=3,
        n_steps=20,
    )
    assert problems == []


@pytest.mark.parametrize(
    "actions",
    [
        np.array([1.0, 2.0]),
        np.array([1, 21]),
        np.array([-1, 0]),
        np.array([True, False]),
        np.array([1, 2, 3]),
        np.array([[1], [2]]),
    ],
)
def test_native_invalid_actions(actions: Any) -> None:
    vec = MarketVecEnv(2, episode_length=5, action_mode="discrete")
    vec.reset(seed=0)
    with pytest.raises(InvalidAction):
        vec.step(actions)

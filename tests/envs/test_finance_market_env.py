"""MarketEnv: padded-set observations, slots over a changing universe, exact accounting."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from sekai.envs.finance._checks import EPISODE_ENDED
from sekai.envs.finance.market import default_market
from sekai.envs.finance.market_env import MarketEnv
from sekai.error import InvalidAction, ResetRequired
from sekai.finance import (
    GBM,
    CostModel,
    DifferentialSharpe,
    DrawdownPenalty,
    Heston,
    ListingProcess,
    LogReturn,
    MarketData,
    MarketModel,
    ProportionalCost,
    RandomStart,
    RegimeSwitching,
    SimpleReturn,
    Simulation,
    SpreadCost,
    SquareRootImpact,
    Time,
)
from sekai.spaces import Box, Dict, MaskedBox
from sekai.utils.checker import check_env

NAN = np.nan
INFO_KEYS = [
    "equity",
    "turnover",
    "cost",
    "financing",
    "gross_exposure",
    "n_assets",
    "weights",
    "timestamp",
    "dt",
]

# Three assets, lookback 2, episode 4: A delists after row 4, B lists at row 2, C is flat.
FIXED = np.array(
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

# Four assets for two slots, lookback 1, episode 5 (decision rows 1..5).
LISTED = np.array(
    [
        # A  B  C  D
        [1, 1, 0, 0],
        [1, 1, 0, 1],
        [1, 1, 1, 1],
        [0, 1, 1, 1],
        [0, 1, 1, 1],
        [0, 0, 1, 1],
        [0, 0, 0, 1],
    ],
    dtype=bool,
)
LEVELS = np.array([10.0, 20.0, 30.0, 40.0]) * np.exp(
    np.cumsum(np.random.default_rng(3).normal(0.0, 0.02, (7, 4)), axis=0)
)
DYNAMIC = np.where(LISTED, LEVELS, NAN)


def _fixed_env(**kwargs: Any) -> MarketEnv:
    data = MarketData(FIXED, assets=["A", "B", "C"])
    options: dict[str, Any] = {"lookback": 2, "episode_length": 4, "sampler": 0}
    return MarketEnv(data, **{**options, **kwargs})


def _dynamic_env(**kwargs: Any) -> MarketEnv:
    data = MarketData(DYNAMIC, assets=["A", "B", "C", "D"])
    options: dict[str, Any] = {"lookback": 1, "episode_length": 5, "max_assets": 2}
    return MarketEnv(data, **{**options, **kwargs})


class Recorder(CostModel):
    """Free trading that records what it was asked to price."""

    requires = frozenset({"equity", "volatility", "volume", "spread"})

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, trades: Any, **context: Any) -> float:
        self.calls.append({"trades": np.array(trades), **context})
        return 0.0


# -- defaults ------------------------------------------------------------------------------


def test_default_spaces_attributes_and_reset_info() -> None:
    env = MarketEnv()
    assert env.metadata == {"render_fps": 10}
    assert env.n_total == env.max_assets == 10 and env.data is None
    assert env.features == () and env.exogenous == () and not env.privileged_state
    assert env.lookback == 20 and env.episode_length == 252 and env.dt == 1 / 252
    assert isinstance(env.model, ListingProcess) and env.capital == 1_000_000.0
    assert env.delisting_return == 0.0 and env.config.max_leverage == 1.0
    assert not env.config.allow_short and env.transaction_cost == 1e-3
    assert isinstance(env.cost_model, ProportionalCost)
    assert isinstance(env.sampler, RandomStart) and isinstance(env.reward_fn, LogReturn)
    space = env.observation_space
    assert isinstance(space, Dict) and list(space.spaces) == ["assets", "portfolio", "account"]
    assets = space["assets"]
    assert assets == MaskedBox(-np.inf, np.inf, shape=(20, 2), max_size=10, dtype=np.float32)
    assert space["portfolio"] == Box(-np.inf, np.inf, shape=(11,), dtype=np.float32)
    assert space["account"] == Box(-np.inf, np.inf, shape=(2,), dtype=np.float32)
    assert env.action_space == Box(0.0, 1.0, shape=(11,), dtype=np.float32)
    reset = env.reset(seed=0)
    obs = reset.observation
    assert obs["assets"]["values"].shape == (10, 20, 2)
    assert obs["assets"]["values"].dtype == np.float32
    assert obs["assets"]["mask"].shape == (10,) and obs["assets"]["mask"].dtype == np.int8
    assert obs["portfolio"].shape == (11,) and obs["account"].shape == (2,)
    assert space.contains(obs)
    assert list(reset.info) == INFO_KEYS
    info = reset.info
    assert info["equity"] == 1.0 and info["timestamp"] == 0 and info["dt"] == 1 / 252
    assert info["turnover"] == info["cost"] == info["financing"] == info["gross_exposure"] == 0
    np.testing.assert_array_equal(info["weights"], np.zeros(10))
    assert info["n_assets"] == obs["assets"]["mask"].sum() >= 2
    np.testing.assert_array_equal(obs["portfolio"], [0] * 10 + [1])
    np.testing.assert_array_equal(obs["account"], [0.0, 0.0])
    assert env.slot_assets == tuple(range(10))
    assert env._path.shape == (273, 10) and env.price_history.shape == (21, 10)
    assert set(env.latent_state) == {"regime"}
    np.testing.assert_array_equal(env.action_mask()[:-1], obs["assets"]["mask"])
    assert env.action_mask()[-1] == 1 and env.action_mask().dtype == np.int8


def test_check_env_passes_by_default() -> None:
    assert check_env(MarketEnv(), n_steps=400, check_determinism=True) == []


def test_check_env_passes_with_shorts_slots_and_state() -> None:
    env = MarketEnv(
        max_assets=4,
        allow_short=True,
        max_leverage=2.0,
        exogenous=("regime",),
        privileged_state=True,
        episode_length=60,
    )
    assert check_env(env, n_steps=150, check_determinism=True) == []


def test_check_env_passes_on_data_with_listings() -> None:
    rng = np.random.default_rng(0)
    prices = 100 * np.exp(np.cumsum(rng.normal(0.0, 0.01, (200, 6)), axis=0))
    prices[:40, 2] = NAN
    prices[120:, 4] = NAN
    data = MarketData(prices, fields={"volume": np.full((200, 6), 1e6)})
    env = MarketEnv(data, max_assets=4, features=("volume",), episode_length=50)
    assert check_env(env, n_steps=120, check_determinism=True) == []


def test_default_market_structure() -> None:
    model = default_market()
    assert isinstance(model, ListingProcess) and model.n_assets == 10
    assert model.initial_listed == 0.7 and model.listing_rate == 1.0
    assert model.delisting_rate == 0.3 and model.min_listed == 2
    inner = model.model
    assert isinstance(inner, RegimeSwitching) and model.dt == inner.dt == 1 / 252
    np.testing.assert_array_equal(
        inner.transition, [[1 - 1 / 504, 1 / 504], [1 / 126, 1 - 1 / 126]]
    )
    calm, stress = inner.regimes
    assert isinstance(calm, GBM) and isinstance(stress, GBM)
    np.testing.assert_array_equal(calm.mu, np.full(10, 0.08))
    np.testing.assert_array_equal(calm.sigma, np.full(10, 0.15))
    np.testing.assert_array_equal(stress.mu, np.full(10, -0.2))
    np.testing.assert_array_equal(stress.sigma, np.full(10, 0.4))
    off = ~np.eye(10, dtype=bool)
    assert calm.corr is not None and stress.corr is not None
    np.testing.assert_array_equal(np.diag(calm.corr), 1.0)
    np.testing.assert_array_equal(calm.corr[off], 0.2)
    np.testing.assert_array_equal(np.diag(stress.corr), 1.0)
    np.testing.assert_array_equal(stress.corr[off], 0.7)
    np.testing.assert_array_equal(calm.s0, np.full(10, 100.0))
    assert default_market(3).n_assets == 3
    with pytest.raises(ValueError, match="n_assets"):
        default_market(1)
    small = MarketEnv(model=default_market(4), lookback=5)
    assert small.observation_space["assets"]["values"].shape == (4, 5, 2)


# -- exact accounting with listings ---------------------------------------------------------


def test_fixed_slots_listing_delisting_and_exact_equity() -> None:
    env = _fixed_env(transaction_cost=0.01, delisting_return=-0.5)
    assert env.slot_assets == ("A", "B", "C")
    first = env.reset()
    values, mask = first.observation["assets"]["values"], first.observation["assets"]["mask"]
    np.testing.assert_array_equal(mask, [1, 1, 1])
    np.testing.assert_allclose(values[0], [[0.0, 1.0], [math.log(1.1), 1.0]], rtol=1e-6)
    np.testing.assert_array_equal(values[1], np.zeros((2, 2)))  # no return before listing
    np.testing.assert_array_equal(values[2], [[0.0, 1.0], [0.0, 1.0]])
    assert first.info["timestamp"] == 2 and first.info["n_assets"] == 3

    growths, rewards = [], []
    p = FIXED
    # step 1 (row 2 -> 3): 0.5 A, 0.25 B, 0.25 cash
    step = env.step(np.array([0.5, 0.25, 0.0, 0.25], dtype=np.float32))
    r_a, r_b = p[3, 0] / p[2, 0] - 1, p[3, 1] / p[2, 1] - 1
    cost = 0.01 * 0.75
    gross = 1 + 0.5 * r_a + 0.25 * r_b
    growths.append((1 - cost) * gross)
    drifted = np.array([0.5 * (1 + r_a), 0.25 * (1 + r_b), 0.0]) / gross
    np.testing.assert_allclose(step.info["weights"], drifted, rtol=1e-14)
    assert step.info["cost"] == pytest.approx(cost, rel=1e-14)
    assert step.info["turnover"] == pytest.approx(0.75, rel=1e-14)
    assert step.info["financing"] == 0.0 and step.info["timestamp"] == 3
    rewards.append(step.reward)
    np.testing.assert_allclose(
        step.observation["assets"]["values"][1], [[0.0, 0.0], [math.log(1.1), 1.0]], rtol=1e-6
    )
    np.testing.assert_allclose(
        step.observation["portfolio"], [*drifted, 1 - drifted.sum()], rtol=1e-6
    )

    # step 2 (row 3 -> 4): half A, half B
    step = env.step(np.array([0.5, 0.5, 0.0, 0.0]))
    turnover = abs(0.5 - drifted[0]) + abs(0.5 - drifted[1])
    cost = 0.01 * turnover
    r_b = p[4, 1] / p[3, 1] - 1
    gross = 1 + 0.5 * r_b
    growths.append((1 - cost) * gross)
    assert step.info["turnover"] == pytest.approx(turnover, rel=1e-12)
    rewards.append(step.reward)

    # step 3 (row 4 -> 5): A delists with -50 %, its value goes to cash
    step = env.step(np.array([0.75, 0.0, 0.25, 0.0]))
    gross = 1 + 0.75 * -0.5
    weights = np.array([0.5, 0.5 * (1 + r_b), 0.0]) / (1 + 0.5 * r_b)
    cost = 0.01 * (abs(0.75 - weights[0]) + abs(weights[1]) + 0.25)
    growths.append((1 - cost) * gross)
    np.testing.assert_allclose(step.info["weights"], [0.0, 0.0, 0.25 / gross], rtol=1e-14)
    np.testing.assert_allclose(step.observation["portfolio"][-1], 1 - 0.25 / gross, rtol=1e-6)
    assert step.info["n_assets"] == 2 and step.info["gross_exposure"] == pytest.approx(0.4)
    np.testing.assert_array_equal(step.observation["assets"]["mask"], [0, 1, 1])
    np.testing.assert_array_equal(step.observation["assets"]["values"][0], np.zeros((2, 2)))
    np.testing.assert_array_equal(env.action_mask(), [0, 1, 1, 1])
    rewards.append(step.reward)

    # step 4 (row 5 -> 6): the score on untradable A is ignored
    np.testing.assert_array_equal(env.target_weights(np.array([1.0, 1.0, 0.0, 0.0])), [0, 1, 0])
    step = env.step(np.array([1.0, 1.0, 0.0, 0.0]))
    cost = 0.01 * (1.0 + 0.4)
    growths.append((1 - cost) * (1 + (p[6, 1] / p[5, 1] - 1)))
    rewards.append(step.reward)
    assert step.truncated and not step.terminated and step.info["timestamp"] == 6

    expected = 1.0
    for growth in growths:
        expected *= growth
    assert env.equity == pytest.approx(expected, rel=1e-13)
    assert step.info["equity"] == env.equity
    np.testing.assert_allclose(rewards, np.log(growths), rtol=1e-12)
    np.testing.assert_allclose(step.observation["account"][0], math.log(expected), rtol=1e-6)
    assert env.elapsed_steps == 4
    with pytest.raises(ResetRequired, match="ended"):
        env.step(np.array([0.0, 0.0, 0.0, 1.0]))


def test_extra_slots_stay_empty() -> None:
    env = _fixed_env(max_assets=5)
    assert env.slot_assets == ("A", "B", "C", None, None)
    obs = env.reset().observation
    np.testing.assert_array_equal(obs["assets"]["mask"], [1, 1, 1, 0, 0])
    np.testing.assert_array_equal(obs["assets"]["values"][3:], 0.0)
    assert env.action_space.shape == (6,)
    np.testing.assert_array_equal(env.action_mask(), [1, 1, 1, 0, 0, 1])


def test_dynamic_slots_follow_slot_map_and_reset_weights() -> None:
    costs = ProportionalCost([0.01, 0.02, 0.03, 0.04])
    env = _dynamic_env(transaction_cost=costs, delisting_return=0.0)
    assert env.n_total == 4 and env.max_assets == 2 and env.slot_assets == (None, None)
    obs = env.reset(seed=0, options={"start": 1}).observation
    assert env.slot_assets == ("A", "B")  # D is listed too, but columns come first
    np.testing.assert_array_equal(obs["assets"]["mask"], [1, 1])
    env.step(np.array([0.5, 0.5, 0.0]))  # row 1 -> 2
    assert env.slot_assets == ("A", "B")  # C lists, no free slot
    step = env.step(np.array([0.5, 0.5, 0.0]))  # row 2 -> 3: A delists
    assert env.slot_assets == ("C", "B")  # B keeps its slot, C (before D) takes A's
    r_b = DYNAMIC[3, 1] / DYNAMIC[2, 1] - 1
    np.testing.assert_allclose(
        step.info["weights"], [0.0, 0.5 * (1 + r_b) / (1 + 0.5 * r_b)], rtol=1e-14
    )
    values = step.observation["assets"]["values"]
    c_return = math.log(DYNAMIC[3, 2] / DYNAMIC[2, 2])
    np.testing.assert_allclose(values[0], [[c_return, 1.0]], rtol=1e-6)
    held_b = step.info["weights"][1]
    step = env.step(np.array([0.5, 0.5, 0.0]))  # row 3 -> 4: buy C in slot 0
    expected_cost = 0.03 * 0.5 + 0.02 * abs(0.5 - held_b)
    assert step.info["cost"] == pytest.approx(expected_cost, rel=1e-12)
    step = env.step(np.array([0.5, 0.5, 0.0]))  # row 4 -> 5: B delists
    assert env.slot_assets == ("C", "D") and step.info["weights"][1] == 0.0
    step = env.step(np.array([1.0, 0.0, 0.0]))  # row 5 -> 6: C delists, last step
    assert step.truncated
    assert env.slot_assets == ("C", "D")  # no reassignment once the episode is over
    np.testing.assert_array_equal(step.observation["assets"]["mask"], [0, 1])
    assert step.info["n_assets"] == 1
    np.testing.assert_array_equal(step.info["weights"], [0.0, 0.0])


def test_dynamic_slots_start_from_an_empty_map_every_reset() -> None:
    env = _dynamic_env(episode_length=3)
    env.reset(options={"start": 3})
    assert env.slot_assets == ("B", "C")
    env.reset(options={"start": 1})
    assert env.slot_assets == ("A", "B")


def test_cost_is_priced_in_asset_space_with_its_context() -> None:
    prices = np.array(
        [
            [100.0, NAN],
            [101.0, NAN],
            [103.0, 50.0],
            [102.0, 51.0],
            [104.0, 52.0],
            [105.0, 53.0],
        ]
    )
    volume = np.arange(12.0).reshape(6, 2) + 1
    spread = np.full((6, 2), 0.002)
    spread[3, 1] = NAN
    data = MarketData(prices, fields={"volume": volume, "spread": spread}, assets=["X", "Y"])
    recorder = Recorder()
    env = MarketEnv(
        data, lookback=3, episode_length=2, transaction_cost=recorder, max_assets=1, capital=2e6
    )
    assert env.cost_model is recorder
    env.reset()
    assert env.slot_assets == ("X",)
    env.step(np.array([0.5, 0.5]))
    call = recorder.calls[0]
    np.testing.assert_array_equal(call["trades"], [0.5, 0.0])
    assert call["equity"] == 2e6
    logs = np.log(prices[1:4, 0] / prices[0:3, 0])
    np.testing.assert_allclose(call["volatility"][0], np.std(logs), rtol=1e-12)
    assert math.isnan(call["volatility"][1])  # only one return of Y so far
    np.testing.assert_array_equal(call["volume"], volume[3] * prices[3])
    np.testing.assert_array_equal(call["spread"], spread[3])
    equity, held = env.equity, env.weights[0]
    env.step(np.array([0.0, 1.0]))
    call = recorder.calls[1]
    assert call["equity"] == 2e6 * equity
    np.testing.assert_array_equal(call["trades"], [-held, 0.0])
    y = np.log(prices[3:5, 1] / prices[2:4, 1])
    np.testing.assert_allclose(call["volatility"][1], abs(y[0] - y[1]) / 2, rtol=1e-12)


def test_cost_inputs_are_checked_at_construction() -> None:
    data = MarketData(FIXED)
    with pytest.raises(ValueError, match="spread"):
        MarketEnv(data, lookback=2, episode_length=4, transaction_cost=SpreadCost())
    with pytest.raises(ValueError, match="volume"):
        MarketEnv(transaction_cost=SquareRootImpact())
    with_volume = MarketData(FIXED, fields={"volume": np.ones(FIXED.shape)})
    impact = SquareRootImpact()
    with pytest.raises(ValueError, match="lookback"):
        MarketEnv(with_volume, lookback=1, episode_length=4, transaction_cost=impact)
    assert MarketEnv(with_volume, lookback=2, episode_length=4, transaction_cost=impact)


def test_financing_with_shorts_and_leverage() -> None:
    env = _fixed_env(
        allow_short=True,
        max_leverage=2.0,
        cash_rate=0.05,
        margin_rate=0.1,
        borrow_rate=0.02,
        dt=0.1,
        transaction_cost=0.0,
    )
    assert env.action_space == Box(-1.0, 1.0, shape=(3,), dtype=np.float32)
    assert env.config.margin_rate == 0.1 and env.config.effective_margin_rate == 0.1
    env.reset()
    assert env.action_mask().shape == (3,)
    np.testing.assert_array_equal(env.target_weights(np.array([3.0, -3.0, 0.0])), [1, -1, 0])
    step = env.step(np.array([1.0, -0.5, 0.0]))  # cash 0.5 earns 5 %, the short pays 2 %
    financing = 0.5 * 0.05 * 0.1 - 0.02 * 0.1 * 0.5
    assert step.info["financing"] == pytest.approx(financing, rel=1e-12)
    r_a, r_b = FIXED[3, 0] / FIXED[2, 0] - 1, FIXED[3, 1] / FIXED[2, 1] - 1
    assert env.equity == pytest.approx(1 + r_a - 0.5 * r_b + financing, rel=1e-12)
    step = env.step(np.array([1.0, 1.0, 0.0]))  # cash -1 pays the margin rate
    assert step.info["financing"] == pytest.approx(-1.0 * 0.1 * 0.1, rel=1e-12)
    assert step.info["gross_exposure"] > 1.5


def test_long_only_leverage_borrows_cash() -> None:
    env = _fixed_env(max_leverage=2.0, transaction_cost=0.0, cash_rate=0.03, dt=0.5)
    env.reset()
    np.testing.assert_array_equal(env.target_weights([1.0, 0.0, 1.0, 0.0]), [1.0, 0.0, 1.0])
    step = env.step(np.array([1.0, 0.0, 1.0, 0.0]))
    assert step.info["financing"] == pytest.approx(-1.0 * 0.03 * 0.5, rel=1e-12)
    np.testing.assert_array_equal(env.target_weights([0.0, 0.0, 0.0, 0.0]), [0.0, 0.0, 0.0])


def test_wipe_out_terminates() -> None:
    env = _fixed_env(delisting_return=-1.0, transaction_cost=0.0)
    env.reset()
    env.step(np.array([1.0, 0.0, 0.0, 0.0]))
    env.step(np.array([1.0, 0.0, 0.0, 0.0]))
    step = env.step(np.array([1.0, 0.0, 0.0, 0.0]))  # A delists worthless
    assert step.terminated and not step.truncated
    assert env.equity == 0.0 and step.reward == pytest.approx(math.log(1e-12))
    np.testing.assert_array_equal(step.info["weights"], 0.0)
    assert step.observation["account"][0] == np.float32(math.log(1e-12))
    with pytest.raises(ResetRequired) as excinfo:
        env.step(np.array([0.0, 0.0, 0.0, 1.0]))
    assert str(excinfo.value) == EPISODE_ENDED


# -- features, exogenous series, timestamps -------------------------------------------------


def test_feature_and_exogenous_channels_from_dated_data() -> None:
    stamps = np.arange("2024-01-01", "2024-01-09", dtype="datetime64[D]")
    prices = np.linspace(100.0, 107.0, 16).reshape(8, 2)
    prices[:3, 1] = NAN
    volume = np.arange(16.0).reshape(8, 2)
    volume[4, 0] = NAN
    rate = np.linspace(0.01, 0.08, 8)
    rate[5] = NAN
    fx = np.arange(16.0).reshape(8, 2) / 10
    data = MarketData(
        prices,
        fields={"volume": volume},
        timestamps=stamps,
        exogenous={"rate": rate, "fx": fx},
    )
    env = MarketEnv(
        data, features=("volume",), exogenous=("rate", "fx"), lookback=3, episode_length=3
    )
    space = env.observation_space
    assert list(space.spaces) == ["assets", "portfolio", "account", "market"]
    assert space["assets"]["values"].shape == (2, 3, 3)
    assert space["market"] == Box(-np.inf, np.inf, shape=(3, 3), dtype=np.float32)
    assert env.dt == pytest.approx(1 / data.periods_per_year)
    reset = env.reset(options={"start": "2024-01-05"})  # decision row 4
    assert reset.info["timestamp"] == stamps[4]
    obs = reset.observation
    np.testing.assert_array_equal(obs["assets"]["values"][0, :, 2], [4.0, 6.0, 0.0])
    np.testing.assert_array_equal(obs["assets"]["values"][1, :, 1], [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(obs["assets"]["values"][1, :, 2], [5.0, 7.0, 9.0])
    expected = np.column_stack([rate, fx])[2:5]
    np.testing.assert_allclose(obs["market"], expected, rtol=1e-6)
    step = env.step(np.array([0.0, 0.0, 1.0]))
    assert step.info["timestamp"] == stamps[5]
    np.testing.assert_allclose(step.observation["market"][:, 0], [rate[3], rate[4], 0.0])
    assert env.latent_state == {}


def test_simulation_state_as_exogenous_and_privileged_info() -> None:
    model = default_market(3)
    env = MarketEnv(
        model=model, exogenous=("regime",), privileged_state=True, lookback=4, episode_length=6
    )
    assert env.observation_space["market"].shape == (4, 1)
    reset = env.reset(seed=11)
    simulation = model.simulate(np.random.default_rng(11), 10)
    assert simulation.mask is not None
    np.testing.assert_array_equal(env._path, np.where(simulation.mask, simulation.prices, NAN))
    regime = simulation.state["regime"]
    assert env.latent_state == {"regime": regime[4]}
    assert reset.info["state"] == {"regime": regime[4]}
    np.testing.assert_array_equal(reset.observation["market"][:, 0], regime[1:5])
    np.testing.assert_array_equal(reset.observation["assets"]["mask"], simulation.mask[4])
    step = env.step(np.array([1.0, 1.0, 1.0, 1.0]))
    assert step.info["timestamp"] == 1 and step.info["state"] == {"regime": regime[5]}
    assert list(step.info) == [*INFO_KEYS, "state"]


def test_vector_state_width_and_explicit_mask() -> None:
    env = MarketEnv(model=Heston(n_assets=2), exogenous=("variance",), lookback=3)
    assert env.observation_space["market"].shape == (3, 2)
    env.reset(seed=0)
    assert env.latent_state["variance"].shape == (2,)

    class HalfListed(MarketModel):
        @property
        def n_assets(self) -> int:
            return 2

        @property
        def dt(self) -> float:
            return 0.01

        def simulate(
            self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
        ) -> Simulation:
            prices = np.full((n_steps + 1, 2), 100.0)
            mask = np.ones_like(prices, dtype=bool)
            mask[:, 1] = False
            return Simulation(prices, mask=mask)

    env = MarketEnv(model=HalfListed(), lookback=2, episode_length=3)
    assert env.dt == 0.01
    obs = env.reset().observation
    np.testing.assert_array_equal(obs["assets"]["mask"], [1, 0])
    assert math.isnan(env._path[0, 1])


def test_simulated_timestamps_are_step_indices() -> None:
    env = MarketEnv(model=default_market(2), lookback=2, episode_length=3)
    assert env.reset(seed=1).info["timestamp"] == 0 and env.timestamp == 0
    env.step(env.action_space.sample())
    assert env.timestamp == 1


# -- starts, samplers, determinism ----------------------------------------------------------


def test_start_option_and_samplers() -> None:
    prices = np.linspace(100.0, 111.0, 24).reshape(12, 2)
    env = MarketEnv(MarketData(prices, timestamps=np.arange(12) * 10), lookback=2, episode_length=3)
    assert env.reset(options={"start": 4}).info["timestamp"] == 40
    assert env.reset(options={"start": Time(50)}).info["timestamp"] == 50
    with pytest.raises(ValueError):
        env.reset(options={"start": 1})
    sequential = MarketEnv(MarketData(prices), lookback=2, episode_length=3, sampler="sequential")
    stamps = [sequential.reset().info["timestamp"] for _ in range(3)]
    assert stamps == [2, 5, 8]
    with pytest.raises(ValueError, match="start"):
        MarketEnv().reset(options={"start": 25})


def test_determinism_under_seeds() -> None:
    def rollout(seed: int) -> list[Any]:
        env = MarketEnv(max_assets=6, episode_length=40)
        env.action_space.seed(5)
        out: list[Any] = [env.reset(seed=seed).observation]
        for _ in range(40):
            step = env.step(env.action_space.sample(mask=env.action_mask()))
            out.append((step.observation, step.reward, env.slot_assets))
        return out

    first, second, other = rollout(3), rollout(3), rollout(4)
    assert _same(first, second)
    assert not _same(first, other)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(a == b)


# -- rewards, properties, errors ------------------------------------------------------------


def test_reward_function_is_deep_copied_and_reset() -> None:
    reward = DifferentialSharpe()
    env = _fixed_env(reward=reward)
    assert env.reward_fn is not reward and isinstance(env.reward_fn, DifferentialSharpe)
    env.reset()
    env.step(np.array([1.0, 0.0, 0.0, 0.0]))
    assert env.reward_fn._state["A"] is not None and reward._state["A"] is None
    env.reset()
    assert env.reward_fn._state["A"] is None
    other = DrawdownPenalty()
    env.reward_fn = other
    assert env.reward_fn is not other and isinstance(env.reward_fn, DrawdownPenalty)
    env = _fixed_env(reward=SimpleReturn(), transaction_cost=0.0)
    env.reset()
    step = env.step(np.array([1.0, 0.0, 0.0, 0.0]))
    assert step.reward == pytest.approx(FIXED[3, 0] / FIXED[2, 0] - 1, rel=1e-14)


def test_read_only_properties() -> None:
    env = MarketEnv(model=default_market(2), lookback=3, episode_length=5)
    with pytest.raises(AttributeError):
        env.episode_length = 10  # type: ignore[misc]
    with pytest.raises(AttributeError):
        env.lookback = 10  # type: ignore[misc]
    assert env.episode_length == 5 and env.lookback == 3


def test_reset_required_before_the_first_reset() -> None:
    env = MarketEnv(model=default_market(2), lookback=2, episode_length=2)
    with pytest.raises(ResetRequired) as excinfo:
        env.step(np.zeros(3))
    assert str(excinfo.value) != EPISODE_ENDED
    for name in ("latent_state", "timestamp", "price_history"):
        with pytest.raises(ResetRequired):
            getattr(env, name)
    np.testing.assert_array_equal(env.action_mask(), [0, 0, 1])
    env.reset(seed=0)
    env.step(np.zeros(3))
    assert env.step(np.zeros(3)).truncated
    with pytest.raises(ResetRequired, match="ended"):
        env.step(np.zeros(3))
    env.reset()
    assert env.elapsed_steps == 0 and env.equity == 1.0


@pytest.mark.parametrize(
    "action", [np.zeros(3), np.zeros((2, 2)), np.array([NAN, 0, 0, 1]), np.array(["a"] * 4)]
)
def test_invalid_actions(action: Any) -> None:
    env = _fixed_env()
    env.reset()
    with pytest.raises(InvalidAction):
        env.step(action)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"lookback": 0}, ValueError, "lookback"),
        ({"episode_length": 0}, ValueError, "episode_length"),
        ({"max_leverage": 0.0}, ValueError, "max_leverage"),
        ({"max_leverage": NAN}, ValueError, "max_leverage"),
        ({"borrow_rate": -0.01}, ValueError, "borrow_rate"),
        ({"cash_rate": np.inf}, ValueError, "cash_rate"),
        ({"margin_rate": NAN}, ValueError, "margin_rate"),
        ({"delisting_return": -1.5}, ValueError, "delisting_return"),
        ({"max_assets": 0}, ValueError, "max_assets"),
        ({"max_assets": 2.5}, TypeError, "max_assets"),
        ({"max_assets": 0.0}, ValueError, "max_assets"),
        ({"capital": 0.0}, ValueError, "capital"),
        ({"dt": 0.0}, ValueError, "dt"),
        ({"transaction_cost": -1.0}, ValueError, "transaction_cost"),
        ({"sampler": "bogus"}, ValueError, "sampler"),
        ({"allow_short": 1}, ValueError, "allow_short"),
        ({"privileged_state": "yes"}, ValueError, "privileged_state"),
        ({"features": ("volume",)}, ValueError, "features"),
        ({"features": "volume"}, TypeError, "features"),
        ({"exogenous": ("vix",)}, KeyError, "vix"),
        ({"data": FIXED}, TypeError, "MarketData"),
        ({"data": MarketData(FIXED), "model": default_market(3)}, ValueError, "one"),
        ({"model": "gbm"}, TypeError, "MarketModel"),
        ({"data": MarketData(FIXED)}, ValueError, "rows"),
        ({"data": MarketData(FIXED), "lookback": 2, "features": ("vol",)}, KeyError, "vol"),
        ({"data": MarketData(FIXED), "lookback": 2, "exogenous": ("x",)}, KeyError, "x"),
    ],
)
def test_constructor_validation(kwargs: dict[str, Any], error: type, match: str) -> None:
    options: dict[str, Any] = {"episode_length": 4, **kwargs}
    with pytest.raises(error, match=match):
        MarketEnv(**options)


def test_valid_edge_parameters() -> None:
    env = _fixed_env(delisting_return=-1.0, max_assets=1, margin_rate=0.0)
    assert env.delisting_return == -1.0 and env.max_assets == 1
    assert env.observation_space["portfolio"].shape == (2,)

"""TradingVecEnv / PortfolioVecEnv: exact agreement with SyncVecEnv on fixed histories,
statistical agreement on simulated markets, frozen sub-envs, parameters and errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from sekai.envs.finance import PortfolioEnv, PortfolioVecEnv, TradingEnv, TradingVecEnv
from sekai.error import InvalidAction, ResetRequired
from sekai.finance import (
    DifferentialSharpe,
    DrawdownPenalty,
    LogReturn,
    MarketData,
    NoCost,
    SequentialStart,
    SpreadCost,
    SquareRootImpact,
    StepOutcome,
)
from sekai.finance.rewards import RewardFunction
from sekai.testing import check_native_matches
from sekai.vector import SyncVecEnv
from sekai.wrappers import TimeLimit

pd = pytest.importorskip("pandas")

TRADING_INFO = [
    "equity",
    "position",
    "price",
    "asset_return",
    "cost",
    "turnover",
    "timestamp",
    "dt",
]
PORTFOLIO_INFO = [
    "portfolio_value",
    "equity",
    "weights",
    "turnover",
    "cost",
    "asset_returns",
    "timestamp",
    "dt",
]


def _history(n: int = 200, k: int = 3, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 100 * np.exp(np.cumsum(rng.normal(0.0, 0.01, (n, k)), axis=0))


def _same(a: Any, b: Any) -> bool:
    """Exact equality of nested observations / infos (keys in the same order)."""
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b)) and np.asarray(a).dtype == np.asarray(b).dtype
    return bool(a == b) and type(a) is type(b)


def _trading_actions(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, 3, n)


def _portfolio_actions(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.random((n, 4)).astype(np.float32)


def _short_actions(rng: np.random.Generator, n: int) -> np.ndarray:
    return (2 * rng.random((n, 3)) - 1).astype(np.float32)


def _data() -> MarketData:
    prices = _history()
    fields = {"volume": np.full((200, 3), 1e5), "spread": np.full((200, 3), 0.001)}
    return MarketData(prices, fields=fields)


CASES: list[tuple[type[Any], type[Any], dict[str, Any], Callable[..., np.ndarray]]] = [
    (TradingVecEnv, TradingEnv, {"prices": _history()[:, 0]}, _trading_actions),
    (
        TradingVecEnv,
        TradingEnv,
        {
            "data": _data().select(["asset_1"]),
            "transaction_cost": SquareRootImpact(0.5) + SpreadCost(),
            "reward": LogReturn() - 0.5 * DrawdownPenalty(),
            "positions": (-2.0, 0.0, 2.0),
        },
        _trading_actions,
    ),
    (PortfolioVecEnv, PortfolioEnv, {"prices": _history()}, _portfolio_actions),
    (
        PortfolioVecEnv,
        PortfolioEnv,
        {
            "data": _data(),
            "allow_short": True,
            "transaction_cost": SquareRootImpact(0.5) + SpreadCost(),
            "reward": DifferentialSharpe(0.1),
        },
        _short_actions,
    ),
]


def _pair(
    vec_cls: type[Any], env_cls: type[Any], kwargs: dict[str, Any], n: int, **vector: Any
) -> tuple[Any, SyncVecEnv]:
    options = {"episode_length": 20, "lookback": 5, "sampler": "sequential", **kwargs}
    native = vec_cls(n, **options, **vector)
    autoreset = vector.get("autoreset", True)
    sync = SyncVecEnv([lambda: env_cls(**options)] * n, autoreset=autoreset)
    return native, sync


# --- exact agreement with SyncVecEnv ------------------------------------------------------------


@pytest.mark.parametrize("autoreset", [True, False])
@pytest.mark.parametrize(("vec_cls", "env_cls", "kwargs", "actions"), CASES)
def test_native_equals_sync_on_a_fixed_history(
    vec_cls: type[Any],
    env_cls: type[Any],
    kwargs: dict[str, Any],
    actions: Callable[..., np.ndarray],
    autoreset: bool,
) -> None:
    n = 4
    native, sync = _pair(vec_cls, env_cls, kwargs, n, autoreset=autoreset)
    starts = [{"start": 5 + 7 * i} for i in range(n)]
    a, b = native.reset(seed=0, options=starts), sync.reset(seed=0, options=starts)
    assert _same(a.observations, b.observations) and _same(list(a.infos), list(b.infos))
    rng = np.random.default_rng(1)
    for _ in range(70):
        batch = actions(rng, n)
        x, y = native.step(batch), sync.step(batch)
        assert _same(x.observations, y.observations)
        assert np.array_equal(x.rewards, y.rewards)
        assert np.array_equal(x.terminated, y.terminated)
        assert np.array_equal(x.truncated, y.truncated)
        assert _same(list(x.infos), list(y.infos))
    assert np.array_equal(native.frozen, np.zeros(n, bool)) == autoreset


def test_native_equals_sync_with_a_time_limit_and_dates() -> None:
    index = pd.date_range("2020-01-01", periods=200, freq="B")
    frame = pd.DataFrame(_history(), index=index, columns=["A", "B", "C"])
    sampler = SequentialStart(3, 2)
    options: dict[str, Any] = {"episode_length": 20, "lookback": 5}
    native = PortfolioVecEnv(3, max_episode_steps=7, prices=frame, sampler=sampler, **options)
    sync = SyncVecEnv(
        [lambda: TimeLimit(PortfolioEnv(frame, sampler=sampler.spawn(), **options), 7)] * 3
    )
    a, b = native.reset(seed=0), sync.reset(seed=0)
    assert _same(list(a.infos), list(b.infos))
    assert isinstance(a.infos[0]["timestamp"], np.datetime64)
    rng = np.random.default_rng(2)
    for k in range(15):
        batch = _portfolio_actions(rng, 3)
        x, y = native.step(batch), sync.step(batch)
        assert _same(x.observations, y.observations) and np.array_equal(x.rewards, y.rewards)
        assert np.array_equal(x.truncated, y.truncated) and x.truncated.all() == (k % 7 == 6)
        assert _same(list(x.infos), list(y.infos))


# --- statistical agreement on simulated markets -------------------------------------------------


def _final_log_equity(vec: Any, actions: Any, steps: int) -> np.ndarray:
    vec.reset(seed=123)
    total = np.zeros(vec.num_envs)
    for _ in range(steps):
        total += vec.step(actions).rewards
    return total


@pytest.mark.parametrize(
    ("vec_cls", "env_cls", "action"),
    [
        (TradingVecEnv, TradingEnv, 2),
        (PortfolioVecEnv, PortfolioEnv, np.array([1, 1, 1, 0], np.float32)),
    ],
)
def test_simulated_markets_agree_in_distribution(
    vec_cls: type[Any], env_cls: type[Any], action: Any
) -> None:
    """Log growth over one 60-step episode: means within 4 standard errors, stds within 15 %."""
    kwargs: dict[str, Any] = {"episode_length": 60, "lookback": 3, "transaction_cost": 0.0}
    if env_cls is PortfolioEnv:
        kwargs["n_assets"] = 3
    native = vec_cls(2000, **kwargs)
    sync = SyncVecEnv([lambda: env_cls(**kwargs)] * 300)
    shape = (2000,) if np.ndim(action) == 0 else (2000, len(action))
    a = _final_log_equity(native, np.broadcast_to(action, shape), 60)
    b = _final_log_equity(sync, np.broadcast_to(action, (300, *shape[1:])), 60)
    se = np.sqrt(a.var() / len(a) + b.var() / len(b))
    assert abs(a.mean() - b.mean()) < 4 * se
    assert 0.85 < a.std() / b.std() < 1.15
    if env_cls is TradingEnv:  # buy and hold of GBM(0.05, 0.2) over 60 days
        assert abs(a.mean() - (0.05 - 0.02) * 60 / 252) < 4 * a.std() / np.sqrt(len(a))
        assert a.std() == pytest.approx(0.2 * np.sqrt(60 / 252), rel=0.08)


# --- frozen sub-envs ------------------------------------------------------------------------------


def _crash_history() -> np.ndarray:
    prices = np.full(60, 100.0)
    prices[25:] = 30.0  # a 70 % fall between rows 24 and 25
    return prices


def test_frozen_sub_envs_are_identical_on_every_backend_and_untouched() -> None:
    options: dict[str, Any] = {"episode_length": 20, "lookback": 2, "positions": (0.0, 2.0)}
    native = TradingVecEnv(3, autoreset=False, prices=_crash_history(), **options)
    sync = SyncVecEnv([lambda: TradingEnv(_crash_history(), **options)] * 3, autoreset=False)
    starts = [{"start": 22}, {"start": 10}, {"start": 30}]  # crash, crash later, truncation
    native.reset(options=starts)
    sync.reset(options=starts)
    ones = np.ones(3, int)
    finished = np.zeros(3, bool)
    for _ in range(25):
        x, y = native.step(ones), sync.step(ones)
        assert _same(x.observations, y.observations) and np.array_equal(x.rewards, y.rewards)
        assert np.array_equal(x.dones, y.dones) and _same(list(x.infos), list(y.infos))
        was = finished.copy()
        finished |= x.dones
        if was.any():
            assert all(x.infos[i] == {} for i in np.flatnonzero(was))
            assert (x.rewards[was] == 0).all()
    assert finished.all() and native.frozen.all()
    state = (native.equity.copy(), native.position.copy(), native._t.copy())
    native.step(np.zeros(3, int))
    assert all(
        np.array_equal(s, t)
        for s, t in zip(state, (native.equity, native.position, native._t), strict=True)
    )
    assert native.equity[0] == 0.0  # sub-env 0 was wiped out by the crash


# --- parameters -------------------------------------------------------------------------------


TRADING_WRITABLE = [
    "positions",
    "cost_model",
    "reward_fn",
    "dt",
    "mu",
    "sigma",
    "s0",
    "model",
    "capital",
]
TRADING_READ_ONLY = [
    "metadata",
    "prices",
    "data",
    "history",
    "lookback",
    "episode_length",
    "window",
    "transaction_cost",
]
PORTFOLIO_WRITABLE = ["cost_model", "reward_fn", "dt", "mu", "sigma", "corr", "model", "capital"]
PORTFOLIO_READ_ONLY = [
    "metadata",
    "prices",
    "data",
    "history",
    "n_assets",
    "lookback",
    "episode_length",
    "window",
    "allow_short",
    "transaction_cost",
]


@pytest.mark.parametrize(
    ("vec_cls", "writable", "read_only"),
    [
        (TradingVecEnv, TRADING_WRITABLE, TRADING_READ_ONLY),
        (PortfolioVecEnv, PORTFOLIO_WRITABLE, PORTFOLIO_READ_ONLY),
    ],
)
def test_template_parameters(vec_cls: type[Any], writable: list[str], read_only: list[str]) -> None:
    vec = vec_cls(3, episode_length=5, lookback=2)
    for name in writable + read_only:
        assert vec._param(name) is not None
        value = getattr(vec.template, name)
        assert all(v is value for v in vec.get_attr(name))
    for name in read_only:
        with pytest.raises(AttributeError, match="read-only"):
            vec.set_attr(name, getattr(vec.template, name))
    vec.set_attr("capital", [5.0, 5.0, 5.0])
    assert vec.template.capital == 5.0
    with pytest.raises(ValueError, match="sync"):
        vec.set_attr("dt", [0.1, 0.2, 0.1])
    reward = DrawdownPenalty()
    vec.set_attr("reward_fn", reward)
    assert (
        isinstance(vec.template.reward_fn, DrawdownPenalty) and vec.template.reward_fn is not reward
    )
    vec.set_attr("sigma", 0.0)
    vec.set_attr("mu", 0.0)
    vec.reset(seed=0)
    assert np.all(vec._paths == 100.0)
    with pytest.raises(AttributeError):
        vec.set_attr("no_such_parameter", 1)


@pytest.mark.parametrize("sampler", ["sequential", "random"])
def test_each_sub_env_answers_its_own_sampler(sampler: str) -> None:
    vec = TradingVecEnv(3, prices=_history(60, 1)[:, 0], episode_length=10, sampler=sampler)
    samplers = vec.get_attr("sampler")
    assert [type(s) for s in samplers] == [type(vec.template.sampler)] * 3
    if sampler == "sequential":  # each sub-env walks the history on its own
        assert len({id(s) for s in samplers} | {id(vec.template.sampler)}) == 4
    else:  # a stateless sampler is shared
        assert all(s is vec.template.sampler for s in samplers)
    simulated = PortfolioVecEnv(2, n_assets=2, episode_length=4)
    assert simulated.get_attr("sampler") == [simulated.template.sampler] * 2


def test_state_arrays_and_properties() -> None:
    prices = _history(60, 1)[:, 0]
    vec = TradingVecEnv(2, prices=prices, episode_length=10, lookback=3, sampler="sequential")
    vec.reset(options=[{"start": 3}, {"start": 8}])
    np.testing.assert_array_equal(vec.timestamp, [3, 8])
    np.testing.assert_array_equal(vec.price, prices[[3, 8]])
    vec.step(np.array([2, 0]))
    history = vec.price_history
    assert history.dtype == object and history[1].shape == (5,)
    np.testing.assert_array_equal(history[1], prices[5:10])
    vec.set_attr("position", [0.5, 0.25])
    assert vec.get_attr("position") == [0.5, 0.25]
    simulated = PortfolioVecEnv(2, n_assets=2, episode_length=4, lookback=2)
    simulated.reset(seed=0)
    np.testing.assert_array_equal(simulated.timestamp, [0, 0])
    assert simulated._paths.shape == (2, 7, 2) and simulated.price_history[0].shape == (3, 2)
    assert simulated.action_to_weights(np.array([[0, 0, 0], [1, 1, 2]])).tolist() == [
        [0, 0, 1],
        [0.25, 0.25, 0.5],
    ]


class _Spy(RewardFunction):
    """Records every reset mask."""

    def __init__(self) -> None:
        self.masks: list[Any] = []

    def __call__(self, outcome: StepOutcome) -> Any:
        return outcome.log_return

    def reset(self, mask: Any = None) -> None:
        self.masks.append(None if mask is None else np.array(mask))


def test_reward_reset_masks_and_spawned_samplers() -> None:
    sampler = SequentialStart()
    vec = TradingVecEnv(
        3,
        prices=_history(80, 1)[:, 0],
        episode_length=5,
        lookback=2,
        sampler=sampler,
        reward=_Spy(),
        max_episode_steps=3,
    )
    infos = vec.reset().infos
    assert [info["timestamp"] for info in infos] == [2, 2, 2]
    assert sampler._position == 0  # the passed sampler is not advanced
    spy = vec.template.reward_fn
    assert isinstance(spy, _Spy) and spy.masks == [None]
    for _ in range(3):
        result = vec.step(np.ones(3, int))
    assert [info["reset_info"]["timestamp"] for info in result.infos] == [7, 7, 7]
    assert spy.masks[-1] is None or spy.masks[-1].all()
    vec2 = TradingVecEnv(2, episode_length=3, lookback=2, reward=_Spy(), positions=(0, 3))
    vec2.reset(seed=0)
    spy2 = vec2.template.reward_fn
    assert isinstance(spy2, _Spy)
    vec2._t = np.array([2, 0])  # sub-env 0 finishes on the next step
    vec2.step(np.zeros(2, int))
    assert spy2.masks[-1].tolist() == [True, False]


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "actions",
    [
        np.array([0, 3]),
        np.array([-1, 0]),
        np.array([0.5, 1.0]),
        np.array([0, 1, 2]),
        ["a", "b"],
        np.array([True, False]),
    ],
)
def test_trading_invalid_actions(actions: Any) -> None:
    vec = TradingVecEnv(2, episode_length=5, lookback=2)
    vec.reset(seed=0)
    with pytest.raises(InvalidAction):
        vec.step(actions)


def test_errors() -> None:
    vec = TradingVecEnv(2, episode_length=5, lookback=2)
    with pytest.raises(ResetRequired):
        vec.step(np.zeros(2, int))
    with pytest.raises(ValueError, match="historical"):
        vec.reset(options={"start": 3})
    history = TradingVecEnv(2, prices=_history(30, 1)[:, 0], episode_length=5, lookback=2)
    with pytest.raises(ValueError, match="start"):
        history.reset(options=[{"start": 1}, None])
    vec.reset(seed=0)
    np.testing.assert_array_equal(vec.step(np.array([1.0, 2.0])).infos[1]["position"] > 0, True)
    portfolio = PortfolioVecEnv(2, n_assets=2, episode_length=5, lookback=2)
    portfolio.reset(seed=0)
    for bad in (np.ones((2, 2)), np.full((2, 3), np.nan), np.ones(3)):
        with pytest.raises(InvalidAction):
            portfolio.step(bad)
    with pytest.raises(ValueError):
        TradingVecEnv(2, sigma=-1.0)
    assert isinstance(TradingVecEnv(1, transaction_cost=NoCost()).cost_model, NoCost)


def test_info_keys_match_the_single_envs() -> None:
    trading = TradingVecEnv(2, episode_length=5, lookback=2)
    portfolio = PortfolioVecEnv(2, episode_length=5, lookback=2)
    assert list(trading.reset(seed=0).infos[0]) == TRADING_INFO
    assert list(portfolio.reset(seed=0).infos[0]) == PORTFOLIO_INFO
    assert list(trading.step(np.ones(2, int)).infos[1]) == TRADING_INFO
    assert list(portfolio.step(np.ones((2, 6))).infos[1]) == PORTFOLIO_INFO
    assert repr(trading) == "TradingVecEnv(num_envs=2)"


# --- the batched layout of PortfolioVecEnv ----------------------------------------------------


@pytest.mark.parametrize("kwargs", [{}, {"allow_short": True, "n_assets": 9}, {"n_assets": 1}])
def test_one_portfolio_sub_env_replays_its_single_env_through_resets(
    kwargs: dict[str, Any],
) -> None:
    """Simulated markets too: one sub-env and the single env draw the same numbers."""
    options = {"episode_length": 12, "lookback": 4, **kwargs}
    problems = check_native_matches(
        lambda: PortfolioEnv(**options),
        lambda **kw: PortfolioVecEnv(**options, **kw),
        num_envs=1,
        steps=40,
        seed=5,
    )
    assert problems == []


def test_portfolio_windows_and_weights_when_sub_envs_are_at_different_steps() -> None:
    vec = PortfolioVecEnv(3, n_assets=2, episode_length=10, lookback=3)
    vec.reset(seed=0)
    vec._t = np.array([0, 4, 9])
    windows = vec._observe()["returns"]
    for i, t in enumerate([0, 4, 9]):
        np.testing.assert_array_equal(windows[i], vec._log_returns32[i, t : t + 3])
    vec.weights = [[0.5, 0.25, 0.25], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    assert vec.get_attr("weights")[2].tolist() == [1.0, 0.0, 0.0]
    weights = vec.weights
    weights[0] = 0.0  # a copy
    assert vec.weights[0].tolist() == [0.5, 0.25, 0.25]
    info = vec.step(np.full((3, 3), 0.5, np.float32)).infos[1]["weights"]
    assert info.flags.c_contiguous and info.shape == (3,)
    with pytest.raises(ValueError, match="shape"):
        vec.weights = np.ones((3, 2))

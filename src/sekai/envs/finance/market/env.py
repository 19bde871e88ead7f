"""Market-v0: a portfolio over a changing universe of assets, observed as a padded set."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.core.options import check_reset_options
from sekai.core.result import ResetResult, StepResult
from sekai.envs.finance._checks import check_float, check_int, episode_ended
from sekai.envs.finance.market.trades import trade_mask, trade_targets
from sekai.envs.finance.windowed.config import WindowConfig
from sekai.envs.finance.windowed.env import RESET_OPTIONS, WindowedEnv
from sekai.error import InvalidAction, ResetRequired
from sekai.finance.account import AccountConfig, project_weights, settle
from sekai.finance.data import MarketData
from sekai.finance.data.pandas_io import is_frame
from sekai.finance.rewards import RewardFunction, StepOutcome
from sekai.finance.simulators import GBM, ListingProcess, MarketModel, RegimeSwitching
from sekai.finance.universe import SlotMap
from sekai.spaces import Box, Dict, Discrete, MaskedBox, Space
from sekai.utils.validation import check_choice

__all__ = ["ACTION_MODES", "MarketEnv", "default_market", "exogenous_rows", "initial_slots"]

Array = NDArray[np.float64]

_INF = float("inf")

ACTION_MODES = ("weights", "discrete")
"""Values of ``MarketEnv``'s ``action_mode``: scores per slot (a ``Box``), or one trade."""


def default_market(n_assets: int = 10) -> MarketModel:
    """The Market-v0 simulation: listings over a calm/stressed regime-switching GBM.

    Calm: ``mu=0.08, sigma=0.15``, correlation 0.2; stressed: ``mu=-0.2, sigma=0.4``,
    correlation 0.7. Calm lasts 504 steps on average, stress 126.
    """
    n = check_int(n_assets, "n_assets", low=2)
    calm = GBM(mu=0.08, sigma=0.15, corr=0.2 + 0.8 * np.eye(n), n_assets=n)
    stress = GBM(mu=-0.2, sigma=0.4, corr=0.7 + 0.3 * np.eye(n), n_assets=n)
    transition = [[1 - 1 / 504, 1 / 504], [1 / 126, 1 - 1 / 126]]
    return ListingProcess(
        RegimeSwitching([calm, stress], transition),
        initial_listed=0.7,
        listing_rate=1.0,
        delisting_rate=0.3,
        min_listed=2,
    )


def _names(values: Any, what: str) -> tuple[str, ...]:
    """``values`` as a tuple of names (strings), else ``TypeError``."""
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise TypeError(f"{what} must be a sequence of names, got {values!r}.")
    names = tuple(values)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{what} must hold strings, got {name!r}.")
    return names


def _flag(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a bool, got {value!r}.")
    return bool(value)


def _zero_nan(values: Array) -> NDArray[np.float32]:
    """``values`` as float32 with NaN replaced by 0."""
    return np.where(np.isnan(values), 0.0, values).astype(np.float32)


def initial_slots(n_total: int, max_assets: int) -> NDArray[np.intp]:
    """Asset column of each slot at a reset; ``n_total`` (a column of zeros) marks an empty slot.

    With fewer slots than assets every slot starts empty (a ``SlotMap`` fills them), else
    slot ``j`` holds asset ``j``.
    """
    if max_assets < n_total:
        return np.full(max_assets, n_total, dtype=np.intp)
    return np.concatenate([np.arange(n_total), np.full(max_assets - n_total, n_total)]).astype(
        np.intp
    )


def exogenous_rows(market: MarketData, names: Iterable[str]) -> NDArray[np.float32]:
    """The ``(T, width)`` float32 market rows of the exogenous series ``names`` (NaN -> 0)."""
    columns = [np.reshape(market.exogenous_series(name), (len(market), -1)) for name in names]
    return _zero_nan(np.concatenate(columns, axis=1))


class MarketEnv(WindowedEnv):
    """Trade a universe whose assets list and delist, through ``max_assets`` slots.

    Data (``data=``: a ``MarketData`` or a pandas or polars frame; or ``prices=``: a frame or
    a raw array; NaN price = unlisted) or a simulation (``model=``, default
    ``default_market()``); frames are read like Trading-v0 and Portfolio-v0 read them. Slot
    ``j`` holds asset ``j`` when every asset fits; otherwise a ``SlotMap`` keeps incumbents in
    their slots and gives free slots to newcomers in column order. Each step rebalances to
    ``target_weights(action)``, prices the trades in asset space and settles the account with
    financing (``settle``); a slot whose asset delists earns ``delisting_return`` and its
    value moves to cash. The observation carries no clock.

    ``action_mode="weights"`` (Market-v0) scores each slot (and cash when long-only);
    ``"discrete"`` (MarketDiscrete-v0) holds, or buys or sells one slot by ``trade_size``
    (``sekai.envs.finance.market.trades``).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_fps": 10}
    _ndim = 2
    _complete_panel = False

    def __init__(
        self,
        data: Any = None,
        *,
        prices: Any = None,
        model: MarketModel | None = None,
        max_assets: int | None = None,
        features: Iterable[str] = (),
        exogenous: Iterable[str] = (),
        lookback: int = 20,
        episode_length: int = 252,
        sampler: Any = "random",
        transaction_cost: Any = 1e-3,
        reward: RewardFunction | None = None,
        allow_short: bool = False,
        max_leverage: float = 1.0,
        cash_rate: float = 0.0,
        margin_rate: float | None = None,
        borrow_rate: float = 0.0,
        capital: float = 1_000_000.0,
        dt: float | None = None,
        delisting_return: float = 0.0,
        privileged_state: bool = False,
        action_mode: str = "weights",
        trade_size: float = 0.1,
    ) -> None:
        if is_frame(data):
            if prices is not None:
                raise ValueError("give at most one price source, got prices and data.")
            data, prices = None, data
        if data is None and model is None and prices is None:
            model = default_market()
        config = WindowConfig(
            episode_length, lookback, transaction_cost, dt, reward, sampler, capital
        )
        self._setup(prices=prices, data=data, model=model, config=config)
        self.config = AccountConfig(
            allow_short=_flag(allow_short, "allow_short"),
            max_leverage=check_float(max_leverage, "max_leverage", low=0.0, low_open=True),
            cash_rate=check_float(cash_rate, "cash_rate"),
            margin_rate=None if margin_rate is None else check_float(margin_rate, "margin_rate"),
            borrow_rate=check_float(borrow_rate, "borrow_rate", low=0.0),
        )
        self.delisting_return = check_float(delisting_return, "delisting_return", low=-1.0)
        self.privileged_state = _flag(privileged_state, "privileged_state")
        self._action_mode = check_choice(action_mode, "action_mode", ACTION_MODES)
        self.trade_size = check_float(trade_size, "trade_size", low=0.0, low_open=True)
        self.features = _names(features, "features")
        self.exogenous = _names(exogenous, "exogenous")
        history = self._history
        if history is None:
            assert self.model is not None
            n = self.model.n_assets
            self._ids: tuple[Any, ...] = tuple(range(n))
            if self.features:
                raise ValueError(
                    f"features {self.features!r} name MarketData fields; a simulated market "
                    "has none (pass data=...)."
                )
            spec = self.model.state_spec()
            for name in self.exogenous:
                if name not in spec:
                    raise KeyError(
                        f"no simulation state {name!r}; {self.model!r} has {sorted(spec)}."
                    )
            self._widths = [math.prod(spec[name]) for name in self.exogenous]
            self._exogenous_history: NDArray[np.float32] | None = None
        else:
            market = history.data
            n = market.n_assets
            self._ids = market.assets
            for name in self.features:
                market.field(name)  # KeyError naming the available fields
            self._widths = [market.exogenous_width(name) for name in self.exogenous]
            self._exogenous_history = None
            if self.exogenous:
                self._exogenous_history = exogenous_rows(market, self.exogenous)
        self.n_total = n
        slots = n if max_assets is None else check_int(max_assets, "max_assets", low=1)
        self.max_assets = slots
        self._slot_map = SlotMap(slots) if slots < n else None
        lookback_rows, channels = self._lookback, 2 + len(self.features)
        observation: dict[str, Space[Any]] = {
            "assets": MaskedBox(
                -_INF, _INF, shape=(lookback_rows, channels), max_size=slots, dtype=np.float32
            ),
            "portfolio": Box(-_INF, _INF, shape=(slots + 1,), dtype=np.float32),
            "account": Box(-_INF, _INF, shape=(2,), dtype=np.float32),
        }
        if self.exogenous:
            observation["market"] = Box(
                -_INF, _INF, shape=(lookback_rows, sum(self._widths)), dtype=np.float32
            )
        self.observation_space = Dict(observation)
        if self._action_mode == "discrete":
            self.action_space = Discrete(2 * slots + 1)
        elif self.config.allow_short:
            self.action_space = Box(-1.0, 1.0, shape=(slots,), dtype=np.float32)
        else:
            self.action_space = Box(0.0, 1.0, shape=(slots + 1,), dtype=np.float32)
        self.equity = 1.0
        self.weights: Array = np.zeros(slots)
        self._slot_asset = self._initial_slots()
        self._tradable = np.zeros(slots, dtype=bool)
        self._state: dict[str, NDArray[Any]] = {}

    # -- slots ----------------------------------------------------------------------------

    def _initial_slots(self) -> NDArray[np.intp]:
        """Asset column of each slot; ``n_total`` (a column of zeros) marks an empty slot."""
        return initial_slots(self.n_total, self.max_assets)

    def _assign(self, row: int, reassign: bool) -> None:
        """Set the tradable slots at window ``row``, first reassigning dynamic slots."""
        listed = self._listed[row]
        slot_map = self._slot_map
        if slot_map is None or not reassign:
            self._tradable = listed[self._slot_asset]
            return
        n = self.n_total
        held = self._slot_asset[self._slot_asset < n]
        incumbents = held[listed[held]]
        candidates = listed[:n].copy()
        candidates[held] = False
        newcomers = np.flatnonzero(candidates)[: self.max_assets - len(incumbents)]
        present = np.concatenate([incumbents, newcomers])
        slot_asset = np.full(self.max_assets, n, dtype=np.intp)
        slot_asset[slot_map.update(present.tolist())] = present
        self._slot_asset = slot_asset
        self.weights[slot_map.changed] = 0.0
        self._tradable = slot_asset < n

    @property
    def action_mode(self) -> str:
        """``"weights"`` or ``"discrete"``: what an action is (read-only)."""
        return self._action_mode

    @property
    def tradable(self) -> NDArray[np.bool_]:
        """Bool ``(max_assets,)``: slots whose asset is listed at the decision row (a copy)."""
        return self._tradable.copy()

    @property
    def slot_assets(self) -> tuple[Any, ...]:
        """The asset id in each slot (None for an empty slot)."""
        n, ids = self.n_total, self._ids
        return tuple(None if j == n else ids[j] for j in self._slot_asset.tolist())

    # -- episode arrays -------------------------------------------------------------------

    def _simulate(self) -> Array:
        """A simulated window, NaN where unlisted; keeps the simulation's state."""
        assert self.model is not None
        simulation = self.model.simulate(self.rng, self._window - 1)
        prices = simulation.prices
        if simulation.mask is not None:
            prices = np.where(simulation.mask, prices, np.nan)
        self._state = dict(simulation.state)
        return prices

    def _build_episode(self) -> None:
        """Listing flags, step returns, observation channels and market rows of the window."""
        path = self._path
        window, n = path.shape
        listed = np.zeros((window, n + 1), dtype=bool)
        listed[:, :n] = np.isfinite(path)
        stay = listed[:-1, :n] & listed[1:, :n]
        leaving = np.zeros((window - 1, n + 1), dtype=bool)
        leaving[:, :n] = listed[:-1, :n] & ~listed[1:, :n]
        returns = np.zeros((window - 1, n + 1))
        returns[:, :n] = np.where(
            stay, path[1:] / path[:-1] - 1.0, np.where(leaving[:, :n], self.delisting_return, 0.0)
        )
        log_returns = self._log_returns
        exists = np.isfinite(log_returns)
        channels = np.zeros((n + 1, window, 2 + len(self.features)), dtype=np.float32)
        channels[:n, 1:, 0] = np.where(exists, log_returns, 0.0).T
        channels[:n, 1:, 1] = exists.T
        history = self._history
        rows = slice(self._start, self._start + window)
        for k, name in enumerate(self.features):
            assert history is not None
            channels[:n, :, 2 + k] = _zero_nan(history.data.field(name)[rows]).T
        market: NDArray[np.float32] | None = None
        if self._exogenous_history is not None:
            market = self._exogenous_history[rows]
        elif self.exogenous:
            state = self._state
            columns = [
                np.reshape(state[name], (window, width))
                for name, width in zip(self.exogenous, self._widths, strict=True)
            ]
            market = _zero_nan(np.concatenate(columns, axis=1))
        self._listed = listed
        self._leaving = leaving
        self._returns = returns
        self._channels = channels
        self._market = market

    def _volatility(self, t: int) -> Array:
        """Population std of each asset's available log returns; NaN with fewer than 2."""
        window = self._log_returns[t : t + self._lookback]
        valid = np.isfinite(window)
        count = valid.sum(axis=0)
        size = np.maximum(count, 1)
        mean = np.where(valid, window, 0.0).sum(axis=0) / size
        deviation = np.where(valid, window - mean, 0.0)
        variance = (deviation * deviation).sum(axis=0) / size
        return np.where(count >= 2, np.sqrt(variance), np.nan)

    # -- actions --------------------------------------------------------------------------

    def target_weights(self, action: Any) -> Array:
        """Slot weights ``(max_assets,)`` of an action.

        Weights mode: ``account.project_weights`` over the slots tradable now (the cash score
        is the last entry of a long-only action); bad shape or NaN -> ``InvalidAction``.
        Discrete mode: ``trades.trade_targets`` from the current weights; an action outside
        ``action_space`` -> ``InvalidAction``.
        """
        space = self.action_space
        if self._action_mode == "discrete":
            if not space.contains(action):
                raise InvalidAction(action, space)
            return trade_targets(action, self.weights, self._tradable, self.config, self.trade_size)
        try:
            array = np.asarray(action)
        except (TypeError, ValueError) as exc:
            raise InvalidAction(action, space) from exc
        if array.shape != space.shape or array.dtype.kind not in "iuf":
            raise InvalidAction(action, space)
        scores = array.astype(np.float64)
        if not np.isfinite(scores).all():
            raise InvalidAction(action, space)
        if self.config.allow_short:
            return project_weights(scores, self._tradable, self.config)
        return project_weights(scores[:-1], self._tradable, self.config, cash_score=scores[-1])

    def action_mask(self) -> NDArray[np.int8]:
        """Int8: 1 for slots tradable now, then 1 for cash when long-only (none before reset).

        Discrete mode: ``trades.trade_mask``, 1 for hold, then per slot for a buy, then for a
        sell that can trade now.
        """
        if self._action_mode == "discrete":
            return trade_mask(self.weights, self._tradable, self.config)
        if self.config.allow_short:
            return self._tradable.astype(np.int8)
        mask = np.ones(self.max_assets + 1, dtype=np.int8)
        mask[:-1] = self._tradable
        return mask

    # -- state ----------------------------------------------------------------------------

    @property
    def latent_state(self) -> dict[str, Any]:
        """The simulation's state at the decision row (empty for historical data)."""
        self._check_started()
        row = self._lookback + self.elapsed_steps
        state: dict[str, Any] = {}
        for name, series in self._state.items():
            value = series[row]
            state[name] = value.copy() if isinstance(value, np.ndarray) else value.item()
        return state

    def _observation(self) -> dict[str, Any]:
        end = self._lookback + self.elapsed_steps + 1
        begin = end - self._lookback
        tradable = self._tradable
        values = self._channels[self._slot_asset, begin:end]
        values[~tradable] = 0.0
        weights = self.weights
        portfolio = np.empty(self.max_assets + 1, dtype=np.float32)
        portfolio[:-1] = weights
        portfolio[-1] = 1.0 - weights.sum()
        account = np.array(
            [np.log(max(self.equity, 1e-12)), np.abs(weights).sum()], dtype=np.float32
        )
        observation: dict[str, Any] = {
            "assets": {"values": values, "mask": tradable.astype(np.int8)},
            "portfolio": portfolio,
            "account": account,
        }
        if self._market is not None:
            observation["market"] = self._market[begin:end].copy()
        return observation

    def _info(self, turnover: float, cost: float, financing: float) -> dict[str, Any]:
        """The info of the reset or of a step; the episode log notes it with the action mask
        and the slots' assets."""
        weights = self.weights
        info: dict[str, Any] = {
            "equity": self.equity,
            "turnover": turnover,
            "cost": cost,
            "financing": financing,
            "gross_exposure": float(np.abs(weights).sum()),
            "n_assets": int(self._tradable.sum()),
            "weights": weights.copy(),
            "timestamp": self._stamp(self.elapsed_steps),
            "dt": self.dt,
        }
        if self.privileged_state:
            info["state"] = self.latent_state
        self._log.note(self.elapsed_steps, (info, self.tradable, self.slot_assets))
        return info

    # -- API ------------------------------------------------------------------------------

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[dict[str, Any]]:
        """Start in cash with equity 1 on a new window (``options={"start": row or time,
        "end": row or time}``)."""
        check_reset_options(self, options, RESET_OPTIONS)
        self._set_rng(seed)
        self._state = {}
        self._start_episode(options)
        self._build_episode()
        self.equity = 1.0
        self.weights = np.zeros(self.max_assets)
        self._slot_asset = self._initial_slots()
        if self._slot_map is not None:
            self._slot_map.reset()
        self._assign(self._lookback, reassign=True)
        return ResetResult(self._observation(), self._info(0.0, 0.0, 0.0))

    def step(self, action: Any) -> StepResult[dict[str, Any]]:
        """Rebalance to ``target_weights(action)``, then let prices move one row."""
        if self._done:
            raise episode_ended()
        if not self._started:
            raise ResetRequired()
        target = self.target_weights(action)
        trades = target - self.weights
        turnover = float(np.abs(trades).sum())
        equity = self.equity
        slot_asset = self._slot_asset
        asset_trades = np.zeros(self.n_total + 1)
        asset_trades[slot_asset] = trades
        cost = float(self.cost_model(asset_trades[:-1], **self._cost_context(equity)))
        t = self.elapsed_steps
        row = self._lookback + t
        settled = settle(
            target, self._returns[row, slot_asset], cost=cost, dt=self.dt, config=self.config
        )
        weights = settled.drifted
        weights[self._leaving[row, slot_asset]] = 0.0
        self.weights = weights
        self.equity = new_equity = max(equity * settled.growth, 0.0)
        self.elapsed_steps = t + 1
        terminated = bool(settled.wiped_out)
        truncated = not terminated and t + 1 >= self._steps
        self._done = terminated or truncated
        self._assign(row + 1, reassign=not self._done)
        reward = self._reward_fn(
            StepOutcome.from_growth(
                settled.growth,
                equity=new_equity,
                turnover=turnover,
                cost=cost,
                previous_equity=equity,
            )
        )
        return StepResult(
            self._observation(),
            float(reward),
            terminated,
            truncated,
            self._info(turnover, cost, float(settled.financing)),
        )

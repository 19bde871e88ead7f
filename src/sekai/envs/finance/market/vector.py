"""``MarketVecEnv``: ``num_envs`` Market-v0 envs stepped together with array operations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance.market.env import MarketEnv, exogenous_rows, initial_slots
from sekai.envs.finance.market.trades import trade_mask, trade_targets
from sekai.envs.finance.windowed.vector import SHAPE_READ_ONLY, WindowedVecEnv
from sekai.error import InvalidAction
from sekai.finance.account import project_weights, settle
from sekai.finance.rewards import StepOutcome
from sekai.finance.universe import SlotMap
from sekai.spaces import Dict
from sekai.vector.template import Param

__all__ = ["MarketVecEnv"]

Array = NDArray[np.float64]

_ACCOUNT_READ_ONLY = "allow_short fixes the action shape; build another env for other terms"


def _time_windows(array: NDArray[Any], axis: int, length: int) -> NDArray[Any]:
    """A read-only view adding a window axis after ``axis``: ``[..., t, k, ...]`` is row
    ``t + k`` of ``axis``."""
    shape = list(array.shape)
    count = shape[axis] - length + 1
    strides = list(array.strides)
    shape[axis : axis + 1] = [count, length]
    strides[axis : axis + 1] = [strides[axis], strides[axis]]
    return np.lib.stride_tricks.as_strided(array, shape, strides, writeable=False)


class MarketVecEnv(WindowedVecEnv[MarketEnv]):
    """``num_envs`` copies of ``MarketEnv`` stepped together.

    Per sub-env state: ``equity (N,)``, slot ``weights (N, S)``, the asset in each slot
    ``slot_asset (N, S)`` (``n_total`` for an empty slot) and which slots are ``tradable``
    now; with fewer slots than assets, each sub-env keeps its own ``SlotMap``. Each reset
    builds the window's arrays as the single env does (listing flags, per-step returns,
    observation channels, market rows); simulated windows come from one
    ``model.simulate(rng, window - 1, n_paths=k)`` per reset batch.
    """

    env_class = MarketEnv
    model = Param(SHAPE_READ_ONLY)
    config = Param(_ACCOUNT_READ_ONLY)
    max_assets = Param(SHAPE_READ_ONLY)
    n_total = Param(SHAPE_READ_ONLY)
    features = Param(SHAPE_READ_ONLY)
    exogenous = Param(SHAPE_READ_ONLY)
    delisting_return = Param()
    privileged_state = Param()
    action_mode = Param(SHAPE_READ_ONLY)
    trade_size = Param()

    def _allocate(self) -> None:
        super()._allocate()
        template = self.template
        n, total, slots = self.num_envs, template.n_total, template.max_assets
        window = template.window
        self.equity: Array = np.ones(n)
        self.weights: Array = np.zeros((n, slots))
        self._initial_slots = initial_slots(total, slots)
        self.slot_asset: NDArray[np.intp] = np.tile(self._initial_slots, (n, 1))
        self.tradable: NDArray[np.bool_] = np.zeros((n, slots), bool)
        self._slot_maps: list[SlotMap] | None = None
        if slots < total:
            self._slot_maps = [SlotMap(slots) for _ in range(n)]
        self._listed = np.zeros((n, window, total + 1), bool)
        self._leaving = np.zeros((n, window - 1, total + 1), bool)
        self._returns = np.zeros((n, window - 1, total + 1))
        channels = 2 + len(template.features)
        self._channels = np.zeros((n, total + 1, window, channels), np.float32)
        lookback = template.lookback
        self._channel_windows = _time_windows(self._channels, 2, lookback)
        self._market: NDArray[np.float32] | None = None
        self._exogenous_rows: NDArray[np.float32] | None = None
        if template.exogenous:
            shape = cast(Dict, self.observation_space)["market"].shape
            assert shape is not None
            width = shape[1]
            self._market = np.zeros((n, window, width), np.float32)
            if template.history is not None:
                self._exogenous_rows = exogenous_rows(template.history.data, template.exogenous)
            self._market_windows = _time_windows(self._market, 1, lookback)
        self._sim_state: dict[str, NDArray[Any]] = {}
        self._pending_state: dict[str, NDArray[Any]] = {}  # of the windows being simulated
        self._rows = np.arange(n)[:, None]

    def _asset_shape(self) -> tuple[int, ...]:
        return (self.template.n_total,)

    # -- episode arrays ---------------------------------------------------------------------

    def _simulate(self, count: int) -> Array:
        """``count`` simulated windows, NaN where unlisted; keeps their simulation state."""
        template = self.template
        model = template.model
        assert model is not None
        steps = template.window - 1
        simulation = model.simulate(self.rng, steps, n_paths=count)
        prices = simulation.prices
        expected = (count, steps + 1, template.n_total)
        if prices.shape != expected:
            raise ValueError(
                f"{model!r}.simulate(rng, {steps}, n_paths={count}) returned prices of shape "
                f"{prices.shape}; a native env needs {expected}."
            )
        if simulation.mask is not None:
            prices = np.where(simulation.mask, prices, np.nan)
        self._pending_state = dict(simulation.state)
        return prices

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        self._pending_state = {}
        self._reset_windows(indices, options)
        self._store_state(indices, self._pending_state)
        self._build_episodes(indices)
        template = self.template
        self.equity = self.equity.copy()
        self.equity[indices] = 1.0
        self.weights = self.weights.copy()
        self.weights[indices] = 0.0
        self.slot_asset[indices] = self._initial_slots
        if self._slot_maps is not None:
            for i in indices.tolist():
                self._slot_maps[i].reset()
        reassign = np.ones(len(indices), bool)
        self._assign(indices, np.full(len(indices), template.lookback), reassign)

    def _store_state(self, indices: NDArray[np.intp], state: dict[str, NDArray[Any]]) -> None:
        """Keep each sub-env's simulation state series (``latent_state``, ``exogenous``)."""
        for name, series in state.items():
            stored = self._sim_state.get(name)
            if stored is None or stored.shape[1:] != series.shape[1:]:
                stored = self._sim_state[name] = np.zeros(
                    (self.num_envs, *series.shape[1:]), series.dtype
                )
            stored[indices] = series

    def _build_episodes(self, indices: NDArray[np.intp]) -> None:
        """The single env's ``_build_episode`` for the windows of ``indices``, batched."""
        template = self.template
        path = self._paths[indices]
        k, window, n = path.shape
        listed = np.zeros((k, window, n + 1), bool)
        listed[:, :, :n] = np.isfinite(path)
        stay = listed[:, :-1, :n] & listed[:, 1:, :n]
        leaving = np.zeros((k, window - 1, n + 1), bool)
        leaving[:, :, :n] = listed[:, :-1, :n] & ~listed[:, 1:, :n]
        returns = np.zeros((k, window - 1, n + 1))
        returns[:, :, :n] = np.where(
            stay,
            path[:, 1:] / path[:, :-1] - 1.0,
            np.where(leaving[:, :, :n], template.delisting_return, 0.0),
        )
        log_returns = self._log_returns[indices]
        exists = np.isfinite(log_returns)
        channels = np.zeros((k, n + 1, window, self._channels.shape[-1]), np.float32)
        channels[:, :n, 1:, 0] = np.where(exists, log_returns, 0.0).transpose(0, 2, 1)
        channels[:, :n, 1:, 1] = exists.transpose(0, 2, 1)
        history = template.history
        rows = self._start[indices, None] + np.arange(window)
        for j, name in enumerate(template.features):
            assert history is not None
            field = history.data.field(name)[rows]
            channels[:, :n, :, 2 + j] = np.where(np.isnan(field), 0.0, field).transpose(0, 2, 1)
        if self._market is not None:
            if self._exogenous_rows is not None:
                self._market[indices] = self._exogenous_rows[rows]
            else:
                columns = [
                    np.reshape(self._sim_state[name][indices], (k, window, -1))
                    for name in template.exogenous
                ]
                market = np.concatenate(columns, axis=2)
                self._market[indices] = np.where(np.isnan(market), 0.0, market)
        self._listed[indices] = listed
        self._leaving[indices] = leaving
        self._returns[indices] = returns
        self._channels[indices] = channels

    # -- slots --------------------------------------------------------------------------------

    def _assign(
        self, indices: NDArray[np.intp], rows: NDArray[np.int64], update: NDArray[np.bool_]
    ) -> None:
        """Tradable slots of ``indices`` at their window ``rows``; with dynamic slots, the
        sub-envs in ``update`` first reassign their slots (as the single env does)."""
        if self._slot_maps is not None:
            n = self.template.n_total
            for i, row in zip(indices[update].tolist(), rows[update].tolist(), strict=True):
                self._reassign(i, self._listed[i, row], n)
        listed = self._listed[indices, rows]
        self.tradable[indices] = np.take_along_axis(listed, self.slot_asset[indices], axis=1)

    def _reassign(self, i: int, listed: NDArray[np.bool_], n: int) -> None:
        """The single env's dynamic slot reassignment for sub-env ``i``."""
        assert self._slot_maps is not None
        slot_map = self._slot_maps[i]
        slot_asset = self.slot_asset[i]
        held = slot_asset[slot_asset < n]
        incumbents = held[listed[held]]
        candidates = listed[:n].copy()
        candidates[held] = False
        newcomers = np.flatnonzero(candidates)[: len(slot_asset) - len(incumbents)]
        present = np.concatenate([incumbents, newcomers])
        assigned = np.full(len(slot_asset), n, dtype=np.intp)
        assigned[slot_map.update(present.tolist())] = present
        self.slot_asset[i] = assigned
        self.weights[i, slot_map.changed] = 0.0

    @property
    def slot_assets(self) -> NDArray[np.object_]:
        """Object array ``(N,)``: each sub-env's tuple of slot asset ids (None: empty slot)."""
        template = self.template
        n = template.n_total
        ids = tuple(range(n)) if template.data is None else template.data.assets
        result = np.empty(self.num_envs, dtype=object)
        for i, row in enumerate(self.slot_asset.tolist()):
            result[i] = tuple(None if j == n else ids[j] for j in row)
        return result

    # -- actions ------------------------------------------------------------------------------

    def target_weights(self, actions: Any) -> Array:
        """Slot weights ``(N, S)`` of a batch of actions (the single env's rule per row)."""
        template = self.template
        space = self.batch_action_space
        if template.action_mode == "discrete":
            if not space.contains(actions):
                raise InvalidAction(actions, space)
            return trade_targets(
                actions, self.weights, self.tradable, template.config, template.trade_size
            )
        try:
            array = np.asarray(actions)
        except (TypeError, ValueError) as exc:
            raise InvalidAction(actions, space) from exc
        if array.shape != space.shape or array.dtype.kind not in "iuf":
            raise InvalidAction(actions, space)
        scores = array.astype(np.float64)
        if not np.isfinite(scores).all():
            raise InvalidAction(actions, space)
        config = template.config
        if config.allow_short:
            return project_weights(scores, self.tradable, config)
        return project_weights(scores[:, :-1], self.tradable, config, cash_score=scores[:, -1])

    def action_mask(self) -> NDArray[np.int8]:
        """Int8 ``(N, S[+1])``: 1 for slots tradable now, then 1 for cash when long-only;
        discrete mode: ``(N, 2S+1)``, hold, then per slot a buy, then a sell that can trade."""
        template = self.template
        if template.action_mode == "discrete":
            return trade_mask(self.weights, self.tradable, template.config)
        if template.config.allow_short:
            return self.tradable.astype(np.int8)
        mask = np.ones((self.num_envs, template.max_assets + 1), dtype=np.int8)
        mask[:, :-1] = self.tradable
        return mask

    # -- state --------------------------------------------------------------------------------

    @property
    def latent_state(self) -> NDArray[np.object_]:
        """Object array ``(N,)`` of each sub-env's simulation state at its decision row."""
        self._check_started()
        rows = (self.template.lookback + self._t).tolist()
        result = np.empty(self.num_envs, dtype=object)
        for i, row in enumerate(rows):
            state: dict[str, Any] = {}
            for name, series in self._sim_state.items():
                value = series[i, row]
                state[name] = value.copy() if value.ndim else value.item()
            result[i] = state
        return result

    def _volatility_context(self, t: NDArray[np.int64]) -> Array:
        """Each sub-env's ``MarketEnv._volatility`` at step ``t``: ``(N, n)``."""
        window = self._windows[self._index, t]
        valid = np.isfinite(window)
        count = valid.sum(axis=1)
        size = np.maximum(count, 1)
        mean = np.where(valid, window, 0.0).sum(axis=1) / size
        deviation = np.where(valid, window - mean[:, None], 0.0)
        variance = (deviation * deviation).sum(axis=1) / size
        result: Array = np.where(count >= 2, np.sqrt(variance), np.nan)
        return result

    # -- observations and infos -----------------------------------------------------------

    def _observe(self) -> dict[str, Any]:
        begin = self._t + 1
        values = self._channel_windows[self._rows, self.slot_asset, begin[:, None]]
        tradable = self.tradable
        values[~tradable] = 0.0
        weights = self.weights
        portfolio = np.empty((self.num_envs, weights.shape[1] + 1), np.float32)
        portfolio[:, :-1] = weights
        portfolio[:, -1] = 1.0 - weights.sum(axis=-1)
        equity = self.equity
        account = np.empty((self.num_envs, 2), np.float32)
        account[:, 0] = np.log(np.where(equity < 1e-12, 1e-12, equity))
        account[:, 1] = np.abs(weights).sum(axis=-1)
        observation: dict[str, Any] = {
            "assets": {"values": values, "mask": tradable.astype(np.int8)},
            "portfolio": portfolio,
            "account": account,
        }
        if self._market is not None:
            observation["market"] = self._market_windows[self._index, begin]
        return observation

    def _infos(
        self, turnover: Any, cost: Any, financing: Any, indices: NDArray[np.intp] | None = None
    ) -> dict[str, Any]:
        """The single env's info keys for ``indices`` (all sub-envs when None)."""
        rows = slice(None) if indices is None else indices
        weights = self.weights[rows]
        count = len(weights)
        infos: dict[str, Any] = {
            "equity": self.equity[rows],
            "turnover": turnover,
            "cost": cost,
            "financing": financing,
            "gross_exposure": np.abs(weights).sum(axis=-1),
            "n_assets": self.tradable[rows].sum(axis=-1),
            "weights": weights,
            "timestamp": self._timestamps(self._t)[rows],
            "dt": np.full(count, self.template.dt),
        }
        if self.template.privileged_state:
            infos["state"] = self.latent_state[rows]
        return infos

    def _reset_infos(self, indices: NDArray[np.intp]) -> dict[str, Any]:
        zeros = np.zeros(len(indices))
        return self._infos(zeros, zeros, zeros, indices)

    # -- step ---------------------------------------------------------------------------------

    def _step(
        self, actions: Any
    ) -> tuple[Array, NDArray[np.bool_], NDArray[np.bool_], dict[str, Any]]:
        template = self.template
        target = self.target_weights(actions)
        weights, equity = self.weights, self.equity
        trades = target - weights
        turnover = np.abs(trades).sum(axis=-1)
        n = template.n_total
        asset_trades = np.zeros((self.num_envs, n + 1))
        np.put_along_axis(asset_trades, self.slot_asset, trades, axis=1)
        steps = self._decision_steps()
        cost = np.asarray(
            template.cost_model(
                np.ascontiguousarray(asset_trades[:, :-1]), **self._cost_context(equity, steps)
            ),
            dtype=np.float64,
        )
        row = template.lookback + steps
        returns = np.take_along_axis(self._returns[self._index, row], self.slot_asset, axis=1)
        settled = settle(target, returns, cost=cost, dt=template.dt, config=template.config)
        new_weights = settled.drifted
        leaving = np.take_along_axis(self._leaving[self._index, row], self.slot_asset, axis=1)
        new_weights[leaving] = 0.0
        grown = equity * settled.growth
        new_equity = np.where(grown < 0.0, 0.0, grown)
        growth = np.array(settled.growth, dtype=np.float64)
        terminated = np.array(settled.wiped_out, dtype=bool)
        financing = np.array(settled.financing, dtype=np.float64)
        active = self.active
        moving = self._index if active is None else np.flatnonzero(active)
        if active is not None:  # frozen sub-envs keep their state
            frozen = ~active
            new_weights[frozen] = weights[frozen]
            new_equity = np.where(frozen, equity, new_equity)
            growth[frozen] = 1.0
        t = self._t + (1 if active is None else active)
        self.weights, self.equity, self._t = new_weights, new_equity, t
        truncated = (t >= template.episode_length) & ~terminated
        # Slots are reassigned while an episode goes on; where no asset listed or delisted
        # since the last row, the single env's reassignment changes nothing and is skipped.
        moved = row[moving]
        n = template.n_total
        update = ~(terminated | truncated)[moving]
        if self._slot_maps is not None:
            now, then = self._listed[moving, moved + 1, :n], self._listed[moving, moved, :n]
            update &= (now != then).any(axis=1)
        self._assign(moving, moved + 1, update)
        rewards = template.reward_fn(
            StepOutcome.from_growth(
                growth, equity=new_equity, turnover=turnover, cost=cost, previous_equity=equity
            )
        )
        return rewards, terminated, truncated, self._infos(turnover, cost, financing)

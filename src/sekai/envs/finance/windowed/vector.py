"""``WindowedVecEnv``: the native vector base of the windowed finance envs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.core.options import check_reset_options_each
from sekai.envs.finance.windowed.env import WindowedEnv, add_history_context, choose_start
from sekai.error import ResetRequired
from sekai.vector.template import Param, TemplateVecEnv, replace_rows

__all__ = ["LEARNING_READ_ONLY", "SHAPE_READ_ONLY", "WindowedVecEnv"]

#: Why a parameter that fixes the shapes of the state arrays is read-only.
SHAPE_READ_ONLY = "it fixes the shapes of the state arrays"
_HISTORY_READ_ONLY = "the history is loaded at build"
_COST_READ_ONLY = "it became cost_model; set cost_model instead"
#: Why a learnable setting is read-only.
LEARNING_READ_ONLY = "it is chosen at build"

WindowedT = TypeVar("WindowedT", bound=WindowedEnv)


def _windows(returns: NDArray[Any], count: int, lookback: int) -> NDArray[Any]:
    """Read-only view ``(N, count, lookback, ...)`` of ``returns (N, rows, ...)``: rows t.."""
    strides = returns.strides
    return np.lib.stride_tricks.as_strided(
        returns,
        shape=(returns.shape[0], count, lookback, *returns.shape[2:]),
        strides=(strides[0], strides[1], *strides[1:]),
        writeable=False,
    )


class WindowedVecEnv(TemplateVecEnv[WindowedT]):
    """The batched ``WindowedEnv``: the machinery of ``TradingVecEnv``, ``PortfolioVecEnv`` and
    ``MarketVecEnv``.

    Each sub-env holds one price window, ``_paths[i]`` (``(window,)`` or ``(window, n)``),
    with its log returns (float64 and float32) and its decision counter ``_t[i]``; a history
    window also records its start row ``_start[i]``. Decision prices are read through flat
    indices ``_path_rows + t``, observed returns through the strided window views.
    """

    _reset_option_names: tuple[str, ...] = ()
    """The reset options a subclass reads besides ``start``."""

    prices = Param(_HISTORY_READ_ONLY)
    data = Param(_HISTORY_READ_ONLY)
    history = Param(_HISTORY_READ_ONLY)
    lookback = Param(SHAPE_READ_ONLY)
    episode_length = Param(SHAPE_READ_ONLY)
    window = Param(SHAPE_READ_ONLY)
    transaction_cost = Param(_COST_READ_ONLY)
    cost_model = Param()
    reward_fn = Param()
    dt = Param()
    model = Param()
    capital = Param()

    def _allocate(self) -> None:
        template = self.template
        n = self.num_envs
        window = template.window
        assets = self._asset_shape()
        self._paths: NDArray[np.float64] = np.ones((n, window, *assets))
        self._log_returns: NDArray[np.float64] = np.zeros((n, window - 1, *assets))
        self._log_returns32: NDArray[np.float32] = np.zeros((n, window - 1, *assets), np.float32)
        # the observable windows: _windows32[i, t] is _log_returns32[i, t : t + lookback]
        self._windows = _windows(self._log_returns, template.episode_length + 1, template.lookback)
        self._windows32 = _windows(
            self._log_returns32, template.episode_length + 1, template.lookback
        )
        self._t: NDArray[np.int64] = np.zeros(n, np.int64)
        self._start: NDArray[np.int64] = np.zeros(n, np.int64)
        self._index = np.arange(n)
        self._path_rows = np.arange(n) * window + template.lookback
        history = template.history
        self._samplers = None if history is None else [template.sampler.spawn() for _ in range(n)]
        self._started = False

    @property
    def sampler(self) -> NDArray[np.object_]:
        """Object array of each sub-env's episode sampler: its own ``spawn()`` of the single
        env's with a history, the single env's (unused) in a simulated market."""
        samplers = np.empty(self.num_envs, dtype=object)
        for i in range(self.num_envs):
            samplers[i] = self.template.sampler if self._samplers is None else self._samplers[i]
        return samplers

    def _asset_shape(self) -> tuple[int, ...]:
        """Trailing shape of one price row: ``()`` or ``(n_assets,)``."""
        raise NotImplementedError

    def _simulate(self, count: int) -> NDArray[np.float64]:
        """``count`` simulated windows ``(count, window, *assets)``."""
        raise NotImplementedError

    def _reset_windows(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        """New windows (history or simulation) for the sub-envs in ``indices``."""
        if any(isinstance(option, Mapping) and "end" in option for option in options):
            raise ValueError(
                "the 'end' option sets one episode's length; the sub-envs of a vector env "
                "share episode_length. Run a single env (sekai.make) for such an episode."
            )
        check_reset_options_each(self, options, ("start", *self._reset_option_names))
        template = self.template
        history = template.history
        starts = [None if not option else option.get("start") for option in options]
        if history is None:
            if any(start is not None for start in starts):
                raise ValueError(
                    "the 'start' option needs historical prices; this market is simulated."
                )
            self._store_simulated(indices)
        else:
            assert self._samplers is not None
            lookback, episode_length = template.lookback, template.episode_length
            first = np.array(
                [
                    choose_start(
                        start, history, self._samplers[i], self.rng, lookback, episode_length
                    )
                    for i, start in zip(indices.tolist(), starts, strict=True)
                ],
                dtype=np.int64,
            )
            self._start = replace_rows(self._start, indices, first)
            rows = first[:, None] + np.arange(template.window)
            squeeze = () if self._asset_shape() else (slice(None), slice(None), 0)
            paths = history.prices[rows][squeeze]
            log_returns = history.log_returns[rows[:, :-1]][squeeze]
            log_returns32 = history.log_returns32[rows[:, :-1]][squeeze]
            self._paths[indices] = paths
            self._log_returns[indices] = log_returns
            self._log_returns32[indices] = log_returns32
        self._t = replace_rows(self._t, indices, 0)
        self._started = True
        if len(indices) == self.num_envs:
            template.reward_fn.reset()
        else:
            mask = np.zeros(self.num_envs, bool)
            mask[indices] = True
            template.reward_fn.reset(mask)

    def _store_simulated(self, indices: NDArray[np.intp]) -> None:
        """Simulate new windows for ``indices`` and store them with their log returns
        ``diff(log(paths))``."""
        paths = self._simulate(len(indices))
        self._paths[indices] = paths
        logs = np.log(paths, out=paths)
        log_returns = logs[:, 1:] - logs[:, :-1]
        if len(indices) == self.num_envs:  # all of them, in order: no fancy indexing
            self._log_returns[...] = log_returns
            self._log_returns32[...] = log_returns
        else:
            self._log_returns[indices] = log_returns
            self._log_returns32[indices] = log_returns

    def _observed_windows(self) -> NDArray[np.float32]:
        """Each sub-env's observed log returns, ``(N, lookback, *assets)`` float32 (new)."""
        t = self._t
        first = int(t[0])
        if (t == first).all():  # every sub-env at the same step: one slice, no gather
            return self._log_returns32[:, first : first + self.template.lookback].copy()
        return self._windows32[self._index, t]

    def _decision_steps(self) -> NDArray[np.int64]:
        """Each sub-env's step counter, frozen ones kept inside the window."""
        if self.active is not None:
            return np.minimum(self._t, self.template.episode_length - 1)
        return self._t

    def _timestamps(self, t: NDArray[np.int64]) -> NDArray[Any]:
        history = self.template.history
        if history is None:
            return t
        return history.timestamps.take(self._start + self.template.lookback + t)

    def _cost_context(self, equity: NDArray[np.float64], t: NDArray[np.int64]) -> dict[str, Any]:
        """Context of ``cost_model`` at each decision row (only the keys it requires)."""
        template = self.template
        requires = template.cost_model.requires
        context: dict[str, Any] = {}
        if not requires:
            return context
        if "equity" in requires:
            context["equity"] = template.capital * equity
        if "volatility" in requires:
            context["volatility"] = self._volatility_context(t)
        if template.history is not None:
            row = self._start + template.lookback + t
            add_history_context(context, template.history, row, requires)
        return context

    def _volatility_context(self, t: NDArray[np.int64]) -> NDArray[np.float64]:
        """Each sub-env's return volatility over its window at step ``t``: ``(N, assets)``."""
        std: NDArray[np.float64] = self._windows[self._index, t].std(axis=1)
        return std.reshape(self.num_envs, -1)

    def _check_started(self) -> None:
        """``ResetRequired`` before the first ``reset()`` (no episode windows yet)."""
        if not self._started:
            raise ResetRequired("This needs an episode: call reset() first.")

    @property
    def timestamp(self) -> NDArray[Any]:
        """Time of each sub-env's decision row: data timestamps, or step indices if simulated."""
        self._check_started()
        return self._timestamps(self._t)

    @property
    def price_history(self) -> NDArray[np.object_]:
        """Object array of each sub-env's prices up to its decision row (copies)."""
        self._check_started()
        result = np.empty(self.num_envs, dtype=object)
        stop = self.template.lookback + 1
        for i, t in enumerate(self._t.tolist()):
            result[i] = self._paths[i, : stop + t].copy()
        return result

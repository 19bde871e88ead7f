"""Price sources, episode windows and costs of the windowed finance envs, and their base.

A windowed env (Trading-v0, Portfolio-v0, Market-v0) trades ``episode_length`` steps on a
window of ``window = lookback + episode_length + 1`` price rows, taken from a history
(``prices=`` or ``data=``) or simulated afresh at every reset (``model=`` or the env's own
GBM).
"""

from __future__ import annotations

import copy
import numbers
from collections.abc import Collection
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core.env import Env
from sekai.envs.finance._checks import check_float
from sekai.envs.finance._log import EpisodeLog
from sekai.envs.finance.windowed.config import WindowConfig, cost_model_of
from sekai.error import ResetRequired
from sekai.finance.costs import CostModel
from sekai.finance.data import MarketData, pandas_io, row_of
from sekai.finance.rewards import LogReturn, RewardFunction
from sekai.finance.sampling import EpisodeSampler, resolve_start, sample_start
from sekai.finance.simulators import MarketModel

__all__ = [
    "RESET_OPTIONS",
    "History",
    "WindowedEnv",
    "add_history_context",
    "check_cost_inputs",
    "choose_start",
    "cost_model_of",
    "episode_span",
    "load_history",
    "real_sequence",
    "resolve_dt",
    "row_sum",
    "simulated_prices",
    "validate_prices",
]

Array = NDArray[np.float64]

_DEFAULT_DT = 1 / 252
#: The ``reset`` options of the single windowed envs: the first decision and the last row.
RESET_OPTIONS = ("start", "end")


def validate_prices(prices: Any, *, ndim: int, min_length: int) -> Array:
    """``prices`` as a read-only float64 array of ``ndim`` 1 or 2, else ``ValueError``.

    ``ndim=1`` squeezes a single-column 2-D input; ``ndim=2`` turns a 1-D input into one
    column. At least ``min_length`` rows, all finite and strictly positive.
    """
    try:
        array = np.array(prices, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"prices must be numeric, got {type(prices).__name__}.") from exc
    if ndim == 1 and array.ndim == 2 and array.shape[1] == 1:
        array = array[:, 0]
    elif ndim == 2 and array.ndim == 1:
        array = array[:, None]
    if array.ndim != ndim:
        wanted = "1-D (one asset)" if ndim == 1 else "2-D (rows, assets)"
        raise ValueError(f"prices must be {wanted}, got shape {array.shape}.")
    if len(array) < min_length:
        raise ValueError(
            f"prices have {len(array)} rows; an episode window needs at least {min_length} "
            "(lookback + episode_length + 1)."
        )
    if not np.isfinite(array).all():
        raise ValueError("prices contain NaN or inf.")
    if not (array > 0).all():
        raise ValueError("prices must be strictly positive.")
    array.setflags(write=False)
    return array


def row_sum(x: NDArray[np.float64]) -> Any:
    """``x.sum(axis=-1)``, computed the same way for one row and for a batch (bit-identical).

    Below 8 entries the row is added left to right, column by column: faster than NumPy's
    reduction of a short last axis, and the same for a 1-D row and each row of a batch.
    """
    n = x.shape[-1]
    if not 1 < n < 8:
        return x.sum(axis=-1)
    total = x[..., 0] + x[..., 1]
    for j in range(2, n):
        total += x[..., j]
    return total


class History:
    """A price panel to cut episode windows from (NaN prices only where the env allows them).

    ``data`` is the ``MarketData`` (built from a raw array too), ``prices`` its ``(T, n)``
    prices, ``log_returns`` (``(T-1, n)`` float64) and ``log_returns32`` (float32) the log
    returns of consecutive rows, ``stamps`` one Python (numeric) or NumPy (datetime) value per
    row, ``n_starts`` the number of window starts.
    """

    def __init__(self, data: MarketData, window: int) -> None:
        self.data = data
        self.prices: Array = data.prices
        self.timestamps: NDArray[Any] = data.timestamps
        self.warmup = data.warmup
        self.n_starts = len(data) - window + 1
        log_returns = np.diff(np.log(self.prices), axis=0)
        self.log_returns: Array = log_returns
        self.log_returns32: NDArray[np.float32] = log_returns.astype(np.float32)
        stamps = self.timestamps
        self.stamps: list[Any] = list(stamps) if stamps.dtype.kind == "M" else stamps.tolist()

    def field(self, name: str) -> Array | None:
        """The ``(T, n)`` field ``name``, or None if the data has none."""
        return self.data.fields.get(name)


def _frame_panel(prices: Any) -> MarketData:
    """A pandas or polars object as ``MarketData.from_pandas`` reads it; an index of numbers
    (row numbers or others) or of labels (text of which nothing reads as a date) is numbered
    ``0..T-1``."""
    frame = pandas_io.as_pandas(prices)
    if pandas_io.is_numeric_index(frame.index) or pandas_io.is_label_index(frame.index):
        frame = frame.reset_index(drop=True)
    return MarketData.from_pandas(frame)


def _missing_prices(data: MarketData, ndim: int) -> ValueError:
    """The error for a panel with missing prices in an env that needs them all."""
    rows, columns = np.nonzero(~data.mask)
    stamp = data.timestamps[rows[0]]
    when = np.datetime_as_string(stamp, unit="auto") if data.is_datetime else f"row {stamp}"
    env = "Trading-v0" if ndim == 1 else "Portfolio-v0"
    return ValueError(
        f"the data has {len(rows)} missing (NaN) prices, the first at {when} (asset "
        f"{data.assets[columns[0]]!r}); {env} needs a price at every row. Carry the last "
        "price over holidays and gaps with prices.ffill(), or drop those rows with "
        "prices.dropna(); Market-v0 trades a changing universe, a NaN price meaning not listed."
    )


def load_history(
    prices: Any, data: Any, model: Any, *, ndim: int, window: int, complete: bool = True
) -> tuple[MarketData | None, History | None]:
    """Check the price sources; return ``(data attribute, history)`` (both None if simulated).

    At most one of ``prices`` (raw array, pandas or polars), ``data`` (``MarketData``) and
    ``model`` (``MarketModel``). A pandas or polars object becomes the ``MarketData`` that
    ``MarketData.from_pandas`` reads (dates from a ``DatetimeIndex``, an index of date text
    or a polars time column), an index of numbers or labels numbered ``0..T-1``; raw arrays
    are validated by ``validate_prices`` and give no data attribute. ``complete=False``
    accepts missing (unlisted, NaN) prices, in raw arrays too.
    """
    sources = (("prices", prices), ("data", data), ("model", model))
    given = [name for name, value in sources if value is not None]
    if len(given) > 1:
        raise ValueError(f"give at most one price source, got {' and '.join(given)}.")
    if isinstance(prices, MarketData):
        raise TypeError("a MarketData goes in data=, not prices=.")
    if data is not None and not isinstance(data, MarketData):
        raise TypeError(
            f"data must be a MarketData, got {type(data).__name__}; a raw array or a pandas "
            "or polars frame goes in prices=."
        )
    if model is not None and not isinstance(model, MarketModel):
        raise TypeError(f"model must be a MarketModel, got {type(model).__name__}.")
    if prices is None and data is None:
        return None, None
    public: MarketData | None = data
    if prices is not None:
        if not pandas_io.is_frame(prices):
            if complete:
                panel = MarketData(validate_prices(prices, ndim=ndim, min_length=window))
            else:
                panel = MarketData(prices)
            _check_length(panel, window)
            return None, History(panel, window)
        public = _frame_panel(prices)
    assert public is not None
    _check_length(public, window)
    if complete and not public.mask.all():
        raise _missing_prices(public, ndim)
    if ndim == 1 and public.n_assets != 1:
        raise ValueError(
            f"Trading-v0 trades one asset (1-D prices), the data has {public.n_assets} "
            f"({list(public.assets)[:5]}); pick one column (prices[column], "
            "data.select([asset])) or trade them all with Portfolio-v0."
        )
    return public, History(public, window)


def _check_length(data: MarketData, window: int) -> None:
    if len(data) < window:
        raise ValueError(
            f"the data has {len(data)} rows; an episode window needs at least {window} "
            "(lookback + episode_length + 1)."
        )


def resolve_dt(dt: Any, *, model: MarketModel | None, history: History | None) -> float:
    """Years per step: ``dt``, else ``model.dt``, else ``1/periods_per_year``, else 1/252."""
    if dt is not None:
        return check_float(dt, "dt", low=0.0, low_open=True)
    if model is not None:
        return float(model.dt)
    if history is not None and history.data.periods_per_year is not None:
        return 1.0 / history.data.periods_per_year
    return _DEFAULT_DT


def add_history_context(
    context: dict[str, Any], history: History, row: Any, requires: Collection[str]
) -> None:
    """Add the ``volume`` (traded value) and ``spread`` at ``row`` of ``history`` that a cost
    model ``requires`` to its ``context``."""
    if "volume" in requires:
        volume = history.field("volume")
        assert volume is not None
        context["volume"] = volume[row] * history.prices[row]
    if "spread" in requires:
        spread = history.field("spread")
        assert spread is not None
        context["spread"] = np.take(spread, row, axis=0)  # a new array, never a view


def check_cost_inputs(cost_model: CostModel, history: History | None, lookback: int) -> None:
    """Refuse a cost model whose required inputs the market cannot provide."""
    requires = cost_model.requires
    for key in ("volume", "spread"):
        if key in requires and (history is None or history.field(key) is None):
            raise ValueError(
                f"{cost_model!r} needs the {key!r} field of a MarketData (data=...); "
                "this market has none."
            )
    if "volatility" in requires and lookback < 2:
        raise ValueError(f"{cost_model!r} needs a volatility, which needs lookback >= 2.")


def simulated_prices(
    model: MarketModel, rng: np.random.Generator, n_steps: int, n_paths: int | None = None
) -> Array:
    """``model.simulate(rng, n_steps[, n_paths]).prices``; an unlisted asset -> ``ValueError``."""
    simulation = model.simulate(rng, n_steps, n_paths=n_paths)
    if simulation.mask is not None and not simulation.mask.all():
        raise ValueError(
            f"{model!r} unlisted an asset; this env needs every asset listed throughout "
            "(Market-v0 trades a changing universe)."
        )
    return simulation.prices


class WindowedEnv(Env[Any, Any]):
    """Base of the envs trading one price window per episode (history or simulation).

    Subclasses call ``_setup`` with their ``WindowConfig`` in ``__init__`` and
    ``_start_episode(options)`` in ``reset``,
    then fill the episode arrays from ``_path`` (``(window,)`` or ``(window, n)``).
    """

    _ndim: int
    #: Whether ``data`` must be a complete panel (no missing prices).
    _complete_panel = True

    def _setup(self, *, prices: Any, data: Any, model: Any, config: WindowConfig) -> None:
        """Load the market (``prices``, ``data`` or ``model``) and apply ``config``."""
        self._episode_length = config.episode_length
        self._lookback = config.lookback
        self._window = config.window
        self.data, self._history = load_history(
            prices, data, model, ndim=self._ndim, window=self._window, complete=self._complete_panel
        )
        self.model: MarketModel | None = model
        self.transaction_cost = config.transaction_cost
        self.cost_model: CostModel = config.cost_model
        check_cost_inputs(self.cost_model, self._history, self._lookback)
        self.capital = config.capital
        self.dt = resolve_dt(config.dt, model=model, history=self._history)
        self.sampler: EpisodeSampler = config.sampler
        self.reward_fn = LogReturn() if config.reward is None else config.reward
        self.elapsed_steps = 0
        self._start = 0
        self._steps = self._episode_length
        self._started = False
        self._done = False
        self._log = EpisodeLog()

    @property
    def episode_length(self) -> int:
        """Steps per episode (read-only)."""
        return self._episode_length

    @property
    def window(self) -> int:
        """Price rows of an episode window, ``lookback + episode_length + 1`` (read-only)."""
        return self._window

    @property
    def history(self) -> History | None:
        """The price panel episode windows are cut from; None for a simulated market."""
        return self._history

    @property
    def lookback(self) -> int:
        """Past log returns in each observation (read-only)."""
        return self._lookback

    @property
    def reward_fn(self) -> RewardFunction:
        """The reward function (assigning stores a deep copy)."""
        return self._reward_fn

    @reward_fn.setter
    def reward_fn(self, value: RewardFunction) -> None:
        if not isinstance(value, RewardFunction):
            raise TypeError(f"reward must be a RewardFunction, got {value!r}.")
        self._reward_fn = copy.deepcopy(value)

    @property
    def prices(self) -> Array | None:
        """The price history (``(T,)`` for one asset, ``(T, n)`` for several), or None."""
        if self._history is None:
            return None
        prices = self._history.prices
        return prices[:, 0] if self._ndim == 1 else prices

    def _check_started(self) -> None:
        if not self._started:
            raise ResetRequired("This needs an episode: call reset() first.")

    @property
    def timestamp(self) -> Any:
        """Time of the current decision: a data timestamp, or the step index if simulated."""
        self._check_started()
        return self._stamp(self.elapsed_steps)

    def _stamp(self, t: int) -> Any:
        history = self._history
        if history is None:
            return t
        return history.stamps[self._start + self._lookback + t]

    @property
    def price_history(self) -> Array:
        """Prices of the window up to the current decision row (a copy)."""
        self._check_started()
        path: Array = self._path
        return path[: self._lookback + self.elapsed_steps + 1].copy()

    def _simulate(self) -> Array:
        """A new simulated window of prices (``(window,)`` or ``(window, n)``)."""
        raise NotImplementedError

    def _start_episode(self, options: dict[str, Any] | None) -> None:
        """Choose the window (``start`` and ``end`` options, sampler or simulation) and set
        ``_path``; the episode takes ``_steps`` steps (``episode_length`` without ``end``)."""
        history = self._history
        option = None if options is None else options.get("start")
        end = None if options is None else options.get("end")
        self._steps = self._episode_length
        if history is None:
            if option is not None or end is not None:
                name = "start" if option is not None else "end"
                raise ValueError(
                    f"the {name!r} option needs historical prices; this market is simulated."
                )
            self._path: Array = self._simulate()
            self._log_returns: Array = np.diff(np.log(self._path), axis=0)
            self._log_returns32 = self._log_returns.astype(np.float32)
        else:
            if end is None:
                start = choose_start(
                    option, history, self.sampler, self.rng, self._lookback, self._episode_length
                )
            else:
                start, self._steps = episode_span(
                    option, end, history, self.sampler, self.rng, self._lookback,
                    self._episode_length,
                )  # fmt: skip
            self._start = start
            stop = start + self._lookback + self._steps + 1
            prices = history.prices[start:stop]
            self._path = prices[:, 0] if self._ndim == 1 else prices
            log_returns, log_returns32 = history.log_returns, history.log_returns32
            if self._ndim == 1:
                self._log_returns = log_returns[start : stop - 1, 0]
                self._log_returns32 = log_returns32[start : stop - 1, 0]
            else:
                self._log_returns = log_returns[start : stop - 1]
                self._log_returns32 = log_returns32[start : stop - 1]
        self._reward_fn.reset()
        self.elapsed_steps = 0
        self._started = True
        self._done = False

    def _volatility(self, t: int) -> Array:
        """Per-asset population std of the log returns observed at step ``t``."""
        window = self._log_returns[t : t + self._lookback]
        return np.reshape(window.std(axis=0), -1)

    def _cost_context(self, equity: float) -> dict[str, Any]:
        """The context of ``cost_model`` at the current decision row (required keys only)."""
        requires = self.cost_model.requires
        context: dict[str, Any] = {}
        if not requires:
            return context
        t = self.elapsed_steps
        if "equity" in requires:
            context["equity"] = self.capital * equity
        if "volatility" in requires:
            context["volatility"] = self._volatility(t)
        if self._history is not None:
            row = self._start + self._lookback + t
            add_history_context(context, self._history, row, requires)
        return context


def choose_start(
    option: Any,
    history: History,
    sampler: EpisodeSampler,
    rng: np.random.Generator,
    lookback: int,
    episode_length: int,
) -> int:
    """Window start: from a ``start`` option (first decision row or timestamp) or ``sampler``."""
    if option is not None:
        return resolve_start(
            option,
            timestamps=history.timestamps,
            lookback=lookback,
            n_starts=history.n_starts,
            warmup=history.warmup,
        )
    return sample_start(
        sampler,
        rng,
        n_starts=history.n_starts,
        episode_length=episode_length,
        lookback=lookback,
        warmup=history.warmup,
    )


def episode_span(
    option: Any,
    end: Any,
    history: History,
    sampler: EpisodeSampler,
    rng: np.random.Generator,
    lookback: int,
    episode_length: int,
) -> tuple[int, int]:
    """``(window start, steps)`` of an episode from its first decision (the ``start`` option,
    any row with a row after it, else the sampler's) to the row ``end`` names: an int row
    (negative from the end), or the last row at or before a timestamp."""
    stamps = history.timestamps
    n_rows = len(stamps)
    if option is None:
        start = choose_start(None, history, sampler, rng, lookback, episode_length)
    else:
        start = resolve_start(
            option,
            timestamps=stamps,
            lookback=lookback,
            n_starts=n_rows - lookback - 1,
            warmup=history.warmup,
        )
    first = start + lookback
    if isinstance(end, (int, np.integer)) and not isinstance(end, (bool, np.bool_)):
        last = row_of(stamps, end, what="the 'end' option")
    else:
        last = row_of(stamps, end, side="right", what="the 'end' option") - 1
    if not first < last < n_rows:
        raise ValueError(
            f"the 'end' option {end!r} names row {last}; it must be after the first decision "
            f"(row {first}, {history.stamps[first]}) and at most the last row ({n_rows - 1})."
        )
    return start, last - first


def real_sequence(values: Any, name: str) -> Array:
    """``values`` as a read-only 1-D float64 array of finite numbers, else ``ValueError``."""
    if isinstance(values, (str, bytes)) or np.ndim(values) != 1:
        raise ValueError(f"{name} must be a sequence of numbers, got {values!r}.")
    items = list(values)
    if not all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in items):
        raise ValueError(f"{name} must hold real numbers, got {values!r}.")
    array = np.array(items, dtype=np.float64)
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite, got {values!r}.")
    array.setflags(write=False)
    return array

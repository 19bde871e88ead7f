"""Backtests: run a policy through a finance env and return its record as dated pandas objects.

On an env with price data (Trading-v0, Portfolio-v0, Market-v0 on a history) a backtest
covers the whole span of the data by default, from the first row a decision can use to the
last row, the same on every call; ``start`` and ``end`` cut a span of it, and
``window="episode"`` runs the env's own episodes instead (``episode_length`` steps from its
sampler's start). Its ``period`` says which dates it covers.

Every per-period quantity is indexed by the time its period ends (when its return is known,
the convention of quantstats, empyrical and pyfolio): ``returns[t]`` is earned over the period
ending at ``t`` by the weights ``positions.loc[t]`` chosen at the decision that opened it,
which paid ``costs.loc[t]``. ``equity`` has one more point, the initial value at the first
decision time.
"""

from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from sekai.core.env import Env
from sekai.core.wrapper import ActionWrapper, Wrapper
from sekai.finance.evaluation.holdings import holdings_of
from sekai.finance.metrics import PerformanceSummary, performance_summary
from sekai.finance.metrics.series import returns_from_equity
from sekai.utils.extras import missing_extra
from sekai.utils.progress import Progress
from sekai.utils.validation import check_choice, check_int

__all__ = ["WINDOWS", "Backtest", "backtest", "pandas"]

Array = NDArray[np.float64]
_REQUIRED = ("equity", "timestamp")
#: Values of ``backtest``'s ``window``: the span of the data, or the env's own episodes.
WINDOWS = ("all", "episode")


def pandas() -> Any:
    """The pandas module, or an ``ImportError`` naming the extra."""
    try:
        return importlib.import_module("pandas")
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(missing_extra("Backtests", "pandas", "pandas")) from exc


class Episode(NamedTuple):
    """The raw record of one backtested episode (NumPy and plain Python only)."""

    times: NDArray[Any]  # (n+1,): first decision time, then each period's end
    equity: Array  # (n+1,)
    weights: list[dict[str, float]]  # n target weights by column
    trades: list[dict[str, float]]  # n absolute trades by asset
    cost: Array  # (n,) cost of each period, a fraction of equity
    turnover: Array  # (n,)
    benchmark: Array | None  # (n+1,) equity of the benchmark, or None
    benchmark_label: str
    has_holdings: bool


def _index(pd: Any, times: NDArray[Any]) -> Any:
    if times.dtype.kind == "M":
        return pd.DatetimeIndex(times.astype("datetime64[ns]"), name="time")
    return pd.Index(times, name="time")


def _cost_frame(pd: Any, episode: Episode, index: Any) -> Any:
    """Each period's cost split over assets in proportion to the weight traded in each."""
    if not episode.has_holdings:
        return pd.DataFrame({"total": episode.cost}, index=index)
    trades = pd.DataFrame(episode.trades, index=index, dtype=np.float64).fillna(0.0)
    total = trades.sum(axis=1).to_numpy()
    share = np.divide(episode.cost, total, out=np.zeros_like(episode.cost), where=total > 0.0)
    return trades.mul(share, axis=0)


@dataclass(frozen=True, eq=False)
class Backtest:
    """A policy's record on a finance env: dated returns, equity, holdings and costs.

    With several episodes every series is indexed by ``(episode, time)``; ``episode(k)``
    gives episode ``k`` alone and ``summary`` covers every period of every episode.
    ``period`` is the span covered; ``str()`` prints it above the summary table.
    """

    returns: Any
    equity: Any
    positions: Any
    costs: Any
    turnover: Any
    benchmark: Any
    summary: PerformanceSummary
    periods_per_year: float
    episodes: tuple[Episode, ...]

    @property
    def n_episodes(self) -> int:
        """How many episodes were run."""
        return len(self.episodes)

    @property
    def period(self) -> tuple[Any, Any]:
        """``(first, last)``: the first decision time and the end of the last period, over
        every episode (pandas ``Timestamp`` on a dated axis, else numbers)."""
        first = min(episode.times[0] for episode in self.episodes)
        last = max(episode.times[-1] for episode in self.episodes)
        if self.episodes[0].times.dtype.kind == "M":
            pd = pandas()
            return pd.Timestamp(first), pd.Timestamp(last)
        return first.item(), last.item()

    def _period_text(self) -> str:
        first, last = self.period
        if self.episodes[0].times.dtype.kind != "M":
            return f"{first} .. {last}"
        ends = np.array([first.to_datetime64(), last.to_datetime64()], dtype="datetime64[ns]")
        daily = bool((ends == ends.astype("datetime64[D]")).all())
        start, stop = np.datetime_as_string(ends, unit="D" if daily else "m")
        return f"{start} .. {stop}"

    def episode(self, k: int) -> Backtest:
        """Episode ``k`` as a backtest of its own."""
        k = check_int(k, "k", low=-self.n_episodes, high=self.n_episodes - 1)
        return _assemble([self.episodes[k]], self.periods_per_year)

    def to_frame(self) -> Any:
        """One row per period: return, equity, turnover, cost, benchmark and weights."""
        pd = pandas()
        columns = {
            "return": self.returns,
            "equity": _period_ends(self.equity, self.n_episodes),
            "turnover": self.turnover,
            "cost": self.costs.sum(axis=1),
        }
        if self.benchmark is not None:
            columns["benchmark"] = _period_ends(self.benchmark, self.n_episodes)
        frame = pd.DataFrame(columns, index=self.returns.index)
        weights = self.positions.add_prefix("weight_")
        return pd.concat([frame, weights], axis=1)

    def plot(self, path: str | os.PathLike[str] | None = None, *, theme: str = "light") -> Any:
        """The one-page report as an RGB frame ``(H, W, 3)``; also a PNG when ``path`` is given."""
        from sekai.finance.evaluation.reports import backtest_frame

        return backtest_frame(self, path, theme=theme)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"Backtest(episodes={self.n_episodes}, periods={s.n_periods}, "
            f"{self._period_text()}, total_return={s.total_return:.2%}, "
            f"sharpe={s.sharpe_ratio:.3f})"
        )

    def __str__(self) -> str:
        rows = [("period", self._period_text())]
        if self.n_episodes > 1:
            rows.append(("episodes", str(self.n_episodes)))
        rows.extend(self.summary.rows())
        label = max(len(name) for name, _ in rows)
        value = max(len(text) for _, text in rows)
        return "\n".join(f"{name:<{label}}  {text:>{value}}" for name, text in rows)


def _period_ends(series: Any, n_episodes: int) -> Any:
    """A series of period boundaries without each episode's first point."""
    if n_episodes == 1:
        return series.iloc[1:]
    return series.groupby(level="episode", group_keys=False).apply(lambda s: s.iloc[1:])


def _assemble(episodes: Sequence[Episode], periods_per_year: float) -> Backtest:
    pd = pandas()
    parts: dict[str, list[Any]] = {k: [] for k in ("r", "e", "w", "c", "t", "b")}
    for episode in episodes:
        points = _index(pd, episode.times)
        ends = points[1:]
        parts["r"].append(
            pd.Series(returns_from_equity(episode.equity), index=ends, name="returns")
        )
        parts["e"].append(pd.Series(episode.equity, index=points, name="equity"))
        weights = pd.DataFrame(episode.weights, index=ends, dtype=np.float64).fillna(0.0)
        if "cash" in weights.columns:
            weights = weights[[*weights.columns.drop("cash"), "cash"]]
        parts["w"].append(weights)
        parts["c"].append(_cost_frame(pd, episode, ends))
        parts["t"].append(pd.Series(episode.turnover, index=ends, name="turnover"))
        if episode.benchmark is not None:
            parts["b"].append(
                pd.Series(episode.benchmark, index=points, name=episode.benchmark_label)
            )
    single = len(episodes) == 1

    def join(items: list[Any]) -> Any:
        if single:
            return items[0]
        joined = pd.concat(items, keys=range(len(items)), names=["episode", "time"])
        return joined.fillna(0.0) if isinstance(joined, pd.DataFrame) else joined

    returns = join(parts["r"])
    costs = join(parts["c"])
    turnover = join(parts["t"])
    summary = performance_summary(
        returns.to_numpy(),
        periods_per_year,
        turnover=turnover.to_numpy(),
        costs=costs.sum(axis=1).to_numpy(),
    )
    benchmark = join(parts["b"]) if len(parts["b"]) == len(episodes) else None
    return Backtest(
        returns=returns,
        equity=join(parts["e"]),
        positions=join(parts["w"]),
        costs=costs,
        turnover=turnover,
        benchmark=benchmark,
        summary=summary,
        periods_per_year=periods_per_year,
        episodes=tuple(episodes),
    )


# -- running ------------------------------------------------------------------------------


def _actor(policy: Any, env: Any, deterministic: bool) -> Callable[[Any], Any]:
    """``obs -> action`` for a callable or an object with SB3's ``predict``."""
    predict = getattr(policy, "predict", None)
    if predict is None:
        if callable(policy):
            return policy
        raise TypeError(
            "policy must be a callable obs -> action or have predict(obs) (as SB3 models "
            f"do), got {type(policy).__name__}."
        )
    try:
        takes_masks = "action_masks" in inspect.signature(predict).parameters
    except (TypeError, ValueError):
        takes_masks = False
    mask = getattr(env.unwrapped, "action_mask", None)
    if takes_masks and callable(mask):
        return lambda obs: predict(obs, deterministic=deterministic, action_masks=mask())[0]
    return lambda obs: predict(obs, deterministic=deterministic)[0]


def _inner_action(env: Any, action: Any) -> Any:
    """``action`` as the unwrapped env receives it, through every ``ActionWrapper``."""
    layer = env
    while isinstance(layer, Wrapper):
        if isinstance(layer, ActionWrapper):
            action = layer.action(action)
        layer = layer.env
    return action


def _check_info(info: Any, where: str) -> None:
    missing = [key for key in _REQUIRED if key not in info]
    if missing:
        raise ValueError(
            f"backtest() needs an env whose infos report {list(_REQUIRED)} (Trading-v0, "
            f"Portfolio-v0, Market-v0 or an env of your own); the {where} info lacks "
            f"{missing} (it has {sorted(info)})."
        )


def _benchmark(env: Any, n_points: int) -> tuple[Array | None, str]:
    """Equal-weight buy and hold of the env's assets over the episode, when it has prices."""
    try:
        prices = np.asarray(env.price_history, dtype=np.float64)[int(env.lookback) :]
    except (AttributeError, TypeError, ValueError):
        return None, ""
    if prices.shape[0] != n_points:
        return None, ""
    if prices.ndim == 1:
        return prices / prices[0], "buy & hold"
    if np.isfinite(prices).all():
        return (prices / prices[0]).mean(axis=1), "equal-weight buy & hold"
    growth = prices[1:] / prices[:-1]
    listed = np.isfinite(growth)
    counts = listed.sum(axis=1)
    mean = np.where(listed, growth, 0.0).sum(axis=1) / np.maximum(counts, 1)
    steps = np.where(counts > 0, mean, 1.0)
    return np.concatenate([[1.0], np.cumprod(steps)]), "equal weight (listed assets)"


def _run_episode(
    env: Any,
    act: Callable[[Any], Any],
    seed: Any,
    options: dict[str, Any] | None,
    bar: Progress,
) -> tuple[Episode, float | None]:
    obs, info = env.reset(seed=seed, options=options)
    _check_info(info, "reset")
    base = env.unwrapped
    holdings = holdings_of(base)
    times = [info["timestamp"]]
    equity = [float(info["equity"])]
    weights: list[dict[str, float]] = []
    trades: list[dict[str, float]] = []
    cost: list[float] = []
    turnover: list[float] = []
    dt = info.get("dt")
    done = False
    while not done:
        action = act(obs)
        held, traded = ({}, {}) if holdings is None else holdings.decide(_inner_action(env, action))
        obs, _, terminated, truncated, info = env.step(action)
        _check_info(info, "step")
        times.append(info["timestamp"])
        equity.append(float(info["equity"]))
        weights.append(held)
        trades.append(traded)
        cost.append(float(info.get("cost", 0.0)))
        turnover.append(float(info.get("turnover", 0.0)))
        done = bool(terminated or truncated)
        bar.update(1)
    benchmark, label = _benchmark(base, len(times))
    episode = Episode(
        times=np.array(times),
        equity=np.array(equity),
        weights=weights,
        trades=trades,
        cost=np.array(cost),
        turnover=np.array(turnover),
        benchmark=benchmark,
        benchmark_label=label,
        has_holdings=holdings is not None,
    )
    return episode, None if dt is None else float(dt)


def _episode_options(
    env: Any, start: Any, end: Any, window: str
) -> tuple[dict[str, Any] | None, int | None]:
    """The ``reset`` options of each episode, and its steps when they are known."""
    base = env.unwrapped
    length = getattr(base, "episode_length", None)
    steps = length if isinstance(length, int) else None
    history = getattr(base, "history", None)
    stamps = getattr(history, "timestamps", None)
    warmup = int(getattr(history, "warmup", 0))
    if window == "episode":
        if end is not None:
            raise ValueError(
                f"end={end!r} cuts a span of the data; window='episode' runs the env's own "
                "episodes (episode_length steps each): drop end= or use window='all'."
            )
        return (None if start is None else {"start": start}), steps
    if stamps is None:  # a simulated market, or an env of one's own: its own episodes
        options = {
            key: value for key, value in (("start", start), ("end", end)) if value is not None
        }
        return options or None, None if end is not None else steps
    first = max(int(base.lookback), warmup) if start is None else start
    last = len(stamps) - 1 if end is None else end
    rows = [row + len(stamps) if row < 0 else row for row in (first, last) if _is_row(row)]
    steps = rows[1] - rows[0] if len(rows) == 2 and rows[1] > rows[0] else None
    return {"start": first, "end": last}, steps


def _is_row(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def backtest(
    env: Env[Any, Any],
    policy: Any,
    *,
    episodes: int = 1,
    seed: int | None = None,
    start: Any = None,
    end: Any = None,
    window: str = "all",
    deterministic: bool = True,
    periods_per_year: float | None = None,
    progress: bool = True,
) -> Backtest:
    """Run ``policy`` for ``episodes`` episodes of ``env`` and record every period.

    ``window="all"`` (default): on an env with price data each episode covers the data from
    ``start`` (the first decision: a row or a time; default the first row a decision can use)
    to ``end`` (the last row, or the last at or before a time; default the last row),
    whatever the env's ``episode_length``; other envs run their own episodes, ``start`` and
    ``end`` given to ``reset`` as options when set. ``window="episode"``: the env's own
    episodes, ``start`` fixing each one's first decision (else its sampler chooses).
    ``policy`` is a callable ``obs -> action`` or has SB3's ``predict`` (called with
    ``deterministic``, and with ``action_masks`` when it takes them and the env has an
    ``action_mask``). ``seed`` seeds the first reset. ``periods_per_year`` defaults to
    ``1/dt`` of the env's infos, else 252. The env's infos must report ``equity`` and
    ``timestamp``. ``progress`` draws a bar over the steps on a terminal.
    """
    if not isinstance(env, Env):
        raise TypeError(f"env must be a sekai Env, got {type(env).__name__}.")
    episodes = check_int(episodes, "episodes", low=1)
    check_choice(window, "window", WINDOWS)
    act = _actor(policy, env, bool(deterministic))
    options, steps = _episode_options(env, start, end, window)
    records: list[Episode] = []
    dt: float | None = None
    total = None if steps is None else episodes * steps
    with Progress(total, "backtest", enabled=progress) as bar:
        for k in range(episodes):
            record, dt = _run_episode(env, act, seed if k == 0 else None, options, bar)
            records.append(record)
    if periods_per_year is None:
        periods_per_year = 252.0 if dt is None or dt <= 0.0 else 1.0 / dt
    return _assemble(records, float(periods_per_year))

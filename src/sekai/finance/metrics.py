"""Performance metrics of return and P&L series, their summaries, and a wrapper recording them.

Metric functions take 1-D simple returns per period. Wipe-out convention: equity is floored
at 0 forever after the first cumulative product ``<= 0``.

Zero-denominator convention, shared by every ratio (Sharpe, Sortino, Calmar and the Sharpe
ratio of ``pnl_summary``): when the dispersion (std, downside deviation or drawdown) is 0, the
ratio is ``+inf`` or ``-inf`` by the sign of its numerator, and ``0.0`` when the numerator is 0.
"""

from __future__ import annotations

import math
import numbers
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._types import ActType, ObsType
from sekai.core.env import Env
from sekai.core.result import ResetResult, StepResult
from sekai.core.wrapper import _ResultWrapper

__all__ = [
    "PerformanceSummary",
    "PnLSummary",
    "RecordPerformance",
    "annualized_return",
    "annualized_volatility",
    "calmar_ratio",
    "conditional_value_at_risk",
    "drawdown_series",
    "equity_curve",
    "hit_rate",
    "max_drawdown",
    "performance_summary",
    "pnl_summary",
    "returns_from_equity",
    "sharpe_ratio",
    "sortino_ratio",
    "total_return",
    "value_at_risk",
]

Array = NDArray[np.float64]

# Relative tolerance, in units of the values' magnitude, below which a standard deviation or
# a difference is rounding noise rather than signal.
_TOL = 16.0 * float(np.finfo(np.float64).eps)


# -- validation ---------------------------------------------------------------------------


def _series(values: ArrayLike, name: str) -> Array:
    """``values`` as a 1-D, non-empty, finite float64 array, else ``ValueError`` naming ``name``.

    Non-numeric input (strings, bools, None or other objects) is refused with ``ValueError``
    too, so a caller catches a single exception type for any bad series.
    """
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-D sequence of real numbers: {exc}") from exc
    if arr.dtype.kind == "O":
        arr = _object_reals(arr, name)
    elif arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must hold real numbers, got an array of dtype {arr.dtype}.")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}.")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty.")
    arr = arr.astype(np.float64, copy=False)
    finite = np.isfinite(arr)
    if not finite.all():
        index = int(np.flatnonzero(~finite)[0])
        raise ValueError(f"{name} must be finite, got {arr[index]} at index {index}.")
    return arr


def _object_reals(arr: NDArray[Any], name: str) -> Array:
    """An object array of real numbers (not bools) as float64, else ``ValueError``."""
    for item in arr.flat:
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, numbers.Real):
            raise ValueError(f"{name} must hold real numbers, got {type(item).__name__} {item!r}.")
    return arr.astype(np.float64)


def _real(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}.")
    return float(value)


def _finite(value: Any, name: str) -> float:
    x = _real(value, name)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x}.")
    return x


def _positive(value: Any, name: str) -> float:
    x = _real(value, name)
    if not (math.isfinite(x) and x > 0.0):
        raise ValueError(f"{name} must be finite and > 0, got {x}.")
    return x


def _level(value: Any) -> float:
    x = _real(value, "level")
    if not 0.0 < x < 1.0:
        raise ValueError(f"level must be in (0, 1), got {x}.")
    return x


# -- shared pieces ------------------------------------------------------------------------


def _growth(r: Array) -> Array:
    g = np.empty(r.size + 1)
    g[0] = 1.0
    np.cumprod(1.0 + r, out=g[1:])
    wiped = np.flatnonzero(g <= 0.0)
    if wiped.size:
        g[wiped[0] :] = 0.0
    return g


def _std(x: Array, scale: float) -> float:
    """Sample std (ddof 1); 0 for one value or when within rounding of ``scale + max|x|``."""
    if x.size < 2:
        return 0.0
    sd = float(np.std(x, ddof=1))
    return 0.0 if sd <= _TOL * (scale + float(np.abs(x).max())) else sd


def _quotient(numerator: float, denominator: float) -> float:
    """``numerator / denominator``; for a zero denominator ±inf by the numerator's sign, or 0."""
    if denominator == 0.0:
        return 0.0 if numerator == 0.0 else math.copysign(math.inf, numerator)
    return numerator / denominator


def _excess(r: Array, hurdle: float) -> Array:
    e = r - hurdle
    e[np.abs(e) <= _TOL * (1.0 + np.abs(r) + abs(hurdle))] = 0.0
    return e


# -- metrics ------------------------------------------------------------------------------


def equity_curve(returns: ArrayLike, initial: float = 1.0) -> Array:
    """Equity ``(n+1,)`` from ``initial`` (> 0), compounding ``returns``; 0 after a wipe-out."""
    r = _series(returns, "returns")
    return _positive(initial, "initial") * _growth(r)


def returns_from_equity(equity: ArrayLike) -> Array:
    """Simple returns ``(n-1,)`` of an equity curve (at least 2 values, starting > 0).

    A first value ``<= 0`` is a wipe-out: that step returns -1, and every later value must be
    0 (``ValueError`` otherwise), each returning 0.
    """
    e = _series(equity, "equity")
    if e.size < 2:
        raise ValueError(f"equity needs at least 2 values, got {e.size}.")
    if e[0] <= 0.0:
        raise ValueError(f"equity must start > 0, got {e[0]}.")
    out = np.zeros(e.size - 1)
    wiped = np.flatnonzero(e <= 0.0)
    end = int(wiped[0]) if wiped.size else e.size
    after = e[end + 1 :]
    if after.any():
        index = end + 1 + int(np.flatnonzero(after)[0])
        raise ValueError(
            f"equity must stay 0 after a wipe-out: the value at index {end} is {e[end]}, "
            f"but index {index} holds {e[index]}."
        )
    out[: end - 1] = e[1:end] / e[: end - 1] - 1.0
    if wiped.size:
        out[end - 1] = -1.0
    return out


def total_return(returns: ArrayLike) -> float:
    """Final growth - 1 (at least -1)."""
    return float(_growth(_series(returns, "returns"))[-1] - 1.0)


def annualized_return(returns: ArrayLike, periods_per_year: float = 252) -> float:
    """Geometric mean return per year; -1 if any return is ``<= -1``, may be inf."""
    r = _series(returns, "returns")
    ppy = _positive(periods_per_year, "periods_per_year")
    if (r <= -1.0).any():
        return -1.0
    with np.errstate(over="ignore"):
        return float(np.expm1(np.log1p(r).sum() * ppy / r.size))


def annualized_volatility(returns: ArrayLike, periods_per_year: float = 252) -> float:
    """Sample std (ddof 1) times ``sqrt(periods_per_year)``; 0 for one or constant returns."""
    r = _series(returns, "returns")
    ppy = _positive(periods_per_year, "periods_per_year")
    return _std(r, 1.0) * math.sqrt(ppy)


def sharpe_ratio(
    returns: ArrayLike, periods_per_year: float = 252, risk_free: float = 0.0
) -> float:
    """Annualised Sharpe ratio over the yearly ``risk_free`` rate.

    Excess returns within rounding of 0 count as 0, and the std is 0 for one value or a
    series constant up to rounding. Zero std: ±inf by the sign of the mean excess, 0 if it is 0.
    """
    r = _series(returns, "returns")
    ppy = _positive(periods_per_year, "periods_per_year")
    e = _excess(r, _finite(risk_free, "risk_free") / ppy)
    return _quotient(float(e.mean()), _std(e, 1.0)) * math.sqrt(ppy)


def sortino_ratio(returns: ArrayLike, periods_per_year: float = 252, target: float = 0.0) -> float:
    """Annualised Sortino ratio over the yearly ``target`` rate.

    Excess returns within rounding of 0 count as 0. Zero downside deviation: inf when the mean
    excess return is > 0, 0 when it is 0 (it cannot be negative then).
    """
    r = _series(returns, "returns")
    ppy = _positive(periods_per_year, "periods_per_year")
    e = _excess(r, _finite(target, "target") / ppy)
    downside = math.sqrt(float(np.mean(np.minimum(e, 0.0) ** 2)))
    return _quotient(float(e.mean()), downside) * math.sqrt(ppy)


def drawdown_series(returns: ArrayLike) -> Array:
    """Drawdown ``(n+1,)`` in [0, 1]: the fall of equity from its running peak, as a fraction."""
    g = _growth(_series(returns, "returns"))
    return np.clip(1.0 - g / np.maximum.accumulate(g), 0.0, 1.0)


def max_drawdown(returns: ArrayLike) -> float:
    """Largest drawdown, in [0, 1]."""
    return float(drawdown_series(returns).max())


def calmar_ratio(returns: ArrayLike, periods_per_year: float = 252) -> float:
    """Annualised return over max drawdown; zero drawdown: ±inf by that return's sign, or 0."""
    return _quotient(annualized_return(returns, periods_per_year), max_drawdown(returns))


def value_at_risk(returns: ArrayLike, level: float = 0.95) -> float:
    """Historical VaR: minus the linear ``1 - level`` quantile (a loss is positive)."""
    r = _series(returns, "returns")
    # + 0.0 turns the -0.0 of a zero quantile into +0.0.
    return -float(np.quantile(r, 1.0 - _level(level))) + 0.0


def conditional_value_at_risk(returns: ArrayLike, level: float = 0.95) -> float:
    """Historical expected shortfall: minus the mean of the worst ``a·n`` returns (a loss is > 0).

    With ``a = 1 - level``, the ``floor(a·n)`` smallest returns count fully and the next one
    with weight ``a·n - floor(a·n)``, so ties at the cut-off count only as far as the tail
    needs them. An ``a·n`` within ``16·eps·n`` of a whole number >= 1 counts as that number.
    Never below ``value_at_risk(returns, level)``.
    """
    r = _series(returns, "returns")
    alpha = 1.0 - _level(level)
    n = r.size
    size = alpha * n
    whole = round(size)
    if whole >= 1 and abs(size - whole) <= _TOL * n:
        size = float(whole)
    full = min(math.floor(size), n)
    part = size - full
    worst = np.sort(r)
    tail = worst[:full].tolist()
    if part > 0.0:
        tail.append(part * float(worst[full]))
    shortfall = -(math.fsum(tail) / size) + 0.0
    var = -float(np.quantile(r, alpha)) + 0.0
    # Rounding can put the tail's mean a hair above the quantile; CVaR >= VaR must still hold.
    return max(var, shortfall)


def hit_rate(returns: ArrayLike) -> float:
    """Share of positive values among the non-zero ones (0 if all are zero)."""
    r = _series(returns, "returns")
    nonzero = r[r != 0.0]
    return float(np.count_nonzero(nonzero > 0.0) / nonzero.size) if nonzero.size else 0.0


# -- summaries ----------------------------------------------------------------------------


def _percent(x: float) -> str:
    return f"{x:.2%}"


def _ratio(x: float) -> str:
    return f"{x:.3f}"


def _amount(x: float) -> str:
    return f"{x:.4f}"


def _table(rows: list[tuple[str, str]]) -> str:
    label_width = max(len(label) for label, _ in rows)
    value_width = max(len(value) for _, value in rows)
    return "\n".join(f"{label:<{label_width}}  {value:>{value_width}}" for label, value in rows)


@dataclass(frozen=True, slots=True)
class PerformanceSummary:
    """Metrics of one return series; ``str()`` is a two-column table.

    Returns, volatility, drawdown, VaR, CVaR and hit rate are fractions (shown as %).
    """

    n_periods: int
    total_return: float
    annualized_return: float
    annualized_volatility: float
    sharpe_ratio: float
    sortino_ratio: float
    max_drawdown: float
    calmar_ratio: float
    value_at_risk: float
    conditional_value_at_risk: float
    hit_rate: float
    mean_turnover: float | None = None
    total_cost: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """Every field by name, in declaration order."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def __str__(self) -> str:
        rows = [
            ("periods", str(self.n_periods)),
            ("total return", _percent(self.total_return)),
            ("annualised return", _percent(self.annualized_return)),
            ("annualised volatility", _percent(self.annualized_volatility)),
            ("Sharpe ratio", _ratio(self.sharpe_ratio)),
            ("Sortino ratio", _ratio(self.sortino_ratio)),
            ("max drawdown", _percent(self.max_drawdown)),
            ("Calmar ratio", _ratio(self.calmar_ratio)),
            ("value at risk", _percent(self.value_at_risk)),
            ("conditional VaR", _percent(self.conditional_value_at_risk)),
            ("hit rate", _percent(self.hit_rate)),
        ]
        if self.mean_turnover is not None:
            rows.append(("mean turnover", _percent(self.mean_turnover)))
        if self.total_cost is not None:
            rows.append(("total cost", _percent(self.total_cost)))
        return _table(rows)


@dataclass(frozen=True, slots=True)
class PnLSummary:
    """Metrics of one P&L series (currency per period); ``str()`` is a two-column table.

    ``pnl_volatility`` is the per-period std; ``max_drawdown`` is in currency.
    """

    n_periods: int
    total_pnl: float
    mean_pnl: float
    pnl_volatility: float
    sharpe_ratio: float
    max_drawdown: float
    hit_rate: float

    def as_dict(self) -> dict[str, Any]:
        """Every field by name, in declaration order."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def __str__(self) -> str:
        return _table(
            [
                ("periods", str(self.n_periods)),
                ("total P&L", _amount(self.total_pnl)),
                ("mean P&L", _amount(self.mean_pnl)),
                ("P&L volatility", _amount(self.pnl_volatility)),
                ("Sharpe ratio", _ratio(self.sharpe_ratio)),
                ("max drawdown", _amount(self.max_drawdown)),
                ("hit rate", _percent(self.hit_rate)),
            ]
        )


def performance_summary(
    returns: ArrayLike,
    periods_per_year: float = 252,
    *,
    risk_free: float = 0.0,
    level: float = 0.95,
    turnover: ArrayLike | None = None,
    costs: ArrayLike | None = None,
) -> PerformanceSummary:
    """Every metric of ``returns``; ``risk_free`` is the hurdle of Sharpe and Sortino.

    ``turnover`` (averaged) and ``costs`` (summed) hold one value per period: their length
    must be that of ``returns`` (``ValueError`` otherwise).
    """
    r = _series(returns, "returns")
    mean_turnover = None if turnover is None else float(_per_period(turnover, "turnover", r).mean())
    total_cost = None if costs is None else float(_per_period(costs, "costs", r).sum())
    return _summary(
        r,
        periods_per_year,
        risk_free=risk_free,
        level=level,
        mean_turnover=mean_turnover,
        total_cost=total_cost,
    )


def _per_period(values: ArrayLike, name: str, returns: Array) -> Array:
    x = _series(values, name)
    if x.size != returns.size:
        raise ValueError(
            f"{name} must hold one value per period: expected length {returns.size} "
            f"(that of returns), got {x.size}."
        )
    return x


def _summary(
    r: Array,
    periods_per_year: float,
    *,
    risk_free: float,
    level: float,
    mean_turnover: float | None,
    total_cost: float | None,
) -> PerformanceSummary:
    risk_free = _finite(risk_free, "risk_free")
    return PerformanceSummary(
        n_periods=int(r.size),
        total_return=total_return(r),
        annualized_return=annualized_return(r, periods_per_year),
        annualized_volatility=annualized_volatility(r, periods_per_year),
        sharpe_ratio=sharpe_ratio(r, periods_per_year, risk_free),
        sortino_ratio=sortino_ratio(r, periods_per_year, risk_free),
        max_drawdown=max_drawdown(r),
        calmar_ratio=calmar_ratio(r, periods_per_year),
        value_at_risk=value_at_risk(r, level),
        conditional_value_at_risk=conditional_value_at_risk(r, level),
        hit_rate=hit_rate(r),
        mean_turnover=mean_turnover,
        total_cost=total_cost,
    )


def pnl_summary(pnl: ArrayLike, periods_per_year: float = 252, *, scale: float = 0.0) -> PnLSummary:
    """Metrics of a P&L series; max drawdown is from the cumulative sum's peak, starting at 0.

    The std counts as 0 when ``<= 16·eps·(scale + max|pnl|)``: pass the magnitude of the
    levels the increments were taken from as ``scale`` (>= 0). Zero std: the Sharpe ratio is
    ±inf by the sign of the mean P&L, 0 if it is 0.
    """
    x = _series(pnl, "pnl")
    ppy = _positive(periods_per_year, "periods_per_year")
    scale = _finite(scale, "scale")
    if scale < 0.0:
        raise ValueError(f"scale must be >= 0, got {scale}.")
    sd = _std(x, scale)
    mean = float(x.mean())
    cumulative = np.cumsum(x)
    peak = np.maximum.accumulate(np.maximum(cumulative, 0.0))
    return PnLSummary(
        n_periods=int(x.size),
        total_pnl=float(x.sum()),
        mean_pnl=mean,
        pnl_volatility=sd,
        sharpe_ratio=_quotient(mean, sd) * math.sqrt(ppy),
        max_drawdown=float((peak - cumulative).max()),
        hit_rate=hit_rate(x),
    )


# -- wrapper ------------------------------------------------------------------------------


def _key(value: Any, name: str, expected: str = "a str") -> str:
    if not isinstance(value, str):
        raise TypeError(
            f"RecordPerformance: {name} must be {expected}, got {type(value).__name__} {value!r}."
        )
    return value


def _optional_key(value: Any, name: str) -> str | None:
    return None if value is None else _key(value, name, "a str or None")


def _missing(info: Mapping[str, Any], key: str) -> KeyError:
    available = ", ".join(map(repr, info)) or "none"
    return KeyError(f"RecordPerformance: info has no {key!r}; available keys: {available}.")


def _read(info: Mapping[str, Any], key: str) -> float:
    if key not in info:
        raise _missing(info, key)
    value = info[key]
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"RecordPerformance: info[{key!r}] must be a real number, "
            f"got {type(value).__name__} {value!r}."
        )
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"RecordPerformance: info[{key!r}] must be finite, got {x}.")
    return x


class RecordPerformance(_ResultWrapper[ObsType, ActType, ObsType]):
    """Summarises each episode from the equity (or, with ``pnl_key``, the P&L) its info reports.

    Equity mode: per-step returns of ``info[equity_key]`` from the reset info's value (1.0 if
    absent); the first step with equity ``<= 0`` returns -1, later ones 0. Steps reporting
    ``turnover_key`` / ``cost_key`` feed ``mean_turnover`` / ``total_cost``. P&L mode: the
    increments of ``info[pnl_key]`` from the reset value (0.0 if absent).

    The final step's info gets ``"performance"`` (a ``PerformanceSummary`` or ``PnLSummary``),
    also kept as ``last_summary`` and in ``summaries`` (the last ``deque_size``). Under an
    inner autoreset it reads ``info["final_info"]`` and restarts from ``info["reset_info"]``.
    A ``reset()`` mid-episode drops the partial episode.
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        *,
        periods_per_year: float = 252,
        equity_key: str = "equity",
        pnl_key: str | None = None,
        turnover_key: str | None = "turnover",
        cost_key: str | None = "cost",
        risk_free: float = 0.0,
        deque_size: int = 100,
    ) -> None:
        super().__init__(env)
        self.periods_per_year = _positive(periods_per_year, "RecordPerformance: periods_per_year")
        self.equity_key = _key(equity_key, "equity_key")
        self.pnl_key = _optional_key(pnl_key, "pnl_key")
        self.turnover_key = _optional_key(turnover_key, "turnover_key")
        self.cost_key = _optional_key(cost_key, "cost_key")
        self.risk_free = _finite(risk_free, "RecordPerformance: risk_free")
        if isinstance(deque_size, bool) or not isinstance(deque_size, (int, np.integer)):
            raise TypeError(
                "RecordPerformance: deque_size must be an int, "
                f"got {type(deque_size).__name__} {deque_size!r}."
            )
        if deque_size < 1:
            raise ValueError(f"RecordPerformance: deque_size must be at least 1, got {deque_size}.")
        self.summaries: deque[PerformanceSummary | PnLSummary] = deque(maxlen=int(deque_size))
        self.last_summary: PerformanceSummary | PnLSummary | None = None
        self._begin({})

    def _begin(self, info: Mapping[str, Any]) -> None:
        if self.pnl_key is None:
            start = _read(info, self.equity_key) if self.equity_key in info else 1.0
            if start <= 0.0:
                raise ValueError(
                    f"RecordPerformance: the reset info's {self.equity_key!r} must be > 0 to "
                    f"measure returns, got {start}; pass pnl_key= to record a P&L instead."
                )
        else:
            start = _read(info, self.pnl_key) if self.pnl_key in info else 0.0
        self._level = start
        self._scale = abs(start)
        self._wiped = False
        self._values: list[float] = []
        self._turnover: list[float] = []
        self._costs: list[float] = []

    def _record(self, info: Mapping[str, Any]) -> None:
        if self.pnl_key is not None:
            value = _read(info, self.pnl_key)
            self._values.append(value - self._level)
            self._level = value
            self._scale = max(self._scale, abs(value))
            return
        equity = _read(info, self.equity_key)
        turnover = self._optional(info, self.turnover_key)
        cost = self._optional(info, self.cost_key)
        if self._wiped:
            self._values.append(0.0)
        elif equity <= 0.0:
            self._values.append(-1.0)
            self._wiped = True
        else:
            self._values.append(equity / self._level - 1.0)
            self._level = equity
        self._turnover += turnover
        self._costs += cost

    @staticmethod
    def _optional(info: Mapping[str, Any], key: str | None) -> list[float]:
        return [_read(info, key)] if key is not None and key in info else []

    def _summarise(self) -> PerformanceSummary | PnLSummary:
        if self.pnl_key is not None:
            return pnl_summary(self._values, self.periods_per_year, scale=self._scale)
        # Only the steps that report turnover / cost feed those two averages.
        return _summary(
            _series(self._values, "returns"),
            self.periods_per_year,
            risk_free=self.risk_free,
            level=0.95,
            mean_turnover=float(np.mean(self._turnover)) if self._turnover else None,
            total_cost=float(np.sum(self._costs)) if self._costs else None,
        )

    def _wrap_reset(self, result: ResetResult[ObsType]) -> ResetResult[ObsType]:
        self._begin(result.info)
        return result

    def _wrap_step(self, result: StepResult[ObsType]) -> StepResult[ObsType]:
        info = result.info
        if not result.done:
            self._record(info)
            return result
        autoreset = "final_info" in info
        if autoreset and "reset_info" not in info:
            raise _missing(info, "reset_info")
        self._record(info["final_info"] if autoreset else info)
        summary = self._summarise()
        self.summaries.append(summary)
        self.last_summary = summary
        self._begin(info["reset_info"] if autoreset else {})
        return StepResult(
            result.observation,
            result.reward,
            result.terminated,
            result.truncated,
            {**info, "performance": summary},
        )

    def summary(self) -> dict[str, float]:
        """Mean of each field over ``summaries``, skipping Nones; fields never set are left out.

        A field holding both ``inf`` and ``-inf`` (ratios of zero dispersion) averages to NaN.
        """
        means: dict[str, float] = {}
        if not self.summaries:
            return means
        for field in fields(self.summaries[0]):
            values = [getattr(s, field.name) for s in self.summaries]
            present = [v for v in values if v is not None]
            if present:
                with np.errstate(invalid="ignore"):
                    means[field.name] = float(np.mean(present))
        return means

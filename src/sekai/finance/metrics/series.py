"""Performance metrics of one series of simple returns per period.

Wipe-out convention: equity is floored at 0 forever after the first cumulative product
``<= 0``.

Zero-denominator convention, shared by every ratio (Sharpe, Sortino, Calmar and the Sharpe
ratio of ``pnl_summary``): when the dispersion (std, downside deviation or drawdown) is 0, the
ratio is ``+inf`` or ``-inf`` by the sign of its numerator, and ``0.0`` when the numerator is 0.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.utils.validation import check_array, check_real

__all__ = [
    "annualized_return",
    "annualized_volatility",
    "calmar_ratio",
    "conditional_value_at_risk",
    "drawdown_series",
    "equity_curve",
    "hit_rate",
    "max_drawdown",
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


# -- parameters -----------------------------------------------------------------------------


def _series(values: ArrayLike, name: str) -> Array:
    """``values`` as a 1-D, non-empty, finite float64 array.

    A sequence of non-numbers, bools or complex numbers, a wrong rank, an empty or non-finite
    series raise ``ValueError``; a value that is no sequence at all (None, a string, a
    mapping) raises ``TypeError``.
    """
    arr = check_array(values, name, ndim=1, finite=True)
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty.")
    return arr.astype(np.float64, copy=False)


def _finite(value: Any, name: str) -> float:
    return check_real(value, name)


def _positive(value: Any, name: str) -> float:
    return check_real(value, name, low=0.0, low_open=True)


def _level(value: Any) -> float:
    return check_real(value, "level", low=0.0, high=1.0, low_open=True, high_open=True)


# -- shared pieces --------------------------------------------------------------------------


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

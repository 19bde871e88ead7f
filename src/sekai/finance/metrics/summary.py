"""Summaries of a return or P&L series: every metric at once, printable as a table."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from sekai.finance.metrics.series import (
    Array,
    _finite,
    _positive,
    _quotient,
    _series,
    _std,
    annualized_return,
    annualized_volatility,
    calmar_ratio,
    conditional_value_at_risk,
    hit_rate,
    max_drawdown,
    sharpe_ratio,
    sortino_ratio,
    total_return,
    value_at_risk,
)

__all__ = ["PerformanceSummary", "PnLSummary", "performance_summary", "pnl_summary"]


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

    def rows(self) -> list[tuple[str, str]]:
        """``(label, formatted value)`` pairs, the lines of ``str()``."""
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
        return rows

    def __str__(self) -> str:
        return _table(self.rows())


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

    ``turnover`` (averaged) and ``costs`` (summed) may have any non-zero length.
    """
    r = _series(returns, "returns")
    mean_turnover = None if turnover is None else float(_series(turnover, "turnover").mean())
    total_cost = None if costs is None else float(_series(costs, "costs").sum())
    return _summary(
        r,
        periods_per_year,
        risk_free=risk_free,
        level=level,
        mean_turnover=mean_turnover,
        total_cost=total_cost,
    )


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

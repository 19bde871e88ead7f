"""Performance metrics of return and P&L series, their summaries, and a wrapper recording them.

``series`` holds the metric functions (and their wipe-out and zero-denominator conventions),
``summary`` the summaries of a whole series and ``recorder`` the ``RecordPerformance`` wrapper.
"""

from __future__ import annotations

from sekai.finance.metrics.recorder import RecordPerformance
from sekai.finance.metrics.series import (
    annualized_return,
    annualized_volatility,
    calmar_ratio,
    conditional_value_at_risk,
    drawdown_series,
    equity_curve,
    hit_rate,
    max_drawdown,
    returns_from_equity,
    sharpe_ratio,
    sortino_ratio,
    total_return,
    value_at_risk,
)
from sekai.finance.metrics.summary import (
    PerformanceSummary,
    PnLSummary,
    performance_summary,
    pnl_summary,
)

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

"""Market charts for dashboards: prices with positions, quotes and fills; an order book ladder;
holdings across a changing universe; one-page backtest and walk-forward reports."""

from sekai.finance.charts.order_book import OrderBookChart, Owners
from sekai.finance.charts.price import Fills, PriceChart
from sekai.finance.charts.report import backtest_report, walk_forward_report
from sekai.finance.charts.universe import UniverseChart

__all__ = [
    "PriceChart",
    "OrderBookChart",
    "UniverseChart",
    "Fills",
    "Owners",
    "backtest_report",
    "walk_forward_report",
]

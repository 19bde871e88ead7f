"""Market charts for dashboards: prices with positions, quotes and fills; an order book ladder;
holdings across a changing universe."""

from sekai.finance.charts.order_book import OrderBookChart, Owners
from sekai.finance.charts.price import Fills, PriceChart
from sekai.finance.charts.universe import UniverseChart

__all__ = ["PriceChart", "OrderBookChart", "UniverseChart", "Fills", "Owners"]

"""Market data: an immutable ``T x N`` panel of prices and fields on a time axis.

``panel`` holds ``MarketData``, ``timeaxis`` the point-in-time rule (``Time``, ``row_of``),
``pandas_io`` the conversions from pandas and polars frames (their column layouts) and
``files`` the CSV and Parquet readers and the exact Parquet file of a panel.
"""

from __future__ import annotations

from sekai.finance.data.panel import MarketData
from sekai.finance.data.timeaxis import Time, naive_datetime64, row_of

__all__ = ["MarketData", "Time", "naive_datetime64", "row_of"]

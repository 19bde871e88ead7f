"""Market data: an immutable ``T x N`` panel of prices and fields on a time axis.

``panel`` holds ``MarketData`` (``panel_arrays`` the checks of its arrays), ``timeaxis`` the
point-in-time rule (``Time``, ``row_of``) and the gap warning, ``dates`` how date text is read
(``ReadOptions``), ``pandas_io`` the conversions from pandas and polars frames (their column
layouts), ``files`` the CSV and Parquet readers, ``file_options`` how they read a file
(``FileOptions``) and ``parquet_file`` the exact Parquet file of a panel.
"""

from __future__ import annotations

from sekai.finance.data.dates import ReadOptions
from sekai.finance.data.file_options import FileOptions
from sekai.finance.data.panel import MarketData
from sekai.finance.data.timeaxis import Time, naive_datetime64, row_of

__all__ = ["FileOptions", "MarketData", "ReadOptions", "Time", "naive_datetime64", "row_of"]

"""Reading a market panel from Parquet: ``MarketData.read_parquet`` against pandas + pivot.

Generates a daily panel of ``--days`` rows and ``--tickers`` assets with the fields open, high,
low, close and volume, writes it to a temporary folder in three layouts, and times, side by
side in one run:

* ``long``: one generic long file (columns date, ticker, open, high, low, close, volume; one
  row per (date, ticker)) read by ``MarketData.read_parquet``;
* ``to_parquet``: the file written by ``MarketData.to_parquet`` read back by ``read_parquet``;
* ``wide``: a pandas frame with a (ticker, field) column MultiIndex saved by
  ``DataFrame.to_parquet`` and read by ``read_parquet``;
* ``pandas``: the reference, ``pandas.read_parquet`` of the long file plus one
  ``DataFrame.pivot`` per field.

Each figure is the best of ``--repeats`` timed reads after a warm-up read; the ratio is the
reference's time over the reader's. ``--quick`` shrinks the panel to 504 x 50.

Usage: ``python benchmarks/data_io.py [--days T] [--tickers N] [--repeats R] [--quick]``
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sekai.finance.data import MarketData

__all__ = ["main", "make_long", "seconds"]

FIELDS = ("open", "high", "low", "close", "volume")


def make_long(days: int, tickers: int, seed: int = 0) -> pd.DataFrame:
    """The long frame of a random daily panel: one row per (date, ticker), sorted."""
    rng = np.random.default_rng(seed)
    dates = pd.bdate_range("2015-01-02", periods=days).to_numpy()
    names = np.array([f"T{j:04d}" for j in range(tickers)], dtype=object)
    close = 100 * np.exp(np.cumsum(rng.normal(0, 0.01, (days, tickers)), axis=0))
    frame = {
        "date": np.repeat(dates, tickers),
        "ticker": np.tile(names, days),
        "open": (close * rng.uniform(0.99, 1.01, close.shape)).ravel(),
        "high": (close * 1.02).ravel(),
        "low": (close * 0.98).ravel(),
        "close": close.ravel(),
        "volume": rng.integers(1_000, 1_000_000, close.shape).astype(np.float64).ravel(),
    }
    return pd.DataFrame(frame)


def seconds(read: Callable[[], Any], repeats: int) -> float:
    """Best-of-``repeats`` seconds of ``read()`` after a warm-up call."""
    read()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        read()
        best = min(best, time.perf_counter() - start)
    return best


def _pandas_pivot(path: Path) -> dict[str, pd.DataFrame]:
    frame = pd.read_parquet(path)
    return {name: frame.pivot(index="date", columns="ticker", values=name) for name in FIELDS}


def main(argv: Sequence[str] | None = None) -> None:
    """Write the files, time every reader and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=2520, help="rows (trading days)")
    parser.add_argument("--tickers", type=int, default=500, help="assets")
    parser.add_argument("--repeats", type=int, default=5, help="timed reads; the best counts")
    parser.add_argument("--quick", action="store_true", help="a 504 x 50 panel, 2 repeats")
    args = parser.parse_args(argv)
    if args.quick:
        args.days, args.tickers, args.repeats = 504, 50, 2
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        print(f"writing a {args.days} x {args.tickers} panel to {root} ...", flush=True)
        long = make_long(args.days, args.tickers)
        long.to_parquet(root / "long.parquet", index=False)
        data = MarketData.read_parquet(root / "long.parquet")
        data.to_parquet(root / "sekai.parquet")
        wide = long.set_index(["date", "ticker"]).unstack("ticker").swaplevel(axis=1)
        wide.to_parquet(root / "wide.parquet")
        readers: dict[str, Callable[[], Any]] = {
            "pandas": lambda: _pandas_pivot(root / "long.parquet"),
            "long": lambda: MarketData.read_parquet(root / "long.parquet"),
            "to_parquet": lambda: MarketData.read_parquet(root / "sekai.parquet"),
            "wide": lambda: MarketData.read_parquet(root / "wide.parquet"),
        }
        figures = {}
        print(f"{'reader':<12}{'seconds':>10}{'vs pandas':>11}")
        for name, read in readers.items():
            figures[name] = seconds(read, args.repeats)
            ratio = figures["pandas"] / figures[name]
            print(f"{name:<12}{figures[name]:>10.3f}{ratio:>10.1f}x", flush=True)
        back = MarketData.read_parquet(root / "sekai.parquet")
        for name in FIELDS:
            np.testing.assert_array_equal(back.field(name), data.field(name))
    print(
        f"\n{len(long):,} long rows, {args.days} x {args.tickers} x {len(FIELDS)} fields, "
        f"best of {args.repeats}; 'vs pandas' = pandas time / reader time"
    )


if __name__ == "__main__":
    main()

"""The pictures of a backtest and of a walk-forward evaluation, drawn by ``finance.charts``.

The results are read by their attributes (``Backtest``, ``WalkForward``), not imported.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.finance.charts import backtest_report, walk_forward_report
from sekai.rendering.recorder import save_png

__all__ = ["backtest_frame", "walk_forward_frame"]


def _finish(frame: NDArray[np.uint8], path: str | os.PathLike[str] | None) -> NDArray[np.uint8]:
    if path is not None:
        save_png(frame, path)
    return frame


def _times(index: Any) -> NDArray[Any]:
    values = np.asarray(index.to_numpy())
    return values.astype("datetime64[ns]") if values.dtype.kind == "M" else values


def backtest_frame(
    result: Any, path: str | os.PathLike[str] | None, *, theme: str
) -> NDArray[np.uint8]:
    """The report of a one-episode backtest (several episodes: ``ValueError``)."""
    if result.n_episodes != 1:
        raise ValueError(
            f"plot() draws one episode; this backtest has {result.n_episodes}: "
            "use result.episode(k).plot()."
        )
    positions = result.positions
    frame = backtest_report(
        _times(result.equity.index),
        result.equity.to_numpy(),
        benchmark=None if result.benchmark is None else result.benchmark.to_numpy(),
        benchmark_label="benchmark" if result.benchmark is None else str(result.benchmark.name),
        positions=positions.to_numpy() if positions.shape[1] else None,
        position_labels=[str(c) for c in positions.columns],
        position_kind="weight",
        summary=result.summary.rows(),
        theme=theme,
    )
    return _finish(frame, path)


def walk_forward_frame(
    result: Any, path: str | os.PathLike[str] | None, *, theme: str
) -> NDArray[np.uint8]:
    """The stitched out-of-sample equity with each fold's test period marked."""
    folds = []
    rows = []
    for fold in result.folds:
        equity = fold.backtest.equity
        start, end = _times(equity.index[[0, -1]])
        label = f"fold {fold.index + 1}"
        folds.append((start, end, label))
        s = fold.backtest.summary
        rows.append(
            (label, f"{s.total_return:.2%}", f"{s.sharpe_ratio:.3f}", f"{s.max_drawdown:.2%}")
        )
    frame = walk_forward_report(
        _times(result.equity.index),
        result.equity.to_numpy(),
        folds=folds,
        summary=rows,
        columns=("fold", "return", "Sharpe", "max drawdown"),
        theme=theme,
    )
    return _finish(frame, path)

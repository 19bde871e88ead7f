"""Walk-forward evaluation: fit on a rolling (or expanding) train window, trade the next rows.

Fold ``k`` fits on rows ``[s, s + train_size)`` (``[0, ...)`` when expanding) and trades its
``test_size`` test rows: decisions at rows ``a .. a + test_size - 1`` with
``a = s + train_size + embargo``, whose returns are earned at rows ``a + 1 .. a + test_size``
(the fold's test rows). The test env's data starts ``lookback`` rows before ``a`` so that its
first observation is complete; those rows are observed, never traded. ``fit`` sees only its
train env, whose data ends before ``a``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from sekai.core.env import Env
from sekai.finance.data import MarketData
from sekai.finance.evaluation.backtest import Backtest, backtest, pandas
from sekai.finance.metrics import PerformanceSummary, performance_summary
from sekai.utils.progress import Progress
from sekai.utils.validation import check_instance, check_int

__all__ = ["Fold", "WalkForward", "walk_forward"]


@dataclass(frozen=True, eq=False)
class Fold:
    """One fold: its train and test data, the fitted policy and its out-of-sample backtest."""

    index: int
    train: MarketData
    test: MarketData
    policy: Any
    backtest: Backtest


@dataclass(frozen=True, eq=False)
class WalkForward:
    """The folds of a walk-forward evaluation and their stitched out-of-sample record.

    ``returns`` joins every fold's returns on one time axis, ``equity`` compounds them from
    1.0 at the first fold's first decision, ``table`` has one row of figures per fold.
    """

    folds: tuple[Fold, ...]
    returns: Any
    equity: Any
    summary: PerformanceSummary
    table: Any
    periods_per_year: float

    def plot(self, path: str | os.PathLike[str] | None = None, *, theme: str = "light") -> Any:
        """The folds on one time axis as an RGB frame; also a PNG when ``path`` is given."""
        from sekai.finance.evaluation.reports import walk_forward_frame

        return walk_forward_frame(self, path, theme=theme)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"WalkForward(folds={len(self.folds)}, periods={s.n_periods}, "
            f"total_return={s.total_return:.2%}, sharpe={s.sharpe_ratio:.3f})"
        )


def _lookback(env: Any) -> int:
    return int(getattr(env.unwrapped, "lookback", 0))


def _make(make_env: Callable[[MarketData], Any], data: MarketData, what: str) -> Env[Any, Any]:
    env = make_env(data)
    if not isinstance(env, Env):
        raise TypeError(f"make_env must return a sekai Env for the {what} data, got {env!r}.")
    return env


def _fold_row(fold: Fold) -> dict[str, Any]:
    s = fold.backtest.summary
    returns = fold.backtest.returns
    return {
        "fold": fold.index,
        "train_start": fold.train.timestamps[0],
        "train_end": fold.train.timestamps[-1],
        "test_start": returns.index[0],
        "test_end": returns.index[-1],
        "periods": s.n_periods,
        "total_return": s.total_return,
        "annualized_return": s.annualized_return,
        "annualized_volatility": s.annualized_volatility,
        "sharpe_ratio": s.sharpe_ratio,
        "max_drawdown": s.max_drawdown,
        "total_cost": s.total_cost,
    }


def walk_forward(
    data: MarketData,
    make_env: Callable[[MarketData], Any],
    fit: Callable[[Any], Any],
    *,
    train_size: int,
    test_size: int,
    step: int | None = None,
    embargo: int = 0,
    expanding: bool = False,
    seed: int | None = None,
    progress: bool = True,
) -> WalkForward:
    """Fit and backtest fold by fold; ``MarketData.walk_forward`` cuts the folds.

    ``make_env(data)`` builds an env on a fold's data (train and test alike); ``backtest``
    trades the whole test data, whatever the env's ``episode_length`` (which must fit in the
    data). ``fit(train_env)`` returns a policy for ``backtest``. ``step`` (default
    ``test_size``) must be at least ``test_size`` so that test periods never overlap.
    ``seed`` seeds each test reset; ``progress`` draws a bar over the folds on a terminal.
    """
    check_instance(data, "data", MarketData, "a MarketData")
    if not callable(make_env) or not callable(fit):
        raise TypeError("make_env and fit must be callables (data -> env, train_env -> policy).")
    train_size = check_int(train_size, "train_size", low=2)
    test_size = check_int(test_size, "test_size", low=1)
    step = test_size if step is None else check_int(step, "step", low=1)
    if step < test_size:
        raise ValueError(
            f"step ({step}) must be >= test_size ({test_size}): overlapping test periods "
            "cannot be stitched into one out-of-sample series."
        )
    embargo = check_int(embargo, "embargo", low=0)
    lookback = _lookback(_make(make_env, data[:train_size], "train"))
    cuts = data.walk_forward(
        train_size,
        test_size + 1,
        step=step,
        embargo=embargo,
        history=lookback,
        expanding=bool(expanding),
    )
    splits = list(cuts)
    if not splits:
        raise ValueError(
            f"no fold fits: {len(data)} rows, train_size={train_size}, embargo={embargo} "
            f"and test_size={test_size} need at least {train_size + embargo + test_size + 1}."
        )
    folds = []
    with Progress(len(splits), "walk-forward folds", enabled=progress) as bar:
        for k, (train, test) in enumerate(splits):
            policy = fit(_make(make_env, train, "train"))
            test_env = _make(make_env, test, "test")
            result = backtest(test_env, policy, seed=seed, start=lookback, progress=False)
            if result.summary.n_periods != test_size and result.equity.iloc[-1] > 0.0:
                raise ValueError(
                    f"fold {k}: the test env traded {result.summary.n_periods} of the "
                    f"{test_size} test rows; make_env must build the env on the data it is "
                    "given (e.g. sekai.make('Portfolio-v0', data=data, ...))."
                )
            folds.append(Fold(k, train, test, policy, result))
            bar.update(1)
    return _stitch(tuple(folds))


def _stitch(folds: tuple[Fold, ...]) -> WalkForward:
    pd = pandas()
    returns = pd.concat([fold.backtest.returns for fold in folds])
    returns.name = "returns"
    ppy = folds[0].backtest.periods_per_year
    growth = np.concatenate([[1.0], np.cumprod(1.0 + returns.to_numpy())])
    first = folds[0].backtest.equity.index[:1]
    equity = pd.Series(growth, index=first.append(returns.index), name="equity")
    costs = np.concatenate([fold.backtest.costs.sum(axis=1).to_numpy() for fold in folds])
    turnover = np.concatenate([fold.backtest.turnover.to_numpy() for fold in folds])
    summary = performance_summary(returns.to_numpy(), ppy, turnover=turnover, costs=costs)
    table = pd.DataFrame([_fold_row(fold) for fold in folds]).set_index("fold")
    return WalkForward(folds, returns, equity, summary, table, ppy)

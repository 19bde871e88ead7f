"""Evaluation of policies on finance envs: backtests and walk-forward (rolling) evaluation."""

from __future__ import annotations

from sekai.finance.evaluation.backtest import Backtest, backtest
from sekai.finance.evaluation.walk_forward import Fold, WalkForward, walk_forward

__all__ = ["Backtest", "Fold", "WalkForward", "backtest", "walk_forward"]

"""Weight-space accounting: target weights, financing and one-step settlement.

Every function broadcasts over leading batch axes; with 1-D weights the scalar results are
Python floats / bools.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.finance.costs import _rowsum
from sekai.utils.validation import check_bool, check_real

__all__ = ["AccountConfig", "Settlement", "project_weights", "settle", "turnover"]

Array = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class AccountConfig:
    """Leverage and financing terms of a weight-space account (rates are annual).

    Every number is finite; ``max_leverage > 0`` and ``borrow_rate >= 0``; ``cash_rate`` and
    ``margin_rate`` may be negative.
    """

    allow_short: bool = False
    max_leverage: float = 1.0
    cash_rate: float = 0.0
    margin_rate: float | None = None
    borrow_rate: float = 0.0

    def __post_init__(self) -> None:
        setter = object.__setattr__
        setter(self, "allow_short", check_bool(self.allow_short, "allow_short"))
        setter(
            self,
            "max_leverage",
            check_real(self.max_leverage, "max_leverage", low=0.0, low_open=True),
        )
        setter(self, "cash_rate", check_real(self.cash_rate, "cash_rate"))
        if self.margin_rate is not None:
            setter(self, "margin_rate", check_real(self.margin_rate, "margin_rate"))
        setter(self, "borrow_rate", check_real(self.borrow_rate, "borrow_rate", low=0.0))

    @property
    def effective_margin_rate(self) -> float:
        """Rate paid on negative cash: ``margin_rate``, or ``cash_rate`` when None."""
        return self.cash_rate if self.margin_rate is None else self.margin_rate


@dataclass(frozen=True, slots=True)
class Settlement:
    """One step's result: equity ``growth``, ``drifted`` weights, ``financing``, ``wiped_out``."""

    growth: Any
    drifted: Array
    financing: Any
    wiped_out: Any


def project_weights(
    scores: Any, tradable: Any, config: AccountConfig, *, cash_score: Any = None
) -> Array:
    """Target weights ``(..., n)`` from action scores, honouring leverage and tradability."""
    scores = np.asarray(scores, dtype=np.float64)
    a = np.where(np.asarray(tradable, dtype=bool), scores, 0.0)
    limit = config.max_leverage
    if config.allow_short:
        a = np.clip(a, -limit, limit)
        gross = _rowsum(np.abs(a))[..., None]
        return a * (limit / np.maximum(gross, limit))
    a = np.maximum(a, 0.0)
    total = _rowsum(a)[..., None]
    if cash_score is not None:
        total = total + np.expand_dims(np.maximum(np.asarray(cash_score, np.float64), 0.0), -1)
    ok = total > 1e-12
    return np.where(ok, limit * a / np.where(ok, total, 1.0), 0.0)


def _broadcasts(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether an array of ``shape`` broadcasts to ``target`` without growing it."""
    if len(shape) > len(target):
        return False
    return all(s in (1, t) for s, t in zip(shape[::-1], target[::-1], strict=False))


def _check_shapes(w: Array, r: Array, cost: Array) -> None:
    if w.ndim == 0:
        raise ValueError("settle: weights must have an asset axis, got a scalar.")
    n = w.shape[-1]
    if r.ndim == 0 or r.shape[-1] != n:
        got = "a scalar" if r.ndim == 0 else f"length {r.shape[-1]} (shape {r.shape})"
        raise ValueError(
            f"settle: returns must hold one entry per asset, expected length {n} "
            f"(the weights' last axis), got {got}."
        )
    if not _broadcasts(r.shape[:-1], w.shape[:-1]):
        raise ValueError(
            f"settle: returns of shape {r.shape} do not fit weights of shape {w.shape}: "
            f"the leading axes must broadcast to {w.shape[:-1]}."
        )
    if not _broadcasts(cost.shape, w.shape[:-1]):
        raise ValueError(
            f"settle: cost must be a scalar or broadcast to the batch shape {w.shape[:-1]}, "
            f"got shape {cost.shape}."
        )


def settle(
    weights: Any, returns: Any, *, cost: Any, dt: float, config: AccountConfig
) -> Settlement:
    """Apply one step of asset ``returns`` (NaN -> 0), financing and ``cost`` to ``weights``.

    ``weights`` is ``(..., n)``; ``returns`` has one entry per asset (last axis ``n``) and
    leading axes that broadcast to the weights' ones; ``cost`` broadcasts to the batch shape
    ``weights.shape[:-1]`` (a scalar for 1-D weights). Other shapes raise ``ValueError``.
    """
    w = np.asarray(weights, dtype=np.float64)
    r = np.asarray(returns, dtype=np.float64)
    cost = np.asarray(cost, dtype=np.float64)
    if w.ndim == 0 or r.shape != w.shape or cost.shape != w.shape[:-1]:
        _check_shapes(w, r, cost)
    r = np.where(np.isnan(r), 0.0, r)
    cash = 1.0 - _rowsum(w)
    rate = np.where(cash >= 0, config.cash_rate, config.effective_margin_rate)
    short = _rowsum(np.maximum(-w, 0.0))
    financing = cash * rate * dt - config.borrow_rate * dt * short
    gross = 1.0 + _rowsum(w * r) + financing
    growth = np.where(cost >= 1, 0.0, (1.0 - cost) * gross)
    wiped = growth <= 0
    safe = np.where(wiped, 1.0, gross)
    drifted = w * (1.0 + r) / safe[..., None]
    if wiped.any():
        drifted[wiped] = 0.0
    if w.ndim == 1:
        return Settlement(float(growth), drifted, float(financing), bool(wiped))
    return Settlement(growth, drifted, financing, wiped)


def turnover(target: Any, current: Any) -> Any:
    """``sum(|target - current|)`` over the last axis (a float for 1-D inputs)."""
    diff = np.abs(np.asarray(target, dtype=np.float64) - np.asarray(current, dtype=np.float64))
    out = _rowsum(diff)
    return float(out) if diff.ndim == 1 else out

"""Transaction-cost models: the cost of a rebalance as a fraction of equity.

Every model takes ``trades (..., n)`` (signed weight changes) and optional context arrays and
returns a cost of shape ``(...)``: a float for 1-D trades, an array for batched trades. A
call's context arrays travel as one ``CostContext``; a model implements ``price(trades,
context)``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.utils.validation import check_array, check_real

__all__ = [
    "CompositeCost",
    "CostContext",
    "CostModel",
    "FixedCost",
    "NoCost",
    "ProportionalCost",
    "SpreadCost",
    "SquareRootImpact",
    "as_cost_model",
]

Array = NDArray[np.float64]


def _rates(value: Any, name: str) -> Array:
    """A finite, non-negative scalar or per-asset parameter as a read-only 1-D array."""
    arr = np.array(check_array(value, name), dtype=np.float64).reshape(-1)
    if np.ndim(value) > 1 or arr.size == 0:
        raise ValueError(f"{name} must be a scalar or a non-empty 1-D sequence, got {value!r}.")
    if not (np.isfinite(arr).all() and (arr >= 0).all()):
        raise ValueError(f"{name} must be finite and >= 0, got {value!r}.")
    arr.setflags(write=False)
    return arr


def _rowsum(x: Array) -> Array:
    """``x.sum(axis=-1)``, bit-identical to summing each row alone, and faster for short rows.

    NumPy reduces a short last axis slowly; below 8 entries its sum is a left-to-right loop,
    which column additions reproduce exactly.
    """
    n = x.shape[-1]
    if x.ndim == 1 or not 1 < n < 8:
        return x.sum(axis=-1)
    total = x[..., 0] + x[..., 1]
    for j in range(2, n):
        total += x[..., j]
    return total


def _list(arr: Array) -> str:
    return "[" + ", ".join(repr(float(v)) for v in arr) + "]"


def _finish(cost: Any, single: bool) -> Any:
    return float(cost) if single else cost


def _require(context: CostContext, key: str, model: CostModel) -> Array:
    value = getattr(context, key)
    if value is None:
        raise ValueError(f"{model!r} needs the {key!r} context (pass {key}=...).")
    return np.asarray(value, dtype=np.float64)


def _fill_missing(
    values: Array, traded: NDArray[np.bool_], fallback: float | None, what: str
) -> Array:
    """Replace NaN/inf/negative entries by the row median of the valid ones.

    Rows without a valid entry use ``fallback``; without one, a row with a trade raises.
    """
    valid = np.isfinite(values) & (values >= 0)
    if valid.all():
        return values
    count = valid.sum(axis=-1, keepdims=True)
    ordered = np.sort(np.where(valid, values, np.inf), axis=-1)
    lo = np.take_along_axis(ordered, np.maximum((count - 1) // 2, 0), axis=-1)
    hi = np.take_along_axis(ordered, count // 2, axis=-1)
    empty = count == 0
    if fallback is None and (empty[..., 0] & traded.any(axis=-1)).any():
        raise ValueError(
            f"no valid {what} for a row with trades (all NaN, inf or negative) and no "
            f"fallback_{what} given: refusing to price the trade as free."
        )
    # Untraded rows without data cost nothing whatever they are filled with: use 0.
    fill = np.where(empty, 0.0 if fallback is None else fallback, 0.5 * (lo + hi))
    return np.where(valid, values, fill)


@dataclass(frozen=True, slots=True)
class CostContext:
    """The market context of a rebalance that a cost model may read; None where not given.

    ``equity (...)`` in currency, ``volatility (..., n)`` per step, ``volume (..., n)`` the
    value traded per step (currency), ``spread (..., n)`` the full quoted spread as a fraction
    of the price.
    """

    equity: Any = None
    volatility: Any = None
    volume: Any = None
    spread: Any = None

    def given(self) -> dict[str, Any]:
        """The entries that are not None, by name."""
        return {
            name: value
            for name in ("equity", "volatility", "volume", "spread")
            if (value := getattr(self, name)) is not None
        }


_NO_CONTEXT = CostContext()


def _price_by_call(self: CostModel, trades: Any, context: CostContext) -> Any:
    """``price`` of a model that defines ``__call__(trades, **context)`` instead."""
    return self(trades, **context.given())


class CostModel(ABC):
    """Cost of ``trades (..., n)`` as a fraction of equity, shape ``(...)``.

    ``requires`` names the context the model reads; ``fallbacks`` the inputs it can do without.
    A model implements ``price``; one that defines ``__call__`` instead (the keyword form) is
    priced through it.
    """

    requires: frozenset[str] = frozenset()
    fallbacks: frozenset[str] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__call__" in vars(cls) and getattr(cls.price, "__isabstractmethod__", False):
            cls.price = _price_by_call  # type: ignore[method-assign]

    def __call__(
        self,
        trades: Any,
        *,
        equity: Any = None,
        volatility: Any = None,
        volume: Any = None,
        spread: Any = None,
    ) -> Any:
        """The cost of ``trades`` in the context given by keyword (see ``CostContext``)."""
        if equity is None and volatility is None and volume is None and spread is None:
            return self.price(trades, _NO_CONTEXT)  # the common call: no context to build
        return self.price(trades, CostContext(equity, volatility, volume, spread))

    @abstractmethod
    def price(self, trades: Any, context: CostContext) -> Any:
        """The cost of ``trades`` in ``context``."""

    def __add__(self, other: object) -> CompositeCost:
        if not isinstance(other, CostModel):
            return NotImplemented
        return CompositeCost([self, other])


class NoCost(CostModel):
    """Trading is free."""

    def price(self, trades: Any, context: CostContext) -> Any:
        """Zeros of shape ``trades.shape[:-1]``."""
        shape = np.shape(trades)[:-1]
        return 0.0 if not shape else np.zeros(shape)

    def __repr__(self) -> str:
        return "NoCost()"


class ProportionalCost(CostModel):
    """``sum(rate * |trade|)``; ``rate`` scalar or per asset."""

    def __init__(self, rate: Any) -> None:
        self._rate = _rates(rate, "rate")

    @property
    def rate(self) -> Array:
        """Cost per unit of traded weight (read-only, 1-D)."""
        return self._rate

    def price(self, trades: Any, context: CostContext) -> Any:
        """``sum(rate * |trades|)`` over the last axis."""
        t = np.abs(np.asarray(trades, dtype=np.float64))
        return _finish(_rowsum(t * self._rate), t.ndim == 1)

    def __repr__(self) -> str:
        return f"ProportionalCost({_list(self._rate)})"


class SpreadCost(CostModel):
    """Half the bid-ask spread per unit traded: fixed, or from the quoted ``spread`` context."""

    def __init__(self, half_spread: Any = None, *, fallback_spread: Any = None) -> None:
        if half_spread is not None and fallback_spread is not None:
            raise ValueError("fallback_spread is only used with half_spread=None (quoted spreads).")
        self._half = None if half_spread is None else _rates(half_spread, "half_spread")
        self._fallback = (
            None
            if fallback_spread is None
            else check_real(fallback_spread, "fallback_spread", low=0.0)
        )
        self.requires = frozenset({"spread"}) if half_spread is None else frozenset()
        self.fallbacks = frozenset({"spread"}) if self._fallback is not None else frozenset()

    @property
    def half_spread(self) -> Array | None:
        """Fixed half spread (read-only, 1-D), or None to read quoted spreads."""
        return self._half

    @property
    def fallback_spread(self) -> float | None:
        """Full spread used for rows without any valid quoted spread."""
        return self._fallback

    def price(self, trades: Any, context: CostContext) -> Any:
        """``sum(h * |trades|)`` with ``h`` the half spread (quoted spreads median-filled)."""
        t = np.abs(np.asarray(trades, dtype=np.float64))
        if self._half is not None:
            half = self._half
        else:
            quoted = np.broadcast_to(_require(context, "spread", self), t.shape)
            half = 0.5 * _fill_missing(quoted, t > 0, self._fallback, "spread")
        return _finish(_rowsum(half * t), t.ndim == 1)

    def __repr__(self) -> str:
        half = "from data" if self._half is None else _list(self._half)
        fallback = "" if self._fallback is None else f", fallback_spread={self._fallback!r}"
        return f"SpreadCost(half_spread={half}{fallback})"


class FixedCost(CostModel):
    """A fixed ``amount`` of currency per traded asset (``|trade| > threshold``)."""

    requires = frozenset({"equity"})

    def __init__(self, amount: Any, *, threshold: Any = 1e-6) -> None:
        self._amount = check_real(amount, "amount", low=0.0)
        self._threshold = check_real(threshold, "threshold", low=0.0)

    @property
    def amount(self) -> float:
        """Currency charged per traded asset."""
        return self._amount

    @property
    def threshold(self) -> float:
        """Trades with ``|trade| <= threshold`` are free."""
        return self._threshold

    def price(self, trades: Any, context: CostContext) -> Any:
        """``amount*#{abs(trade) > threshold}/equity`` (0 when equity <= 0)."""
        t = np.asarray(trades, dtype=np.float64)
        eq = _require(context, "equity", self)
        count = _rowsum((np.abs(t) > self._threshold).astype(np.float64))
        positive = eq > 0
        cost = np.where(positive, self._amount * count / np.where(positive, eq, 1.0), 0.0)
        return _finish(cost, t.ndim == 1)

    def __repr__(self) -> str:
        return f"FixedCost({self._amount!r})"


class SquareRootImpact(CostModel):
    """Square-root impact ``u = c sigma sqrt(|t| equity / volume)``, cost ``sum(min(u, 1) |t|)``."""

    requires = frozenset({"equity", "volatility", "volume"})

    def __init__(self, coefficient: Any = 0.5, *, fallback_volatility: Any = None) -> None:
        self._coefficient = check_real(coefficient, "coefficient", low=0.0)
        self._fallback = (
            None
            if fallback_volatility is None
            else check_real(fallback_volatility, "fallback_volatility", low=0.0)
        )
        self.fallbacks = frozenset({"volatility"}) if self._fallback is not None else frozenset()

    @property
    def coefficient(self) -> float:
        """Impact coefficient ``c``."""
        return self._coefficient

    @property
    def fallback_volatility(self) -> float | None:
        """Per-step volatility for rows without any valid volatility."""
        return self._fallback

    def price(self, trades: Any, context: CostContext) -> Any:
        """Impact cost; an asset without a finite positive volume pays ``u = 1``."""
        t = np.abs(np.asarray(trades, dtype=np.float64))
        eq = np.maximum(_require(context, "equity", self), 0.0)
        sigma = np.broadcast_to(_require(context, "volatility", self), t.shape)
        sigma = _fill_missing(sigma, t > 0, self._fallback, "volatility")
        vol = _require(context, "volume", self)
        liquid = np.isfinite(vol) & (vol > 0)
        notional = t * np.expand_dims(eq, -1)
        u = np.where(
            liquid, self._coefficient * sigma * np.sqrt(notional / np.where(liquid, vol, 1.0)), 1.0
        )
        return _finish(_rowsum(np.minimum(u, 1.0) * t), t.ndim == 1)

    def __repr__(self) -> str:
        fallback = "" if self._fallback is None else f", fallback_volatility={self._fallback!r}"
        return f"SquareRootImpact({self._coefficient!r}{fallback})"


class CompositeCost(CostModel):
    """The sum of several cost models (nested composites are flattened)."""

    def __init__(self, models: Iterable[CostModel]) -> None:
        flat: list[CostModel] = []
        for model in models:
            if isinstance(model, CompositeCost):
                flat.extend(model.models)
            elif isinstance(model, CostModel):
                flat.append(model)
            else:
                raise TypeError(f"CompositeCost takes CostModel instances, got {model!r}.")
        if not flat:
            raise ValueError("CompositeCost needs at least one model.")
        self._models = tuple(flat)
        self.requires = frozenset().union(*(m.requires for m in flat))
        self.fallbacks = frozenset(
            key
            for key in self.requires
            if all(key in m.fallbacks for m in flat if key in m.requires)
        )

    @property
    def models(self) -> tuple[CostModel, ...]:
        """The summed models, flattened."""
        return self._models

    def price(self, trades: Any, context: CostContext) -> Any:
        """Sum of every model's cost."""
        total = self._models[0].price(trades, context)
        for model in self._models[1:]:
            total = total + model.price(trades, context)
        return total

    def __repr__(self) -> str:
        return " + ".join(repr(m) for m in self._models)


def as_cost_model(value: Any) -> CostModel:
    """A ``CostModel`` unchanged, or a real number as ``ProportionalCost(value)``.

    A number out of range or a sequence raises ``ValueError``; anything else ``TypeError``.
    """
    if isinstance(value, CostModel):
        return value
    return ProportionalCost(check_real(value, "rate", low=0.0))

"""Axis scales and number labels: nice steps and ticks, tick labels, number formatting and
value ranges."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from typing import TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "MINUS",
    "format_number",
    "decimals_for",
    "Ticks",
    "nice_step",
    "nice_ticks",
    "tick_labels",
    "tick_count",
    "value_range",
]

MINUS = "\u2212"
"""The true minus sign that formatted numbers use."""
Ticks: TypeAlias = Sequence[float] | NDArray[np.float64]
"""Tick values: a sequence of floats or a float array such as ``nice_ticks`` returns."""

_DASH = "\u2014"
_INFINITY = "\u221e"
_MAX_DECIMALS = 8
# Relative slack for float noise when comparing a candidate step with span/count.
_SLACK = 1e-9
_COMPACT_UNITS = ((1e3, "K"), (1e6, "M"), (1e9, "B"), (1e12, "T"))
_AUTO_COMPACT = 10_000
_TICK_SPACING = 28
_MIN_TICKS = 3


def _step_parts(span: float, count: int, integer: bool) -> tuple[int, int]:
    """The nice step for ``span / count`` as ``(mantissa, exponent)`` of ``m · 10**e``."""
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}.")
    if not (math.isfinite(span) and span > 0):
        return 1, 0
    raw = span / count
    if integer and raw <= 1:
        return 1, 0
    mantissas = (10, 20, 50, 100) if integer else (10, 20, 25, 50, 100)
    # Mantissas carry one decimal (25 is 2.5); the exponents either side absorb log10 rounding.
    magnitude = math.floor(math.log10(raw))
    exponents = (magnitude - 2, magnitude - 1, magnitude)
    candidates = ((m, e) for e in exponents for m in mantissas)
    return next((m, e) for m, e in candidates if _value(m, e) >= raw * (1 - _SLACK))


def _value(mantissa: int, exponent: int) -> float:
    """``mantissa · 10**exponent``, correctly rounded (inf beyond the float range)."""
    if exponent >= 0:
        try:
            return float(mantissa * 10**exponent)
        except OverflowError:
            return math.inf
    divisor: int = 10**-exponent
    return mantissa / divisor


def nice_step(span: float, count: int = 4, *, integer: bool = False) -> float:
    """Smallest of ``{1, 2, 2.5, 5, 10}·10^k`` (``{1, 2, 5, 10}`` if integer) >= ``span/count``.

    1.0 for a non-finite or non-positive span, or when integer and ``span/count <= 1``.
    """
    return _value(*_step_parts(span, count, integer))


def nice_ticks(
    low: float, high: float, count: int = 4, *, integer: bool = False
) -> NDArray[np.float64]:
    """Multiples of the nice step inside ``[low, high]``, refined until there are two or more.

    A new float64 array, ascending: empty for non-finite bounds (or a span beyond the float
    range); ``[low]`` when ``high <= low``.
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return np.empty(0, dtype=np.float64)
    if high <= low:
        return np.array([low], dtype=np.float64)
    if not math.isfinite(high - low):
        return np.empty(0, dtype=np.float64)
    ticks: list[float] = []
    for factor in (1, 2, 4, 8):
        mantissa, exponent = _step_parts(high - low, count * factor, integer)
        step = _value(mantissa, exponent)
        first, last = math.floor(low / step) - 1, math.ceil(high / step) + 1
        candidates = (_value(i * mantissa, exponent) for i in range(first, last + 1))
        # A set: near the float resolution neighbouring multiples can round to one value.
        ticks = sorted({tick for tick in candidates if low <= tick <= high})
        if len(ticks) >= 2:
            break
    return np.array(ticks, dtype=np.float64)


def decimals_for(step: float) -> int:
    """Fewest decimals (at most 8) that write every multiple of ``step`` exactly."""
    step = abs(float(step))
    if not math.isfinite(step):
        return 0
    for decimals in range(_MAX_DECIMALS):
        scaled = step * 10**decimals
        if abs(scaled - round(scaled)) <= _SLACK * scaled:
            return decimals
    return _MAX_DECIMALS


def format_number(
    value: float | None,
    decimals: int = 2,
    *,
    sign: bool = False,
    percent: bool = False,
    compact: bool = False,
) -> str:
    """``value`` with thousands separators and a true minus; ``—`` for None or NaN.

    ``sign`` adds ``+`` to positive values; a value that shows as zero is never signed.
    ``percent`` multiplies by 100 and appends ``%``. ``compact`` writes ``|v| >= 1000`` with
    K, M, B or T and 0, 1 or 2 decimals for ``>= 100``, ``>= 10`` or less.
    """
    if decimals < 0:
        raise ValueError(f"decimals must be >= 0, got {decimals}.")
    if value is None or math.isnan(value):
        return _DASH
    number = float(value) * 100 if percent else float(value)
    magnitude = abs(number)
    if math.isinf(magnitude):
        body = _INFINITY
    elif compact and magnitude >= _COMPACT_UNITS[0][0]:
        body = _compact(magnitude)
    else:
        body = f"{magnitude:,.{decimals}f}"
    return _signed(number, body, sign) + ("%" if percent else "")


def _signed(number: float, body: str, sign: bool) -> str:
    """``body`` (the digits of ``|number|``) with a true minus, or ``+`` when ``sign``; a body
    that shows zero is never signed."""
    if not any(ch in "123456789" + _INFINITY for ch in body):
        return body
    if number < 0:
        return MINUS + body
    return "+" + body if sign else body


def _compact(magnitude: float) -> str:
    """``magnitude >= 1000`` written with a K, M, B or T suffix."""
    index = max(i for i, (unit, _) in enumerate(_COMPACT_UNITS) if magnitude >= unit)
    scaled = magnitude / _COMPACT_UNITS[index][0]
    if round(scaled) >= 1000 and index + 1 < len(_COMPACT_UNITS):
        index += 1
        scaled = magnitude / _COMPACT_UNITS[index][0]
    # Decide on the rounded figure, so 99.96K reads 100K, not 100.0K.
    decimals = _compact_decimals(round(scaled, _compact_decimals(scaled)))
    return f"{scaled:,.{decimals}f}{_COMPACT_UNITS[index][1]}"


def _compact_decimals(scaled: float) -> int:
    return 0 if scaled >= 100 else 1 if scaled >= 10 else 2


def tick_labels(
    ticks: Iterable[float], *, percent: bool = False, compact: bool | None = None
) -> list[str]:
    """Labels for tick values, all written with the decimals of the smallest step between them.

    ``compact=None`` compacts when not ``percent`` and ``max|v| >= 10_000``. Compact labels are
    ``format_number(v, decimals, compact=True)``: ``|v| >= 1000`` reads with K, M, B or T, as
    in ``["0", "500K", "1.00M"]``; plain labels are used instead when two would read the same.
    """
    values = [float(tick) for tick in ticks]
    finite = sorted({v for v in values if math.isfinite(v)})
    decimals = _tick_decimals(finite, 100 if percent else 1)
    if compact is None:
        compact = not percent and bool(finite) and max(map(abs, finite)) >= _AUTO_COMPACT
    if compact:
        labels = [format_number(v, decimals, percent=percent, compact=True) for v in values]
        shown = {label for v, label in zip(values, labels, strict=True) if math.isfinite(v)}
        if len(shown) == len(finite):
            return labels
    return [format_number(v, decimals, percent=percent) for v in values]


def _tick_decimals(finite: Sequence[float], factor: float) -> int:
    """Decimals for ascending distinct ``finite`` ticks written times ``factor``: those of the
    smallest step, or of the only tick (at most 2)."""
    steps = [b - a for a, b in itertools.pairwise(finite)]
    if steps:
        return decimals_for(min(steps) * factor)
    return min(decimals_for(finite[0] * factor), 2) if finite else 0


def value_range(
    *arrays: ArrayLike, include: Iterable[float] = (), pad: float = 0.08
) -> tuple[float, float]:
    """Finite min and max of all values, widened by ``pad`` of the span on each side.

    ``(0.0, 1.0)`` when nothing is finite; a flat range is widened by
    ``max(1% of |value|, 1e-6)`` instead.
    """
    if not (math.isfinite(pad) and pad >= 0):
        raise ValueError(f"pad must be finite and >= 0, got {pad}.")
    parts = [np.asarray(a, dtype=np.float64).ravel() for a in (*arrays, list(include))]
    values = np.concatenate(parts)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return 0.0, 1.0
    low, high = float(values.min()), float(values.max())
    margin = pad * (high - low) if high > low else max(0.01 * abs(low), 1e-6)
    return low - margin, high + margin


def tick_count(height: float, scale: float) -> int:
    """Number of value ticks for a plot ``height`` pixels tall: one per 28 px, at least 3."""
    if not (math.isfinite(height) and math.isfinite(scale) and scale > 0):
        raise ValueError(f"height must be finite and scale > 0, got {height} and {scale}.")
    return max(int(height / (_TICK_SPACING * scale)), _MIN_TICKS)

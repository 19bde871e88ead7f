"""Validation helpers and messages shared by the finance environments."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from sekai.error import InvalidAction, ResetRequired

__all__ = [
    "EPISODE_ENDED",
    "action_floats",
    "check_float",
    "check_int",
    "episode_ended",
]

#: Message of the ``ResetRequired`` raised by a step after ``terminated or truncated``.
EPISODE_ENDED = (
    "The episode has ended (terminated or truncated); call reset() to start a new one "
    "before calling step() again."
)

_ACTION_KINDS = "iuf"


def episode_ended() -> ResetRequired:
    """The ``ResetRequired`` for a step after the episode ended (distinct from 'never reset')."""
    return ResetRequired(EPISODE_ENDED)


def _bounds_text(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low}")
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {high}")
    return " and ".join(parts)


def check_float(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` as a finite float within the bounds, else ``ValueError`` naming ``name``.

    ``low``/``high`` are inclusive unless ``low_open``/``high_open``; ``None`` means unbounded.
    Booleans and non-real values are refused.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}.")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name} must be finite, got {value!r}.")
    if (low is not None and (result <= low if low_open else result < low)) or (
        high is not None and (result >= high if high_open else result > high)
    ):
        bounds = _bounds_text(low, high, low_open, high_open)
        raise ValueError(f"{name} must be {bounds}, got {value!r}.")
    return result


def check_int(value: Any, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as an int within ``[low, high]``, else ``ValueError`` naming ``name``.

    Only integers are accepted (Python or NumPy; booleans and floats are refused).
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}.")
    result = int(value)
    if (low is not None and result < low) or (high is not None and result > high):
        raise ValueError(f"{name} must be {_bounds_text(low, high, False, False)}, got {value!r}.")
    return result


def action_floats(action: Any, space: Any, size: int) -> list[float]:
    """The ``size`` entries of a 1-D numeric action as finite Python floats.

    Any other shape, a non-numeric dtype or a NaN/inf entry raises ``InvalidAction(action,
    space)``. Values are not clipped.
    """
    try:
        array = np.asarray(action)
    except (TypeError, ValueError) as exc:
        raise InvalidAction(action, space) from exc
    if array.shape != (size,) or array.dtype.kind not in _ACTION_KINDS:
        raise InvalidAction(action, space)
    exact = array.dtype.kind == "f" and array.dtype.itemsize <= 8  # tolist() gives floats
    values: list[float] = (array if exact else array.astype(np.float64)).tolist()
    for value in values:
        if not math.isfinite(value):
            raise InvalidAction(action, space)
    return values

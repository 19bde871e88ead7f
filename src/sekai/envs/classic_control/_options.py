"""Validation helpers shared by the classic-control environments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from sekai.error import InvalidAction
from sekai.utils import validation

__all__ = ["FAST_INT_TYPES", "check_real", "first_action_element", "reset_bounds"]

_NUMERIC_KINDS = "biuf"

#: Integer types whose discrete actions are range-checked inline, without the space.
FAST_INT_TYPES: frozenset[type] = frozenset((int, np.int64, np.int32, np.intp))


def check_real(value: Any, name: str) -> float:
    """``value`` as a finite float: ``TypeError`` for a non-number or a bool, ``ValueError`` for
    NaN, inf or a sequence."""
    return validation.check_real(value, name)


def reset_bounds(
    options: Mapping[str, Any] | None, default_low: float, default_high: float
) -> tuple[float, float]:
    """Return ``(low, high)`` from ``options["low"]`` / ``options["high"]`` or the defaults.

    Each given bound must be a real number (``TypeError``) and ``low <= high`` (``ValueError``).
    """
    if not options:
        return default_low, default_high
    low = check_real(options["low"], "options['low']") if "low" in options else default_low
    high = check_real(options["high"], "options['high']") if "high" in options else default_high
    if low > high:
        raise ValueError(f"options['low'] ({low}) must not exceed options['high'] ({high}).")
    return low, high


def first_action_element(action: Any, space: Any) -> np.generic:
    """First element of ``action`` flattened to 1-D, keeping its dtype (never up-cast).

    ``TypeError`` for a non-numeric action, ``InvalidAction`` for an empty one.
    """
    if action.__class__ is np.ndarray:
        if action.ndim == 1 and action.dtype.kind in _NUMERIC_KINDS and action.shape[0]:
            fast: np.generic = action[0]
            return fast
        array = action
    else:
        try:
            array = np.asarray(action)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"action must be numeric, got {action!r}.") from exc
    if array.dtype.kind not in _NUMERIC_KINDS:
        raise TypeError(f"action must be numeric, got {action!r} (dtype {array.dtype}).")
    if array.size == 0:
        raise InvalidAction(action, space)
    element: np.generic = array.reshape(-1)[0]
    return element

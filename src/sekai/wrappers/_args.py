"""Argument checks shared by the wrapper modules."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["check_int", "func_or_fn"]


def check_int(value: Any, name: str, owner: str, minimum: int) -> int:
    """``value`` as an int; ``TypeError`` if it is not one, ``ValueError`` below ``minimum``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{owner}: {name} must be an int, got {type(value).__name__} {value!r}.")
    if value < minimum:
        raise ValueError(f"{owner}: {name} must be at least {minimum}, got {value}.")
    return int(value)


def func_or_fn(
    func: Callable[..., Any] | None, fn: Callable[..., Any] | None, owner: str
) -> Callable[..., Any]:
    """The callable given as ``func``, or as the deprecated alias ``fn`` (with a warning)."""
    if fn is not None:
        if func is not None:
            raise TypeError(f"{owner}() got both func and fn; pass only func.")
        warnings.warn(
            f"{owner}(fn=...) is deprecated; pass func=... instead.",
            DeprecationWarning,
            stacklevel=3,
        )
        func = fn
    if func is None:
        raise TypeError(f"{owner}() missing required argument: 'func'")
    if not callable(func):
        raise TypeError(f"{owner}: func must be callable, got {type(func).__name__}.")
    return func

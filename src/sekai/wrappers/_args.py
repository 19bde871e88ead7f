"""Argument checks shared by the wrapper modules."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from sekai.utils import validation

__all__ = ["check_int", "check_real", "func_or_fn"]


def check_int(value: Any, name: str, owner: str, minimum: int) -> int:
    """``value`` as an int of at least ``minimum``, checked as ``sekai.utils.validation`` does."""
    return validation.check_int(value, f"{owner}: {name}", low=minimum)


def check_real(value: Any, name: str, owner: str, **bounds: Any) -> float:
    """``value`` as a float within ``bounds`` (those of ``sekai.utils.validation.check_real``)."""
    return validation.check_real(value, f"{owner}: {name}", **bounds)


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

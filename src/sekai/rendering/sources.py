"""Sources, what a panel reads from an env, and colour specs, how it names its colours."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, TypeGuard

import numpy as np

from sekai.rendering.theme import Color, Theme, rgb

__all__ = [
    "Source",
    "read",
    "is_source",
    "check_source",
    "ColorSpec",
    "resolve_color",
    "finite_number",
    "positive_number",
]

Source: TypeAlias = str | Callable[[Any], Any]
"""An attribute path on ``env.unwrapped`` or a function of the env."""

ColorSpec: TypeAlias = str | tuple[int, int, int] | int | None
"""A theme role, ``"#hex"``, ``(r, g, b)``, a series slot, or None (the panel's slot)."""

_COLOR_ROLES = ("text", "price", "accent", "neutral", "up", "down", "highlight", "text_muted")


def read(env: Any, source: Source) -> Any:
    """The value of ``source`` for ``env``: ``source(env)``, or an attribute path on
    ``env.unwrapped`` (nothing on the path is called).

    A path of a single name missing on the base env is looked up with ``env.get_attr``, which
    finds wrapper attributes such as ``elapsed_steps``.
    """
    if callable(source):
        return source(env)
    if not isinstance(source, str):
        raise TypeError(f"A source is an attribute path or a callable, got {source!r}.")
    head, *rest = source.split(".")
    try:
        value = getattr(getattr(env, "unwrapped", env), head)
    except AttributeError:
        if rest or not hasattr(env, "get_attr"):
            raise
        return env.get_attr(head)
    for name in rest:
        value = getattr(value, name)
    return value


def is_source(value: Any) -> TypeGuard[Source]:
    """Whether ``value`` can be a source: a string or a callable."""
    return isinstance(value, str) or callable(value)


def check_source(value: Any, name: str) -> Source:
    """``value`` if it can be a source, else a ``TypeError`` naming the argument ``name``."""
    if not is_source(value):
        raise TypeError(f"{name} must be an attribute path or a callable, got {value!r}.")
    return value


def resolve_color(theme: Theme, spec: ColorSpec, slot: int = 0) -> Color:
    """The colour ``spec`` names in ``theme``; None gives series colour ``slot``."""
    if isinstance(spec, bool | np.bool_):
        raise TypeError(f"A colour cannot be a bool, got {spec!r}.")
    if spec is None:
        return theme.color(slot)
    if isinstance(spec, numbers.Integral):
        return theme.color(int(spec))
    if isinstance(spec, str):
        if spec.startswith("#"):
            return rgb(spec)
        if spec in _COLOR_ROLES:
            color: Color = getattr(theme, spec)
            return color
        raise ValueError(
            f"Unknown colour role {spec!r}; expected '#hex' or one of {', '.join(_COLOR_ROLES)}."
        )
    if isinstance(spec, Sequence):
        return rgb(spec)
    raise TypeError(
        f"A colour is a role name, '#hex', (r, g, b), a slot or None, got {type(spec).__name__}."
    )


def finite_number(value: Any) -> float | None:
    """``value`` as a finite float, or None when it is not a finite real number."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_):
        number = float(value)
        if math.isfinite(number):
            return number
    return None


def positive_number(value: Any, name: str) -> float:
    """``value`` as a float if it is a finite number above zero, else a ``ValueError``."""
    number = finite_number(value)
    if number is None or number <= 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}.")
    return number

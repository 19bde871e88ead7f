"""Validation helpers and messages shared by the finance environments.

``check_float`` and ``check_int`` are the shared argument checks of ``sekai.utils.validation``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sekai.error import InvalidAction, ResetRequired
from sekai.utils.validation import check_bool, check_int
from sekai.utils.validation import check_real as check_float

__all__ = [
    "EPISODE_ENDED",
    "action_floats",
    "check_float",
    "check_int",
    "episode_ended",
    "random_start_option",
]

#: Message of the ``ResetRequired`` raised by a step after ``terminated or truncated``.
EPISODE_ENDED = (
    "The episode has ended (terminated or truncated); call reset() to start a new one "
    "before calling step() again."
)

_ACTION_KINDS = "iuf"


def random_start_option(options: Any, default: bool) -> bool:
    """Whether a reset with ``options`` (checked already) starts at random: the bool
    ``options["random_start"]`` when given, else ``default`` (the env's ``random_start``)."""
    if not options or "random_start" not in options:
        return default
    return check_bool(options["random_start"], "options['random_start']")


def episode_ended() -> ResetRequired:
    """The ``ResetRequired`` for a step after the episode ended (distinct from 'never reset')."""
    return ResetRequired(EPISODE_ENDED)


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

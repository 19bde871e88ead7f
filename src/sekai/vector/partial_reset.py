"""Partial resets: ``vec.reset(options={"reset_mask": mask})`` resets only some sub-envs.

``mask`` is gymnasium's convention: a bool array of shape ``(num_envs,)``, True for the
sub-envs to reset. The other keys of ``options`` go to the reset sub-envs (None when none is
left); the rows of the other sub-envs hold their current observation and ``{}`` as info.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["RESET_MASK", "PARTIAL_RESET_FIRST", "split_reset_mask"]

RESET_MASK = "reset_mask"
"""The ``options`` key that selects the sub-envs a vector ``reset()`` resets."""

PARTIAL_RESET_FIRST = (
    "reset(options={'reset_mask': mask}) keeps the current episode of every sub-env it does "
    "not select, and there is none yet: call reset() without a mask first."
)
"""Message of the ``ResetRequired`` raised by a partial reset before the first full one."""


def _check_mask(mask: Any, num_envs: int) -> NDArray[np.bool_]:
    """``mask`` as a new bool array of shape ``(num_envs,)``; TypeError / ValueError else."""
    expected = f"a bool array of shape ({num_envs},), one entry per sub-env"
    try:
        array = np.array(mask)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"options['reset_mask'] must be {expected}, got {mask!r}.") from exc
    if array.dtype != np.bool_:
        raise TypeError(
            f"options['reset_mask'] must be {expected}, got dtype {array.dtype}: {mask!r}."
        )
    if array.shape != (num_envs,):
        raise ValueError(f"options['reset_mask'] must be {expected}, got shape {array.shape}.")
    return array


def split_reset_mask(options: Any, num_envs: int) -> tuple[NDArray[np.bool_] | None, Any]:
    """``(mask, options)`` of a vector ``reset()``: the checked reset mask and the rest.

    Without a ``"reset_mask"`` key (options None, a list, or a mapping without it) this is
    ``(None, options)``, a full reset. Otherwise the mask is checked (``TypeError`` unless a
    bool array, ``ValueError`` unless of shape ``(num_envs,)``) and the other keys make a new
    dict (None when none is left); a mask that selects every sub-env gives ``(None, rest)``,
    a full reset. A list of per-sub-env options cannot hold a mask (``ValueError``).
    """
    if options is None:
        return None, None
    if isinstance(options, list):
        if any(isinstance(entry, Mapping) and RESET_MASK in entry for entry in options):
            raise ValueError(
                "options['reset_mask'] goes in one options dict for every sub-env, not in a "
                "list of per-sub-env options: reset(options={'reset_mask': mask, ...})."
            )
        return None, options
    if not isinstance(options, Mapping) or RESET_MASK not in options:
        return None, options
    mask = _check_mask(options[RESET_MASK], num_envs)
    rest = {key: value for key, value in options.items() if key != RESET_MASK} or None
    return (None if mask.all() else mask), rest

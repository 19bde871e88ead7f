"""Action masks: which actions are valid in the current state.

An env that restricts its actions implements ``action_mask()``, returning a mask in the layout
its ``action_space.sample(mask=...)`` accepts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.spaces.box import Box
from sekai.spaces.discrete import Discrete
from sekai.spaces.multi_binary import MultiBinary
from sekai.spaces.multi_discrete import MultiDiscrete
from sekai.spaces.space import Space

__all__ = ["action_mask_space", "flatten_action_mask", "get_action_mask", "supports_action_mask"]


def supports_action_mask(env: Any) -> bool:
    """Whether ``env`` (or any layer of its wrapper stack) defines ``action_mask``."""
    has_attr = getattr(env, "has_attr", None)
    if callable(has_attr):
        return bool(has_attr("action_mask"))
    return hasattr(env, "action_mask")


def get_action_mask(env: Any) -> Any:
    """The env's current action mask, or None if it does not provide one."""
    if not supports_action_mask(env):
        return None
    get_attr = getattr(env, "get_attr", None)
    mask = get_attr("action_mask") if callable(get_attr) else env.action_mask
    return mask() if callable(mask) else mask


def _unsupported(space: Space[Any]) -> TypeError:
    return TypeError(
        f"Action masks are defined for Discrete, MultiDiscrete and Box spaces, got {space!r}."
    )


def action_mask_space(space: Space[Any]) -> MultiBinary:
    """The MultiBinary space of flattened masks for ``space`` (see ``flatten_action_mask``)."""
    if isinstance(space, Discrete):
        return MultiBinary(space.n)
    if isinstance(space, MultiDiscrete):
        return MultiBinary(int(space.nvec.sum()))
    if isinstance(space, Box):
        return MultiBinary(int(np.prod(space.shape)))
    raise _unsupported(space)


def flatten_action_mask(space: Space[Any], mask: Any) -> NDArray[np.bool_]:
    """``mask`` in the flat boolean layout of ``action_mask_space(space)``.

    Discrete: ``(n,)``. MultiDiscrete: the per-entry flags concatenated (``sum(nvec)``). Box:
    broadcast to the shape and flattened. A mask of the wrong shape raises ``ValueError``.
    """
    if isinstance(space, Discrete):
        flags = np.asarray(mask)
        flat = flags.reshape(-1)
        if flat.shape != (space.n,):
            raise ValueError(
                f"mask.shape is {flags.shape}; an action mask for {space!r} "
                f"must have shape ({space.n},)."
            )
        return flat == 1
    if isinstance(space, MultiDiscrete):
        entries = space._mask_entries(mask)
        return np.concatenate([np.zeros(0, dtype=bool), *(np.asarray(e) == 1 for e in entries)])
    if isinstance(space, Box):
        flags = np.asarray(mask)
        try:
            return np.broadcast_to(flags, space.shape).reshape(-1) != 0
        except ValueError as exc:
            raise ValueError(
                f"mask.shape is {flags.shape}, which does not broadcast to the shape "
                f"{space.shape} of {space!r}."
            ) from exc
    raise _unsupported(space)

"""MarketMaking's two action encodings: quote distances, or centred actions in ``[-1, 1]``.

Under the centred encoding action ``a`` quotes ``c·(1 + a)`` from the mid, where ``c`` is the
env's ``default_offset`` (the Avellaneda-Stoikov half-spread at the start): action 0 quotes
``c`` on both sides, -1 quotes at the mid and +1 twice as far out. ``centre=None`` stands
for the plain encoding, where the action is the quote distance itself. Quote distances are
always clipped to ``[0, max_offset]``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["actions_to_offsets", "offsets_to_actions"]


def actions_to_offsets(
    actions: ArrayLike, centre: float | None, max_offset: float
) -> NDArray[np.float64]:
    """The quote distances that ``actions`` stand for (centred actions clipped to [-1, 1])."""
    values = np.asarray(actions, dtype=np.float64)
    if centre is not None:
        values = centre * (1.0 + np.clip(values, -1.0, 1.0))
    return np.clip(values, 0.0, max_offset)


def offsets_to_actions(
    offsets: ArrayLike, centre: float | None, max_offset: float
) -> NDArray[np.float32]:
    """The float32 actions that quote ``offsets`` (as near as the action space allows)."""
    distances = np.clip(np.asarray(offsets, dtype=np.float64), 0.0, max_offset)
    if centre is None:
        return distances.astype(np.float32)
    if centre == 0.0:  # every centred action quotes at the mid
        return np.zeros(distances.shape, np.float32)
    return np.clip(distances / centre - 1.0, -1.0, 1.0).astype(np.float32)

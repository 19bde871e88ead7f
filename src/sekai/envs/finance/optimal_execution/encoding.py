"""The TWAP-centred action of OptimalExecution: ``a`` in ``[-1, 1]`` as a share of the inventory.

With ``m`` steps left (this one included), TWAP sells ``1/m`` of the inventory held. The action
scales that rate by ``1 + a`` for ``a <= 0`` and by ``1 + a·(m - 1)`` for ``a > 0``, so the
share sold is ``(1 + a)/m`` below 0 and ``1/m + a·(1 - 1/m)`` above it: ``a = -1`` sells
nothing, ``a = 0`` sells at the TWAP rate and ``a = 1`` sells everything, linearly in between
on each side. Only ``+``, ``-``, ``·`` and ``/`` are used, so the float and the array forms
agree bit for bit.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["centred_fraction", "centred_fractions", "fractions_to_centred"]


def centred_fraction(action: float, steps_left: int) -> float:
    """The share of the inventory that ``action`` (clipped to ``[-1, 1]``) sells."""
    a = min(max(action, -1.0), 1.0)
    twap = 1.0 / steps_left
    return twap * (1.0 + a) if a <= 0.0 else twap + a * (1.0 - twap)


def centred_fractions(actions: NDArray[np.float64], steps_left: ArrayLike) -> NDArray[np.float64]:
    """``centred_fraction`` of each entry of ``actions`` (clipped to ``[-1, 1]``)."""
    a = np.clip(actions, -1.0, 1.0)
    twap = 1.0 / np.asarray(steps_left, dtype=np.float64)
    fractions: NDArray[np.float64] = np.where(a <= 0.0, twap * (1.0 + a), twap + a * (1.0 - twap))
    return fractions


def fractions_to_centred(fractions: ArrayLike, steps_left: ArrayLike) -> NDArray[np.float64]:
    """The actions in ``[-1, 1]`` that sell ``fractions`` (in ``[0, 1]``) with ``steps_left``."""
    f = np.asarray(fractions, dtype=np.float64)
    m = np.asarray(steps_left, dtype=np.float64)
    twap = 1.0 / m
    above = f > twap  # never true on the last step (m = 1), where twap = 1
    slower = f * m - 1.0
    faster = (f - twap) / np.where(above, 1.0 - twap, 1.0)
    actions: NDArray[np.float64] = np.clip(np.where(above, faster, slower), -1.0, 1.0)
    return actions

"""Market's discrete action mode: hold, or buy or sell one slot by a fixed step.

With ``S`` slots the action is ``Discrete(2 * S + 1)``: ``0`` holds, ``1 + j`` buys slot
``j`` and ``1 + S + j`` sells it. A buy raises the slot's weight by ``trade_size`` (a
fraction of equity), a sell lowers it by as much; either stops at the slot's limits. The
limits of slot ``j`` keep the gross exposure ``sum(|w|)`` within ``max_leverage``:
``|w[j]| <= max_leverage - sum(|w[k]|, k != j)``, and long-only ``w[j] >= 0``; a trade
towards 0 is always allowed, as it lowers the gross exposure. Long-only with
``max_leverage=1`` a buy thus spends at most the cash left and a sell gives back at most what
the slot holds.

The functions take arrays with any leading batch axes, so that the single env and its native
vector version compute the same numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.finance.account import AccountConfig
from sekai.finance.costs import _rowsum

__all__ = ["MIN_TRADE", "trade_mask", "trade_targets"]

Array = NDArray[np.float64]

MIN_TRADE = 1e-9
"""A buy or sell that could move its slot's weight by no more than this is masked."""


def _rooms(
    weights: Array, tradable: NDArray[np.bool_], config: AccountConfig
) -> tuple[Array, Array]:
    """How far each slot's weight may rise and fall, ``(..., S)`` each; 0 where not tradable.

    A slot may always move towards 0 (that lowers the gross exposure), and beyond its current
    size only within its leverage limit.
    """
    size = np.abs(weights)
    cap = config.max_leverage - (_rowsum(size)[..., None] - size)
    high = np.maximum(cap, np.maximum(weights, 0.0))
    low = np.minimum(-cap, np.minimum(weights, 0.0)) if config.allow_short else 0.0
    up = np.where(tradable, high - weights, 0.0)
    down = np.where(tradable, weights - low, 0.0)
    return up, down


def trade_mask(
    weights: Array, tradable: NDArray[np.bool_], config: AccountConfig
) -> NDArray[np.int8]:
    """Int8 ``(..., 2S + 1)``: 1 for hold, then per slot whether a buy, then a sell, can trade.

    A slot can trade when it is tradable and its weight can move by more than ``MIN_TRADE``
    in that direction.
    """
    up, down = _rooms(weights, tradable, config)
    slots = weights.shape[-1]
    mask = np.ones((*weights.shape[:-1], 2 * slots + 1), dtype=np.int8)
    mask[..., 1 : slots + 1] = up > MIN_TRADE
    mask[..., slots + 1 :] = down > MIN_TRADE
    return mask


def trade_targets(
    actions: Any,
    weights: Array,
    tradable: NDArray[np.bool_],
    config: AccountConfig,
    trade_size: float,
) -> Array:
    """Slot weights ``(..., S)`` after the discrete ``actions`` (shape ``weights.shape[:-1]``).

    The traded slot moves by ``min(trade_size, room)``; a masked action (see ``trade_mask``)
    leaves every weight as it is, like hold.
    """
    up, down = _rooms(weights, tradable, config)
    slots = np.arange(weights.shape[-1])
    chosen = np.asarray(actions)[..., None]
    buy = (chosen == 1 + slots) & (up > MIN_TRADE)
    sell = (chosen == 1 + len(slots) + slots) & (down > MIN_TRADE)
    bought = np.where(buy, np.minimum(trade_size, up), 0.0)
    sold = np.where(sell, np.minimum(trade_size, down), 0.0)
    result: Array = weights + bought - sold
    return result

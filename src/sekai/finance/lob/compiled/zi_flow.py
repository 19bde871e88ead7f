"""``ZeroIntelligenceFlow`` on ``book_rules``' compiled book, drawing as ``lob/zi_flow.py`` does.

The same events, in the same order, from the same ``np.random.Generator`` draws as
``ZeroIntelligenceFlow.initialise`` and ``advance``; the flow's parameters are the book
state's ``params`` (``P_*`` entries). Imported only with numba.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit
from numba.np.random.random_methods import buffered_bounded_lemire_uint32

from sekai.finance.lob.compiled.book_rules import best, cancel, limit, market
from sekai.finance.lob.compiled.book_state import (
    ASK,
    BACKGROUND,
    BACKGROUND_LIST,
    BID,
    M_LAST_PRICE,
    M_N_ASK,
    M_N_BID,
    M_N_OWNED,
    P_CANCEL,
    P_DECAY,
    P_LIMIT,
    P_MARKET,
    P_MAX_OFFSET,
    P_MEAN_SIZE,
    clear,
    last_price,
)

__all__ = ["flow_advance", "flow_initialise"]


@njit(cache=True)
def _draw_index(state: Any, n: int) -> int:
    """``rng.integers(n)`` for ``n >= 1``, drawn as NumPy draws it, without an array."""
    span = n - 1
    if span == 0:
        return 0
    if span < 0xFFFFFFFF:
        return np.int64(buffered_bounded_lemire_uint32(state.rng.bit_generator, span))
    return state.rng.integers(0, n)


@njit(cache=True)
def _draw_size(state: Any) -> int:
    mean_size = state.params[P_MEAN_SIZE]
    if mean_size == 1.0:
        return 1
    return 1 + state.rng.poisson(mean_size - 1.0)


@njit(cache=True)
def _draw_offset(state: Any) -> int:
    u = state.rng.random()
    n = int(state.params[P_MAX_OFFSET])
    decay = state.params[P_DECAY]
    if decay == 0.0:
        k = int(u * n) + 1
    else:
        k = math.ceil(-math.log1p(u * math.expm1(-decay * n)) / decay)
    return min(max(k, 1), n)


@njit(cache=True)
def _flow_place(state: Any, side: int) -> None:
    """One background limit order on ``side``: offset drawn first, then size."""
    if side > 0:
        ref = best(state, ASK)
        if ref == 0:
            bid = best(state, BID)
            ref = bid + 1 if bid != 0 else int(last_price(state))
    else:
        ref = best(state, BID)
        if ref == 0:
            ask = best(state, ASK)
            ref = ask - 1 if ask != 0 else int(last_price(state))
    k = _draw_offset(state)
    price = max(ref - k, 1) if side > 0 else ref + k
    limit(state, side, price, _draw_size(state), BACKGROUND)


@njit(cache=True)
def flow_initialise(state: Any, mid: int, levels: int, orders_per_level: int) -> None:
    """``ZeroIntelligenceFlow.initialise``: clear, then lay the orders around ``mid``."""
    clear(state)
    state.meta[M_LAST_PRICE] = mid
    for d in range(1, levels + 1):
        for _ in range(orders_per_level):
            limit(state, BID, max(mid - d, 1), _draw_size(state), BACKGROUND)
            limit(state, ASK, mid + d, _draw_size(state), BACKGROUND)


@njit(cache=True)
def flow_advance(state: Any, end: float) -> None:
    """``ZeroIntelligenceFlow.advance`` to ``end`` (checked by the caller); fills appended."""
    params = state.params
    meta = state.meta
    rng = state.rng
    limit_rate = params[P_LIMIT]
    limits = 2 * limit_rate
    buys = 2 * limit_rate + params[P_MARKET]
    flow_rate = 2 * limit_rate + 2 * params[P_MARKET]
    cancel_rate = params[P_CANCEL]
    t = state.clock[0]
    while True:
        n_background = meta[M_N_OWNED + BACKGROUND_LIST]
        rate = flow_rate + cancel_rate * n_background
        t += rng.standard_exponential() / rate
        if t > end:
            break
        state.clock[0] = t
        u = rng.random() * rate
        if u < limits:
            _flow_place(state, 1 if u < limit_rate else -1)
        elif u < flow_rate:
            if u < buys:
                if meta[M_N_ASK] > 0:
                    market(state, BID, _draw_size(state), BACKGROUND)
            elif meta[M_N_BID] > 0:
                market(state, ASK, _draw_size(state), BACKGROUND)
        else:
            index = _draw_index(state, n_background)
            cancel(state, state.owned[BACKGROUND_LIST, index])
    while meta[M_N_BID] == 0 or meta[M_N_ASK] == 0:
        _flow_place(state, 1 if meta[M_N_BID] == 0 else -1)
    state.clock[0] = end

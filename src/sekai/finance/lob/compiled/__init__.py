"""The numba twin of the order book: what the LOB environments' compiled engine uses.

Each module twins the pure-Python module it is named after: ``book_state`` (the arrays of a
compiled book), ``book_rules`` (``OrderBook``'s rules on them) and ``book`` (``CompiledBook``,
the ``OrderBook`` interface over them) twin ``lob/book.py``; ``zi_flow`` twins
``lob/zi_flow.py``; ``lobster_replay``, ``lobster_flow`` and ``lobster_read`` twin
``lob/lobster/replay.py``, ``flow.py`` and ``read.py``. ``compiling`` says when numba
compiles. This face gives the environments the names they use, as
``from sekai.finance.lob import compiled as compiled_lob``. Imported only with numba.
"""

from __future__ import annotations

from sekai.finance.lob.compiled.book import CompiledBook
from sekai.finance.lob.compiled.book_rules import (
    best,
    cancel,
    depth_into,
    level_of,
    limit,
    market,
    queue_ahead,
    slot_of,
)
from sekai.finance.lob.compiled.book_state import (
    ASK,
    BID,
    F_MAKER_OWNER,
    F_PRICE,
    F_QTY,
    F_TAKER_OWNER,
    F_TAKER_SIDE,
    FRACTIONAL,
    L_VOLUME,
    M_HALTED,
    M_LAST_PRICE,
    M_N_BID,
    M_N_FILLS,
    O_PRICE,
    O_QTY,
    clock_of,
    copy_head,
    export,
    last_price,
    new_state,
    restore,
    set_rng,
)
from sekai.finance.lob.compiled.compiling import reporting
from sekai.finance.lob.compiled.lobster_flow import new_tape, replay_advance, replay_seek
from sekai.finance.lob.compiled.zi_flow import flow_advance, flow_initialise

__all__ = [
    "ASK",
    "BID",
    "FRACTIONAL",
    "F_MAKER_OWNER",
    "F_PRICE",
    "F_QTY",
    "F_TAKER_OWNER",
    "F_TAKER_SIDE",
    "L_VOLUME",
    "M_HALTED",
    "M_LAST_PRICE",
    "M_N_BID",
    "M_N_FILLS",
    "O_PRICE",
    "O_QTY",
    "CompiledBook",
    "best",
    "cancel",
    "clock_of",
    "copy_head",
    "depth_into",
    "export",
    "flow_advance",
    "flow_initialise",
    "last_price",
    "level_of",
    "limit",
    "market",
    "new_state",
    "new_tape",
    "queue_ahead",
    "replay_advance",
    "replay_seek",
    "reporting",
    "restore",
    "set_rng",
    "slot_of",
]

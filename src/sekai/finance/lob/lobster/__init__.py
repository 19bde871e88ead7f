"""LOBSTER data: its columns, reading, replay, historical flow, and simulated days.

``data`` holds ``LobsterData`` (a message file and its order-book file as arrays); ``read``
reads the files (``read_lobster``); ``replay`` rebuilds the book message by message;
``flow`` replays a day as the background flow agents trade in (``HistoricalFlow``);
``simulate`` makes and writes synthetic days (``simulate_lobster``, ``write_lobster``). This
package took the place of the module ``sekai.finance.lob.lobster`` and still gives its names.
"""

from __future__ import annotations

from sekai.finance.lob.lobster.data import LobsterData, lobster_file_name
from sekai.finance.lob.lobster.flow import HistoricalFlow
from sekai.finance.lob.lobster.read import read_lobster
from sekai.finance.lob.lobster.replay import ANONYMOUS, EMPTY_ASK, EMPTY_BID, LobsterEvent
from sekai.finance.lob.lobster.simulate import simulate_lobster, write_lobster

__all__ = [
    "ANONYMOUS",
    "EMPTY_ASK",
    "EMPTY_BID",
    "HistoricalFlow",
    "LobsterData",
    "LobsterEvent",
    "lobster_file_name",
    "read_lobster",
    "simulate_lobster",
    "write_lobster",
]

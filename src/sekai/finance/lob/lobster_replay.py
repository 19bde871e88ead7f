"""Former path of the LOBSTER replay, kept as a re-export: it lives in ``lobster.replay``."""

from sekai.finance.lob.lobster.replay import ANONYMOUS as ANONYMOUS
from sekai.finance.lob.lobster.replay import EMPTY_ASK as EMPTY_ASK
from sekai.finance.lob.lobster.replay import EMPTY_BID as EMPTY_BID
from sekai.finance.lob.lobster.replay import LobsterEvent as LobsterEvent
from sekai.finance.lob.lobster.replay import depth_rows as depth_rows
from sekai.finance.lob.lobster.replay import replay as replay

__all__ = ["ANONYMOUS", "EMPTY_ASK", "EMPTY_BID", "LobsterEvent", "depth_rows", "replay"]

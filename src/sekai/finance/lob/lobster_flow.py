"""Former path of ``HistoricalFlow``, kept as a re-export: it lives in ``lobster.flow``."""

from sekai.finance.lob.lobster.flow import HistoricalFlow as HistoricalFlow

__all__ = ["HistoricalFlow"]

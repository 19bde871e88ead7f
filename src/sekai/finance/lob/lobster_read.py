"""Former path of ``read_lobster``, kept as a re-export: it lives in ``lobster.read``."""

from sekai.finance.lob.lobster.read import read_lobster as read_lobster

__all__ = ["read_lobster"]

"""Former path of the LOBSTER simulator, kept as a re-export: it lives in ``lobster.simulate``."""

from sekai.finance.lob.lobster.simulate import simulate_lobster as simulate_lobster
from sekai.finance.lob.lobster.simulate import write_lobster as write_lobster

__all__ = ["simulate_lobster", "write_lobster"]

"""Ready-made wrappers."""

from sekai.wrappers.common import AutoReset, OrderEnforcing, RecordEpisodeStatistics, TimeLimit

__all__ = ["TimeLimit", "AutoReset", "OrderEnforcing", "RecordEpisodeStatistics"]

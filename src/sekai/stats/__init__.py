"""Episode statistics and trackers."""

from sekai.stats.collectors import InMemoryTracker, LoggingTracker
from sekai.stats.tracker import EpisodeStats, StatsTracker

__all__ = ["EpisodeStats", "StatsTracker", "InMemoryTracker", "LoggingTracker"]

"""gymnasium's ``wrappers.record_episode_statistics`` module path to ``RecordEpisodeStatistics``."""

from sekai.wrappers.common import RecordEpisodeStatistics

__all__ = ["RecordEpisodeStatistics"]

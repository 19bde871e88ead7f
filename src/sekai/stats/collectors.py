"""Ready-made statistics trackers."""

from __future__ import annotations

import logging
from collections import deque
from typing import Any

from sekai.stats.tracker import EpisodeStats
from sekai.utils.validation import check_int

__all__ = ["InMemoryTracker", "LoggingTracker"]


class InMemoryTracker:
    """Keeps the last ``max_episodes`` episodes (all of them if None) in ``episodes``."""

    def __init__(self, max_episodes: int | None = 100) -> None:
        if max_episodes is not None:
            max_episodes = check_int(max_episodes, "InMemoryTracker: max_episodes", low=1)
        self.episodes: deque[EpisodeStats] = deque(maxlen=max_episodes)
        self._current_return = 0.0
        self._current_length = 0

    def on_reset(self, env_id: str | None, seed: int | None) -> None:
        """Start counting a new episode."""
        self._current_return = 0.0
        self._current_length = 0

    def on_step(
        self, reward: float, terminated: bool, truncated: bool, info: dict[str, Any]
    ) -> None:
        """Add one step to the running episode."""
        self._current_return += float(reward)
        self._current_length += 1

    def on_episode_end(self, stats: EpisodeStats) -> None:
        """Store ``stats`` (the oldest episode drops out when full)."""
        self.episodes.append(stats)
        self._current_return = 0.0
        self._current_length = 0

    def mean_return(self) -> float:
        """Mean return over the stored episodes; 0.0 when there are none."""
        if not self.episodes:
            return 0.0
        return sum(e.episode_return for e in self.episodes) / len(self.episodes)

    def mean_length(self) -> float:
        """Mean length over the stored episodes; 0.0 when there are none."""
        if not self.episodes:
            return 0.0
        return sum(e.episode_length for e in self.episodes) / len(self.episodes)

    def summary(self) -> dict[str, Any]:
        """``num_episodes``, ``mean_return``, ``min_return``, ``max_return``, ``mean_length``.

        Empty when no episode has finished.
        """
        if not self.episodes:
            return {}
        returns = [e.episode_return for e in self.episodes]
        return {
            "num_episodes": len(self.episodes),
            "mean_return": self.mean_return(),
            "min_return": min(returns),
            "max_return": max(returns),
            "mean_length": self.mean_length(),
        }

    def __repr__(self) -> str:
        return (
            f"InMemoryTracker(max_episodes={self.episodes.maxlen}, episodes={len(self.episodes)})"
        )


class LoggingTracker:
    """Logs every finished episode at INFO as ``"episode_end"`` with the figures in ``extra``."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        if logger is not None and not isinstance(logger, logging.Logger):
            raise TypeError(
                f"logger must be a logging.Logger or None, got {type(logger).__name__}."
            )
        self.logger = logging.getLogger("sekai.stats") if logger is None else logger

    def on_reset(self, env_id: str | None, seed: int | None) -> None:
        """Nothing to do."""

    def on_step(
        self, reward: float, terminated: bool, truncated: bool, info: dict[str, Any]
    ) -> None:
        """Nothing to do."""

    def on_episode_end(self, stats: EpisodeStats) -> None:
        """Log the episode."""
        self.logger.info(
            "episode_end",
            extra={
                "episode_return": stats.episode_return,
                "episode_length": stats.episode_length,
                "elapsed_time": stats.elapsed_time,
                "terminated": stats.terminated,
                "truncated": stats.truncated,
            },
        )

    def summary(self) -> dict[str, Any]:
        """Always empty: nothing is kept."""
        return {}

"""Episode statistics and the protocol of the objects that collect them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = ["EpisodeStats", "StatsTracker"]


@dataclass(slots=True)
class EpisodeStats:
    """Summary of one finished episode; times come from ``time.monotonic()``."""

    episode_return: float
    episode_length: int
    elapsed_time: float
    start_time: float
    end_time: float
    terminated: bool
    truncated: bool
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        """``terminated or truncated``."""
        return bool(self.terminated or self.truncated)


@runtime_checkable
class StatsTracker(Protocol):
    """Receives episode events from ``RecordEpisodeStatistics`` and its vector counterpart."""

    def on_reset(self, env_id: str | None, seed: int | None) -> None:
        """An episode started."""

    def on_step(
        self, reward: float, terminated: bool, truncated: bool, info: dict[str, Any]
    ) -> None:
        """A step was taken."""

    def on_episode_end(self, stats: EpisodeStats) -> None:
        """An episode finished."""

    def summary(self) -> dict[str, Any]:
        """Aggregate figures over the episodes seen so far."""

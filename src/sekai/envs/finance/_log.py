"""``EpisodeLog``: what a finance env keeps of its episode for a dashboard drawn later.

A dashboard records what it draws at each frame; one asked for its first frame in the middle
or at the end of an episode reads the steps before from the env's log instead (see
``EnvDashboard``). The envs note the info they hand out at the reset and at each step, with
whatever else their dashboard draws.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

__all__ = ["LIMIT", "EpisodeLog"]

LIMIT = 10_000
"""The most records kept: the latest ones."""


class EpisodeLog:
    """The records of the current episode's reset and steps, oldest first, each with its step
    (or session time); at most ``LIMIT``, the latest. ``episode`` counts the episodes."""

    __slots__ = ("_entries", "episode")

    def __init__(self) -> None:
        self.episode = 0
        self._entries: deque[tuple[float, Any]] = deque(maxlen=LIMIT)

    def note(self, step: float, record: Any) -> None:
        """Keep ``record`` of ``step``; step 0 starts a new episode."""
        if step == 0:
            self.episode += 1
            self._entries.clear()
        self._entries.append((step, record))

    def __iter__(self) -> Iterator[tuple[float, Any]]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

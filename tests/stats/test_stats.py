"""Tests for sekai.stats: EpisodeStats, the StatsTracker protocol and the built-in trackers."""

from __future__ import annotations

import dataclasses
import logging
from collections import deque
from typing import Any

import pytest

import sekai.stats
from sekai.stats import EpisodeStats, InMemoryTracker, LoggingTracker, StatsTracker


def _stats(ret: float, length: int, *, terminated: bool = True) -> EpisodeStats:
    return EpisodeStats(ret, length, 0.5, 10.0, 10.5, terminated, not terminated)


def test_all() -> None:
    assert sekai.stats.__all__ == [
        "EpisodeStats",
        "StatsTracker",
        "InMemoryTracker",
        "LoggingTracker",
    ]


def test_episode_stats_is_mutable_slotted_dataclass() -> None:
    stats = EpisodeStats(1.5, 3, 0.25, 1.0, 1.25, False, True)
    assert stats.extra == {}
    assert stats.done
    assert not hasattr(stats, "__dict__")
    stats.episode_return = 2.0
    assert stats.episode_return == 2.0
    with pytest.raises(AttributeError):
        stats.unknown = 1  # type: ignore[attr-defined]
    assert [f.name for f in dataclasses.fields(EpisodeStats)] == [
        "episode_return",
        "episode_length",
        "elapsed_time",
        "start_time",
        "end_time",
        "terminated",
        "truncated",
        "extra",
    ]
    assert repr(EpisodeStats(1.0, 2, 0.0, 0.0, 0.0, True, False)) == (
        "EpisodeStats(episode_return=1.0, episode_length=2, elapsed_time=0.0, start_time=0.0, "
        "end_time=0.0, terminated=True, truncated=False, extra={})"
    )
    assert EpisodeStats(0.0, 0, 0.0, 0.0, 0.0, False, False).done is False


def test_extra_default_is_not_shared() -> None:
    a, b = _stats(1.0, 1), _stats(1.0, 1)
    a.extra["k"] = 1
    assert b.extra == {}


def test_builtin_trackers_satisfy_protocol() -> None:
    assert isinstance(InMemoryTracker(), StatsTracker)
    assert isinstance(LoggingTracker(), StatsTracker)
    assert not isinstance(object(), StatsTracker)


def test_in_memory_tracker_summary() -> None:
    tracker = InMemoryTracker(max_episodes=2)
    assert tracker.summary() == {}
    assert tracker.mean_return() == 0.0
    assert tracker.mean_length() == 0.0
    assert isinstance(tracker.episodes, deque)
    assert tracker.episodes.maxlen == 2
    tracker.on_reset(env_id="X-v0", seed=1)
    tracker.on_step(1.0, False, False, {})
    for ret, length in [(1.0, 10), (3.0, 20), (8.0, 30)]:
        tracker.on_episode_end(_stats(ret, length))
    assert [e.episode_return for e in tracker.episodes] == [3.0, 8.0]
    assert tracker.summary() == {
        "num_episodes": 2,
        "mean_return": 5.5,
        "min_return": 3.0,
        "max_return": 8.0,
        "mean_length": 25.0,
    }
    assert tracker.mean_return() == 5.5
    assert tracker.mean_length() == 25.0


def test_in_memory_tracker_unbounded_and_validation() -> None:
    tracker = InMemoryTracker(max_episodes=None)
    for i in range(150):
        tracker.on_episode_end(_stats(float(i), 1))
    assert tracker.summary()["num_episodes"] == 150
    assert InMemoryTracker().episodes.maxlen == 100
    with pytest.raises(ValueError, match="max_episodes"):
        InMemoryTracker(max_episodes=0)
    with pytest.raises(TypeError, match="max_episodes"):
        InMemoryTracker(max_episodes=2.5)  # type: ignore[arg-type]
    assert InMemoryTracker(max_episodes=3.0).episodes.maxlen == 3  # type: ignore[arg-type]


def test_logging_tracker_logs_episode_end(caplog: pytest.LogCaptureFixture) -> None:
    tracker = LoggingTracker()
    assert tracker.logger.name == "sekai.stats"
    tracker.on_reset(env_id=None, seed=None)
    tracker.on_step(1.0, False, False, {})
    with caplog.at_level(logging.INFO, logger="sekai.stats"):
        tracker.on_episode_end(EpisodeStats(4.5, 7, 0.125, 1.0, 1.125, False, True))
    (record,) = caplog.records
    assert record.levelno == logging.INFO
    assert record.getMessage() == "episode_end"
    fields: dict[str, Any] = {
        k: getattr(record, k)
        for k in ("episode_return", "episode_length", "elapsed_time", "terminated", "truncated")
    }
    assert fields == {
        "episode_return": 4.5,
        "episode_length": 7,
        "elapsed_time": 0.125,
        "terminated": False,
        "truncated": True,
    }
    assert tracker.summary() == {}


def test_logging_tracker_custom_logger(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("sekai.tests.custom")
    tracker = LoggingTracker(logger)
    assert tracker.logger is logger
    with caplog.at_level(logging.INFO, logger="sekai.tests.custom"):
        tracker.on_episode_end(_stats(1.0, 1))
    assert [r.name for r in caplog.records] == ["sekai.tests.custom"]
    with pytest.raises(TypeError, match="logger"):
        LoggingTracker("sekai.stats")  # type: ignore[arg-type]


def test_in_memory_tracker_repr() -> None:
    tracker = InMemoryTracker(max_episodes=5)
    tracker.on_episode_end(_stats(1.0, 1))
    assert repr(tracker) == "InMemoryTracker(max_episodes=5, episodes=1)"

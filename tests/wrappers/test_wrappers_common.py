"""Tests for TimeLimit, AutoReset, OrderEnforcing and RecordEpisodeStatistics."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Coroutine
from typing import Any, TypeVar

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult, Wrapper
from sekai.error import ResetRequired
from sekai.registry import EnvSpec
from sekai.spaces import Discrete
from sekai.stats import EpisodeStats, InMemoryTracker, LoggingTracker
from sekai.wrappers import AutoReset, OrderEnforcing, RecordEpisodeStatistics, TimeLimit

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


class CountingEnv(Env[int, int]):
    """Observation = steps taken; terminates after ``length`` steps; reward ``reward``."""

    def __init__(self, length: int = 3, reward: Any = 1.0) -> None:
        self.length = length
        self.reward = reward
        self.observation_space = Discrete(length + 1)
        self.action_space = Discrete(2)
        self.t = 0
        self.resets = 0
        self.sync_calls = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[int]:
        self._set_rng(seed)
        self.sync_calls += 1
        self.t = 0
        self.resets += 1
        return ResetResult(0, {"resets": self.resets, "options": options})

    def step(self, action: int) -> StepResult[int]:
        self.sync_calls += 1
        self.t += 1
        return StepResult(self.t, self.reward, self.t >= self.length, False, {"t": self.t})


class AsyncCountingEnv(CountingEnv):
    """Counts calls that come through its genuine async methods."""

    def __init__(self, length: int = 3, reward: Any = 1.0) -> None:
        super().__init__(length, reward)
        self.async_calls = 0

    async def async_reset(
        self, *, seed: Any = None, options: dict[str, Any] | None = None
    ) -> ResetResult[int]:
        self.async_calls += 1
        return CountingEnv.reset(self, seed=seed, options=options)

    async def async_step(self, action: int) -> StepResult[int]:
        self.async_calls += 1
        return CountingEnv.step(self, action)


class TruncatingEnv(CountingEnv):
    def step(self, action: int) -> StepResult[int]:
        r = super().step(action)
        return StepResult(r.observation, r.reward, False, self.t >= self.length, r.info)


# TimeLimit ----------------------------------------------------------------------------------


def test_time_limit_truncates_and_counts() -> None:
    env = TimeLimit(CountingEnv(length=10), max_episode_steps=3)
    assert env.max_episode_steps == 3
    assert env.elapsed_steps == 0
    env.reset(seed=0)
    results = [env.step(0) for _ in range(3)]
    assert [(r.observation, r.terminated, r.truncated) for r in results] == [
        (1, False, False),
        (2, False, False),
        (3, False, True),
    ]
    assert [r.info for r in results] == [
        {"t": 1, "elapsed_steps": 1},
        {"t": 2, "elapsed_steps": 2},
        {"t": 3, "elapsed_steps": 3},
    ]
    assert env.elapsed_steps == 3
    assert env.step(0).truncated  # still past the limit
    env.reset()
    assert env.elapsed_steps == 0
    assert env.step(0).info["elapsed_steps"] == 1


def test_time_limit_keeps_inner_flags_and_info() -> None:
    base = CountingEnv(length=2)
    inner_infos: list[dict[str, Any]] = []
    original = base.step

    def spy(action: int) -> StepResult[int]:
        r = original(action)
        inner_infos.append(r.info)
        return r

    base.step = spy  # type: ignore[method-assign]
    env = TimeLimit(base, max_episode_steps=2)
    env.reset()
    env.step(0)
    last = env.step(0)
    assert last.terminated and last.truncated  # both flags: inner terminal at the limit
    assert last.info is not inner_infos[-1]
    assert inner_infos == [{"t": 1}, {"t": 2}]  # inner dicts never mutated

    trunc = TimeLimit(TruncatingEnv(length=1), max_episode_steps=5)
    trunc.reset()
    r = trunc.step(0)
    assert (r.terminated, r.truncated, r.info["elapsed_steps"]) == (False, True, 1)


@pytest.mark.parametrize("bad", [0, -1, -10])
def test_time_limit_rejects_non_positive(bad: int) -> None:
    with pytest.raises(ValueError, match="max_episode_steps"):
        TimeLimit(CountingEnv(), max_episode_steps=bad)


@pytest.mark.parametrize(
    ("bad", "exc"),
    [
        (1.5, TypeError),
        (float("inf"), TypeError),
        (float("nan"), TypeError),
        (0.0, ValueError),
        ("3", TypeError),
        (True, TypeError),
        (None, TypeError),
    ],
)
def test_time_limit_rejects_non_int(bad: Any, exc: type[Exception]) -> None:
    with pytest.raises(exc, match="max_episode_steps"):
        TimeLimit(CountingEnv(), max_episode_steps=bad)


def test_time_limit_accepts_numpy_int_and_exposes_attribute() -> None:
    env = OrderEnforcing(TimeLimit(CountingEnv(), max_episode_steps=np.int64(500)))
    assert type(env.get_attr("max_episode_steps")) is int
    assert env.get_attr("max_episode_steps") == 500
    assert TimeLimit(CountingEnv(), max_episode_steps=500.0).max_episode_steps == 500
    assert str(env) == "<OrderEnforcing(<TimeLimit(<CountingEnv>)>)>"
    assert len(env) == 3


def test_time_limit_rejects_non_env() -> None:
    with pytest.raises(TypeError, match=r"sekai\.Env"):
        TimeLimit(object(), max_episode_steps=3)  # type: ignore[arg-type]


def test_time_limit_async() -> None:
    base = AsyncCountingEnv(length=10)
    env = TimeLimit(base, max_episode_steps=2)

    async def episode() -> list[StepResult[int]]:
        await env.async_reset(seed=1)
        return [await env.async_step(0), await env.async_step(0)]

    first, second = run(episode())
    assert first.info == {"t": 1, "elapsed_steps": 1} and not first.truncated
    assert second.info == {"t": 2, "elapsed_steps": 2} and second.truncated
    assert base.async_calls == 3  # the inner env's genuine async path was used
    run(env.async_reset())
    assert env.elapsed_steps == 0


# AutoReset-ordering warning -------------------------------------------------------------------


def test_time_limit_warns_around_autoreset_at_any_depth() -> None:
    with pytest.warns(UserWarning, match="Make AutoReset the outermost wrapper"):
        TimeLimit(AutoReset(CountingEnv()), max_episode_steps=3)
    with pytest.warns(UserWarning, match="outermost"):
        TimeLimit(OrderEnforcing(AutoReset(OrderEnforcing(CountingEnv()))), 3)


def test_time_limit_warning_points_at_caller() -> None:
    with pytest.warns(UserWarning) as record:
        TimeLimit(AutoReset(CountingEnv()), max_episode_steps=3)
    assert record[0].filename == __file__


def test_no_ordering_warning_when_autoreset_outside() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AutoReset(TimeLimit(CountingEnv(), max_episode_steps=3))
        RecordEpisodeStatistics(AutoReset(CountingEnv()))
        OrderEnforcing(AutoReset(CountingEnv()))
        TimeLimit(RecordEpisodeStatistics(CountingEnv()), 3)


def test_ordering_warning_detects_autoreset_subclass() -> None:
    class MyAutoReset(AutoReset[int, int]):
        pass

    with pytest.warns(UserWarning, match="MyAutoReset"):
        TimeLimit(MyAutoReset(CountingEnv()), 3)


# AutoReset ------------------------------------------------------------------------------------


def test_autoreset_info_layout() -> None:
    base = CountingEnv(length=2)
    env = AutoReset(base)
    env.reset(seed=3)
    first = env.step(1)
    assert first == StepResult(1, 1.0, False, False, {"t": 1})
    last = env.step(1)
    assert last.observation == 0
    assert (last.reward, last.terminated, last.truncated) == (1.0, True, False)
    assert last.info == {
        "t": 2,
        "final_observation": 2,
        "final_info": {"t": 2},
        "reset_info": {"resets": 2, "options": None},
    }
    assert list(last.info) == ["t", "final_observation", "final_info", "reset_info"]
    assert base.t == 0
    nxt = env.step(0)
    assert nxt.observation == 1 and "final_observation" not in nxt.info


def test_autoreset_resets_without_seed() -> None:
    calls: list[tuple[Any, Any]] = []

    class SeedSpy(CountingEnv):
        def reset(
            self, *, seed: Any = None, options: dict[str, Any] | None = None
        ) -> ResetResult[int]:
            calls.append((seed, options))
            return super().reset(seed=seed, options=options)

    base = SeedSpy(length=1)
    env = AutoReset(base)
    env.reset(seed=5, options={"a": 1})
    generator = base.rng
    env.step(0)
    assert calls == [(5, {"a": 1}), (None, None)]
    assert base.rng is generator  # the seeded stream continues
    assert base._rng_seed == 5


def test_autoreset_truncation_also_resets() -> None:
    env = AutoReset(TimeLimit(CountingEnv(length=10), max_episode_steps=1))
    env.reset()
    r = env.step(0)
    assert r.truncated and r.observation == 0
    assert r.info["final_info"] == {"t": 1, "elapsed_steps": 1}


def test_autoreset_async_uses_async_reset() -> None:
    base = AsyncCountingEnv(length=1)
    env = AutoReset(base)

    async def go() -> StepResult[int]:
        await env.async_reset()
        return await env.async_step(0)

    r = run(go())
    assert base.async_calls == 3  # reset, step and the automatic async_reset
    assert r.observation == 0
    assert r.info == {
        "t": 1,
        "final_observation": 1,
        "final_info": {"t": 1},
        "reset_info": {"resets": 2, "options": None},
    }


# OrderEnforcing -------------------------------------------------------------------------------


def test_order_enforcing() -> None:
    env = OrderEnforcing(CountingEnv())
    assert env.has_reset is False
    with pytest.raises(ResetRequired):
        env.step(0)
    env.reset()
    assert env.has_reset is True
    assert env.step(0).observation == 1


def test_order_enforcing_failed_reset_does_not_count() -> None:
    class Broken(CountingEnv):
        def reset(
            self, *, seed: Any = None, options: dict[str, Any] | None = None
        ) -> ResetResult[int]:
            raise RuntimeError("boom")

    env = OrderEnforcing(Broken())
    with pytest.raises(RuntimeError):
        env.reset()
    assert not env.has_reset


def test_order_enforcing_async() -> None:
    base = AsyncCountingEnv()
    env = OrderEnforcing(base)
    with pytest.raises(ResetRequired):
        run(env.async_step(0))

    async def go() -> StepResult[int]:
        await env.async_reset()
        return await env.async_step(0)

    assert run(go()).observation == 1
    assert env.has_reset
    assert base.async_calls == 2


# RecordEpisodeStatistics ----------------------------------------------------------------------


class RecordingTracker:
    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def on_reset(self, env_id: str | None, seed: int | None) -> None:
        self.events.append(("reset", env_id, seed))

    def on_step(
        self, reward: float, terminated: bool, truncated: bool, info: dict[str, Any]
    ) -> None:
        self.events.append(("step", reward, terminated, truncated, info))

    def on_episode_end(self, stats: EpisodeStats) -> None:
        self.events.append(("end", stats))

    def summary(self) -> dict[str, Any]:
        return {}


def test_record_episode_statistics_episode() -> None:
    env = RecordEpisodeStatistics(CountingEnv(length=3, reward=np.float32(0.5)))
    assert isinstance(env.tracker, InMemoryTracker)
    assert env.tracker.episodes.maxlen == 100
    assert env.episode_stats is None
    env.reset(seed=0)
    results = [env.step(0) for _ in range(3)]
    assert all("episode" not in r.info for r in results[:2])
    stats: EpisodeStats = results[-1].info["episode"]
    assert stats is env.episode_stats
    assert results[-1].info == {"t": 3, "episode": stats}
    assert type(stats.episode_return) is float
    assert stats.episode_return == 1.5
    assert stats.episode_length == 3
    assert (stats.terminated, stats.truncated, stats.done) == (True, False, True)
    assert stats.end_time >= stats.start_time
    assert stats.elapsed_time == stats.end_time - stats.start_time
    assert stats.extra == {}
    assert list(env.tracker.episodes) == [stats]
    assert results[-1].reward == np.float32(0.5)  # reward passed through unchanged


def test_record_episode_statistics_tracker_events() -> None:
    tracker = RecordingTracker()
    base = TruncatingEnv(length=2)
    env = RecordEpisodeStatistics(base, tracker=tracker)
    env.reset(seed=7)
    env.step(0)
    env.step(1)
    (reset_event, step1, step2, end) = tracker.events
    assert reset_event == ("reset", None, 7)
    assert step1 == ("step", 1.0, False, False, {"t": 1})
    assert step2 == ("step", 1.0, False, True, {"t": 2})
    assert end[0] == "end" and end[1].truncated and end[1].episode_length == 2

    tracker.events.clear()
    env.reset()  # unseeded: the stored seed is reported
    env.reset(seed=np.random.default_rng(0))
    assert tracker.events == [("reset", None, 7), ("reset", None, -1)]


def test_record_episode_statistics_reports_spec_id() -> None:
    tracker = RecordingTracker()
    base = CountingEnv()
    base.spec = EnvSpec("Counting-v3")
    env = RecordEpisodeStatistics(base, tracker)
    env.reset(seed=1)
    assert tracker.events == [("reset", "Counting-v3", 1)]


def test_record_episode_statistics_restarts_counters_after_done() -> None:
    env = RecordEpisodeStatistics(AutoReset(CountingEnv(length=2)), deque_size=3)
    env.reset(seed=0)
    episodes = [r.info["episode"] for r in (env.step(0) for _ in range(10)) if "episode" in r.info]
    assert [(e.episode_return, e.episode_length) for e in episodes] == [(2.0, 2)] * 5
    assert isinstance(env.tracker, InMemoryTracker)
    assert list(env.tracker.episodes) == episodes[-3:]
    assert env.tracker.summary()["num_episodes"] == 3
    assert episodes[1].start_time == episodes[0].end_time


def test_record_episode_statistics_without_autoreset_keeps_counting() -> None:
    env = RecordEpisodeStatistics(TimeLimit(CountingEnv(length=100), max_episode_steps=2))
    env.reset()
    env.step(0)
    assert env.step(0).info["episode"].episode_length == 2
    more = env.step(0)  # stepping on without reset starts a fresh count
    assert "episode" in more.info and more.info["episode"].episode_length == 1


def test_record_episode_statistics_with_logging_tracker(caplog: pytest.LogCaptureFixture) -> None:
    env = RecordEpisodeStatistics(CountingEnv(length=1), tracker=LoggingTracker())
    env.reset()
    with caplog.at_level("INFO", logger="sekai.stats"):
        env.step(0)
    assert [r.getMessage() for r in caplog.records] == ["episode_end"]


@pytest.mark.parametrize(
    ("bad", "exc"), [(0, ValueError), (-3, ValueError), (0.0, ValueError), (2.5, TypeError)]
)
def test_record_episode_statistics_validates_deque_size(bad: Any, exc: type[Exception]) -> None:
    with pytest.raises(exc, match="deque_size"):
        RecordEpisodeStatistics(CountingEnv(), deque_size=bad)


def test_record_episode_statistics_validates_tracker() -> None:
    with pytest.raises(TypeError, match="tracker"):
        RecordEpisodeStatistics(CountingEnv(), tracker=object())  # type: ignore[arg-type]


def test_record_episode_statistics_async() -> None:
    tracker = RecordingTracker()
    base = AsyncCountingEnv(length=2)
    env = RecordEpisodeStatistics(base, tracker)

    async def go() -> list[StepResult[int]]:
        await env.async_reset(seed=4)
        return [await env.async_step(0), await env.async_step(0)]

    first, last = run(go())
    assert "episode" not in first.info
    assert last.info["episode"].episode_return == 2.0
    assert last.info["episode"] is env.episode_stats
    assert tracker.events[0] == ("reset", None, 4)
    assert base.async_calls == 3


def test_sync_and_async_paths_agree() -> None:
    def build() -> Wrapper[Any, Any, Any, Any]:
        return RecordEpisodeStatistics(
            AutoReset(OrderEnforcing(TimeLimit(CountingEnv(length=5), max_episode_steps=3)))
        )

    def strip(r: StepResult[int]) -> tuple[Any, ...]:
        info = dict(r.info)
        ep = info.pop("episode", None)
        return (r.observation, r.reward, r.terminated, r.truncated, info, ep and ep.episode_length)

    sync_env = build()
    sync_env.reset(seed=0)
    expected = [strip(sync_env.step(0)) for _ in range(8)]

    async_env = build()

    async def go() -> list[tuple[Any, ...]]:
        await async_env.async_reset(seed=0)
        return [strip(await async_env.async_step(0)) for _ in range(8)]

    assert run(go()) == expected
    assert expected[2][3] is True and expected[2][5] == 3

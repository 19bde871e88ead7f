"""Wrappers that ``make()`` and most training loops rely on."""

from __future__ import annotations

import time
from typing import Any, ClassVar

from sekai._types import ActType, ObsType, SeedType
from sekai.core.env import Env
from sekai.core.result import ResetResult, StepResult, merge_autoreset
from sekai.core.wrapper import Wrapper, _ResultWrapper
from sekai.error import ResetRequired
from sekai.stats.collectors import InMemoryTracker
from sekai.stats.tracker import EpisodeStats, StatsTracker
from sekai.wrappers._args import check_int
from sekai.wrappers._ordering import warn_if_autoreset_inside

__all__ = ["AutoReset", "OrderEnforcing", "RecordEpisodeStatistics", "TimeLimit"]


class TimeLimit(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Truncates each episode after ``max_episode_steps`` steps.

    Every step's info is a new dict with ``"elapsed_steps"`` added.
    """

    def __init__(self, env: Env[ObsType, ActType], max_episode_steps: int) -> None:
        super().__init__(env)
        self.max_episode_steps = check_int(max_episode_steps, "max_episode_steps", "TimeLimit", 1)
        self._elapsed_steps = 0
        warn_if_autoreset_inside(self, env)

    @property
    def elapsed_steps(self) -> int:
        """Steps taken since the last reset."""
        return self._elapsed_steps

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Reset the inner env and the step counter."""
        self._elapsed_steps = 0
        return self.env.reset(seed=seed, options=options)

    def step(self, action: ActType) -> StepResult[ObsType]:
        """Step the inner env; truncate once the limit is reached."""
        r = self.env.step(action)
        n = self._elapsed_steps = self._elapsed_steps + 1
        return StepResult(
            r.observation,
            r.reward,
            r.terminated,
            r.truncated or n >= self.max_episode_steps,
            {**r.info, "elapsed_steps": n},
        )

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Reset the inner env through its async path and the step counter."""
        self._elapsed_steps = 0
        return await self.env.async_reset(seed=seed, options=options)

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        """Step the inner env through its async path; truncate once the limit is reached."""
        r = await self.env.async_step(action)
        n = self._elapsed_steps = self._elapsed_steps + 1
        return StepResult(
            r.observation,
            r.reward,
            r.terminated,
            r.truncated or n >= self.max_episode_steps,
            {**r.info, "elapsed_steps": n},
        )


class AutoReset(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Resets the inner env in the same step that ends an episode.

    The returned observation is the new episode's first; reward and flags are the terminal
    step's, and info is ``{**step_info, "final_observation", "final_info", "reset_info"}``.
    """

    _resets_inner: ClassVar[bool] = True

    def step(self, action: ActType) -> StepResult[ObsType]:
        """Step the inner env, resetting it if the episode ended."""
        result = self.env.step(action)
        if not result.done:
            return result
        return merge_autoreset(result, self.env.reset())

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        """Async ``step``; resets through the inner env's ``async_reset``."""
        result = await self.env.async_step(action)
        if not result.done:
            return result
        return merge_autoreset(result, await self.env.async_reset())


class OrderEnforcing(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Raises ``ResetRequired`` on a step before the first reset."""

    def __init__(self, env: Env[ObsType, ActType]) -> None:
        super().__init__(env)
        self._has_reset = False

    @property
    def has_reset(self) -> bool:
        """Whether ``reset()`` has completed at least once."""
        return self._has_reset

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Reset the inner env."""
        result = self.env.reset(seed=seed, options=options)
        self._has_reset = True
        return result

    def step(self, action: ActType) -> StepResult[ObsType]:
        """Step the inner env; ``ResetRequired`` before the first reset."""
        if not self._has_reset:
            raise ResetRequired()
        return self.env.step(action)

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Reset the inner env through its async path."""
        result = await self.env.async_reset(seed=seed, options=options)
        self._has_reset = True
        return result

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        """Async ``step``; ``ResetRequired`` before the first reset."""
        if not self._has_reset:
            raise ResetRequired()
        return await self.env.async_step(action)


class RecordEpisodeStatistics(_ResultWrapper[ObsType, ActType, ObsType]):
    """Measures each episode and reports it to ``tracker``.

    The step that ends an episode gets ``info["episode"]``, an ``EpisodeStats`` also kept
    in ``episode_stats``. The tracker defaults to ``InMemoryTracker(max_episodes=deque_size)``.
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        tracker: StatsTracker | None = None,
        deque_size: int = 100,
    ) -> None:
        super().__init__(env)
        deque_size = check_int(deque_size, "deque_size", "RecordEpisodeStatistics", 1)
        if tracker is None:
            tracker = InMemoryTracker(max_episodes=deque_size)
        elif not isinstance(tracker, StatsTracker):
            raise TypeError(
                "RecordEpisodeStatistics: tracker must implement sekai.stats.StatsTracker "
                "(on_reset, on_step, on_episode_end, summary), "
                f"got {type(tracker).__name__}."
            )
        self.tracker: StatsTracker = tracker
        self.episode_stats: EpisodeStats | None = None
        self._return = 0.0
        self._length = 0
        self._start = time.monotonic()

    def _wrap_reset(self, result: ResetResult[ObsType]) -> ResetResult[ObsType]:
        self._return = 0.0
        self._length = 0
        self._start = time.monotonic()
        spec = self.spec
        self.tracker.on_reset(
            env_id=(spec.id if spec is not None else None) or None, seed=self._rng_seed
        )
        return result

    def _wrap_step(self, result: StepResult[ObsType]) -> StepResult[ObsType]:
        reward = float(result.reward)
        self._return += reward
        self._length += 1
        self.tracker.on_step(reward, result.terminated, result.truncated, result.info)
        if not result.done:
            return result
        end = time.monotonic()
        stats = EpisodeStats(
            self._return,
            self._length,
            end - self._start,
            self._start,
            end,
            bool(result.terminated),
            bool(result.truncated),
        )
        self.episode_stats = stats
        self.tracker.on_episode_end(stats)
        self._return = 0.0
        self._length = 0
        self._start = end
        return StepResult(
            result.observation,
            result.reward,
            result.terminated,
            result.truncated,
            {**result.info, "episode": stats},
        )

"""Ready-made vector wrappers: episode statistics, normalisation and transforms."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._types import ActType, ObsType, SeedType
from sekai.spaces.space import Space
from sekai.stats.collectors import InMemoryTracker
from sekai.stats.tracker import EpisodeStats, StatsTracker
from sekai.utils.running_stats import NonFinitePolicy, RunningMeanStd, check_nonfinite
from sekai.utils.validation import check_int, check_real
from sekai.vector._partial import take_rows
from sekai.vector.native import LazyInfos
from sekai.vector.partial_reset import split_reset_mask
from sekai.vector.result import VecResetResult, VecStepResult
from sekai.vector.vec_env import VecEnv
from sekai.vector.vec_wrapper import (
    VecObservationWrapper,
    VecRewardWrapper,
    VecWrapper,
    set_info_entries,
)
from sekai.wrappers._normalizer import ObservationNormalizer, StatsKind

__all__ = [
    "VecNormalizeObservation",
    "VecNormalizeReward",
    "VecRecordEpisodeStatistics",
    "VecTransformObservation",
    "VecTransformReward",
]


def _check_callable(func: Any, owner: str) -> None:
    if not callable(func):
        raise TypeError(f"{owner}: func must be callable, got {type(func).__name__}.")


class VecRecordEpisodeStatistics(VecWrapper[ObsType, ActType, ObsType, ActType]):
    """Measures every sub-env's episodes and reports them to ``tracker``.

    When sub-env ``i`` finishes an episode, ``infos[i]["episode"]`` is an ``EpisodeStats``
    with ``extra={"env_index": i}``, also passed to ``tracker.on_episode_end``. The tracker
    defaults to ``InMemoryTracker(max_episodes=deque_size)``. Without autoreset a finished
    sub-env is ignored until a ``reset()`` resets it, so each episode is recorded once; a
    partial reset (``reset_mask``) restarts the count of the sub-envs it selects only. A
    ``recv()`` batch updates the sub-envs of its rows (``env_ids``) only.
    """

    def __init__(
        self,
        venv: VecEnv[ObsType, ActType],
        tracker: StatsTracker | None = None,
        deque_size: int = 100,
    ) -> None:
        super().__init__(venv)
        owner = type(self).__name__
        deque_size = check_int(deque_size, f"{owner}: deque_size", low=1)
        if tracker is None:
            tracker = InMemoryTracker(max_episodes=deque_size)
        elif not isinstance(tracker, StatsTracker):
            raise TypeError(
                f"{owner}: tracker must implement sekai.stats.StatsTracker "
                f"(on_reset, on_step, on_episode_end, summary), got {type(tracker).__name__}."
            )
        self.tracker: StatsTracker = tracker
        n = self.num_envs
        self._returns = np.zeros(n, dtype=np.float64)
        self._lengths = np.zeros(n, dtype=np.int64)
        self._starts = np.full(n, time.monotonic())
        self._finished = np.zeros(n, dtype=bool)
        self._any_finished = False

    def _on_reset(
        self, result: VecResetResult[ObsType], mask: NDArray[np.bool_] | None
    ) -> VecResetResult[ObsType]:
        rows = slice(None) if mask is None else mask
        self._returns[rows] = 0.0
        self._lengths[rows] = 0
        self._starts[rows] = time.monotonic()
        self._finished[rows] = False
        self._any_finished = bool(self._finished.any())
        return result

    def _on_step(self, result: VecStepResult[ObsType]) -> VecStepResult[ObsType]:
        terminated, truncated = result.terminated, result.truncated
        done = terminated | truncated
        ids = result.env_ids
        if len(ids) < self.num_envs:  # a partial batch: rows of sub-envs ids
            active = ~self._finished[ids]
            self._returns[ids] += np.where(active, result.rewards, 0.0)
            self._lengths[ids] += active
            done &= active
        elif self._any_finished:
            active = ~self._finished
            np.add(self._returns, result.rewards, out=self._returns, where=active)
            self._lengths += active
            done &= active
        else:
            self._returns += result.rewards
            self._lengths += 1
        rows = np.flatnonzero(done)
        if not len(rows):
            return result
        ended = ids[rows]
        end = time.monotonic()
        indices = rows.tolist()
        stats = [
            EpisodeStats(
                float(self._returns[i]),
                int(self._lengths[i]),
                end - float(self._starts[i]),
                float(self._starts[i]),
                end,
                bool(terminated[k]),
                bool(truncated[k]),
                {"env_index": i},
            )
            for k, i in zip(indices, ended.tolist(), strict=True)
        ]
        for episode in stats:
            self.tracker.on_episode_end(episode)
        self._returns[ended] = 0.0
        self._lengths[ended] = 0
        self._starts[ended] = end
        infos = result.infos
        if not self.venv.autoreset:
            if isinstance(infos, LazyInfos):
                restarted = set(infos._final_indices.tolist())
            else:
                restarted = {i for i in indices if "final_observation" in infos[i]}
            finished = [int(ids[k]) for k in indices if k not in restarted]
            if finished:
                self._finished[finished] = True
                self._any_finished = True
        infos = set_info_entries(infos, "episode", indices, stats)
        return VecStepResult(result.observations, result.rewards, terminated, truncated, infos, ids)

    def reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[ObsType]:
        """Reset ``venv`` and start measuring the episode of every sub-env it reset."""
        mask, _ = split_reset_mask(options, self.num_envs)
        return self._on_reset(self.venv.reset(seed=seed, options=options), mask)

    def step(self, actions: ActType) -> VecStepResult[ObsType]:
        """Step ``venv`` and record the sub-envs whose episode ended."""
        return self._on_step(self.venv.step(actions))

    def recv(self) -> VecStepResult[ObsType]:
        """``venv.recv()``, recording the sub-envs of its rows whose episode ended."""
        return self._on_step(self.venv.recv())

    async def async_reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[ObsType]:
        """Async ``reset``."""
        mask, _ = split_reset_mask(options, self.num_envs)
        return self._on_reset(await self.venv.async_reset(seed=seed, options=options), mask)

    async def async_step(self, actions: ActType) -> VecStepResult[ObsType]:
        """Async ``step``."""
        return self._on_step(await self.venv.async_step(actions))


class VecNormalizeObservation(VecObservationWrapper[Any, ActType, ObsType]):
    """Normalises observation batches with statistics shared by all sub-envs.

    An ``ObservationNormalizer`` over the single-env space (``normalizer``) updates once per
    batch (reset batches included; of a partial reset, only the rows it reset) while
    ``update_running_mean``, so an ``"ewm"`` halflife counts vector steps. Terminal
    observations are normalised with the current statistics, without updating them (a
    NativeVecEnv's all at once).
    NaN/inf samples: ``nonfinite="raise"`` (default) raises ``ValueError``, ``"skip"`` drops them.
    A dropped sub-env's observation is still normalised with the statistics (NaN/inf out).
    """

    def __init__(
        self,
        venv: VecEnv[ObsType, ActType],
        epsilon: float = 1e-8,
        *,
        stats: StatsKind = "running",
        halflife: float = 1000.0,
        clip: float | None = None,
        nonfinite: NonFinitePolicy = "raise",
    ) -> None:
        super().__init__(venv)
        owner = type(self).__name__
        self.normalizer = ObservationNormalizer(
            venv.observation_space,
            stats=stats,
            halflife=halflife,
            epsilon=epsilon,
            clip=clip,
            nonfinite=check_nonfinite(nonfinite, owner),
        )
        self.normalizer._name_statistics(owner)
        self.observation_space = self.normalizer.output_space
        self.epsilon = self.normalizer.epsilon
        self.update_running_mean = True

    @property
    def obs_rms(self) -> Any:
        """The statistics: one stats object, or a dict/tuple of them mirroring the space."""
        return self.normalizer.stats

    @property
    def nonfinite(self) -> NonFinitePolicy:
        """What an update does with a NaN/inf sample: ``"raise"`` or ``"skip"``."""
        return self.normalizer.nonfinite

    def observation(self, batch: ObsType) -> Any:
        """The normalised batch (updating the statistics first if enabled)."""
        return self.normalizer(batch, update=self.update_running_mean)

    def reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[Any]:
        """Reset ``venv`` and normalise the observations; only the rows of the sub-envs it
        reset update the statistics."""
        mask, _ = split_reset_mask(options, self.num_envs)
        return self._normalize_reset(self.venv.reset(seed=seed, options=options), mask)

    async def async_reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[Any]:
        """Async ``reset``."""
        mask, _ = split_reset_mask(options, self.num_envs)
        return self._normalize_reset(await self.venv.async_reset(seed=seed, options=options), mask)

    def _normalize_reset(
        self, result: VecResetResult[ObsType], mask: NDArray[np.bool_] | None
    ) -> VecResetResult[Any]:
        if mask is None:
            return self._wrap_reset(result)
        batch = result.observations
        if self.update_running_mean:
            rows = take_rows(self.venv.observation_space, batch, np.flatnonzero(mask))
            self.normalizer(rows, update=True)
        return VecResetResult(self.normalizer(batch, update=False), result.infos)

    def final_observation(self, obs: Any) -> Any:
        """A terminal observation normalised with the current statistics (no update)."""
        return self.normalizer._one(obs, False)

    def _final_observation_batch(self, batch: Any) -> Any:
        """A batch of terminal observations normalised as ``final_observation`` does each."""
        return self.normalizer(batch, update=False)

    def state_dict(self) -> Any:
        """The statistics' state (see ``ObservationNormalizer.state_dict``)."""
        return self.normalizer.state_dict()

    def load_state_dict(self, state: Any) -> None:
        """Restore a ``state_dict()``."""
        self.normalizer.load_state_dict(state)


class VecNormalizeReward(VecWrapper[ObsType, ActType, ObsType, ActType]):
    """Scales rewards by the running standard deviation of each sub-env's discounted return.

    The returns ``G = G * gamma + rewards`` (one per sub-env) update ``return_rms`` once per
    step while ``update_running_mean``, and restart at 0 where an episode ended and on reset;
    rewards become ``rewards / sqrt(return_rms.var + epsilon)``.
    NaN/inf returns: ``nonfinite="raise"`` (default) raises ``ValueError``, ``"skip"`` drops them.
    A dropped return restarts at 0; its reward is still scaled (NaN/inf out). A ``recv()``
    batch updates the returns of its rows' sub-envs (``env_ids``), and ``return_rms`` with them.
    """

    def __init__(
        self,
        venv: VecEnv[ObsType, ActType],
        gamma: float = 0.99,
        epsilon: float = 1e-8,
        *,
        nonfinite: NonFinitePolicy = "raise",
    ) -> None:
        super().__init__(venv)
        owner = type(self).__name__
        nonfinite = check_nonfinite(nonfinite, owner)
        self.gamma = check_real(gamma, f"{owner}: gamma", low=0.0, high=1.0)
        self.epsilon = check_real(epsilon, f"{owner}: epsilon", low=0.0)
        self.return_rms = RunningMeanStd(shape=(), nonfinite=nonfinite)
        self.return_rms._owner = f"{owner} (discounted returns)"
        self.update_running_mean = True
        self._returns = np.zeros(self.num_envs, dtype=np.float64)

    @property
    def nonfinite(self) -> NonFinitePolicy:
        """What an update does with a NaN/inf return: ``"raise"`` or ``"skip"``."""
        return self.return_rms.nonfinite

    def _restart(self, options: Any) -> None:
        """Zero the discounted returns of the sub-envs a reset with ``options`` reset."""
        mask, _ = split_reset_mask(options, self.num_envs)
        self._returns[slice(None) if mask is None else mask] = 0.0

    def _scale(self, result: VecStepResult[ObsType]) -> VecStepResult[ObsType]:
        # A new array: an update that raises leaves ``_returns`` as it was.
        ids = result.env_ids
        whole = len(ids) == self.num_envs
        returns = (self._returns if whole else self._returns[ids]) * self.gamma
        returns += result.rewards
        if self.update_running_mean:
            self.return_rms.update(returns)
            if self.return_rms.nonfinite == "skip":  # dropped returns restart at 0
                returns[~np.isfinite(returns)] = 0.0
        rewards = result.rewards / np.sqrt(self.return_rms.var + self.epsilon)
        returns[result.terminated | result.truncated] = 0.0
        if whole:
            self._returns = returns
        else:
            self._returns[ids] = returns
        return VecStepResult(
            result.observations, rewards, result.terminated, result.truncated, result.infos, ids
        )

    def reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[ObsType]:
        """Reset ``venv`` and the discounted returns of the sub-envs it resets."""
        result = self.venv.reset(seed=seed, options=options)
        self._restart(options)
        return result

    def step(self, actions: ActType) -> VecStepResult[ObsType]:
        """Step ``venv`` and scale the rewards."""
        return self._scale(self.venv.step(actions))

    def recv(self) -> VecStepResult[ObsType]:
        """``venv.recv()`` with the rewards scaled."""
        return self._scale(self.venv.recv())

    async def async_reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[ObsType]:
        """Async ``reset``."""
        result = await self.venv.async_reset(seed=seed, options=options)
        self._restart(options)
        return result

    async def async_step(self, actions: ActType) -> VecStepResult[ObsType]:
        """Async ``step``."""
        return self._scale(await self.venv.async_step(actions))


class VecTransformObservation(VecObservationWrapper[Any, ActType, ObsType]):
    """Applies ``func`` to every batch of observations (and, as a batch of one, to each
    terminal observation); ``new_observation_space`` replaces the single-env space if given.
    """

    def __init__(
        self,
        venv: VecEnv[ObsType, ActType],
        func: Callable[[Any], Any],
        new_observation_space: Space[Any] | None = None,
    ) -> None:
        super().__init__(venv)
        _check_callable(func, type(self).__name__)
        self.func = func
        if new_observation_space is not None:
            self.observation_space = new_observation_space

    def observation(self, batch: ObsType) -> Any:
        """``func(batch)``."""
        return self.func(batch)


class VecTransformReward(VecRewardWrapper[ObsType, ActType]):
    """Applies ``func`` to every ``(num_envs,)`` reward array; the result is cast to float64."""

    def __init__(
        self, venv: VecEnv[ObsType, ActType], func: Callable[[NDArray[np.float64]], Any]
    ) -> None:
        super().__init__(venv)
        _check_callable(func, type(self).__name__)
        self.func = func

    def reward(self, rewards: NDArray[np.float64]) -> NDArray[np.float64]:
        """``func(rewards)`` as a float64 array."""
        return np.asarray(self.func(rewards), dtype=np.float64)

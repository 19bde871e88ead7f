"""Normalisation wrappers: running-statistics observation and reward scaling."""

from __future__ import annotations

import math
from typing import Any

from sekai._types import ActType, ObsType
from sekai.core.env import Env
from sekai.core.result import ResetResult, StepResult
from sekai.core.wrapper import ObservationWrapper, Wrapper
from sekai.utils.running_stats import NonFinitePolicy, RunningMeanStd, check_nonfinite
from sekai.wrappers._args import check_real
from sekai.wrappers._normalizer import ObservationNormalizer, StatsKind

__all__ = ["NormalizeObservation", "NormalizeReward"]


class NormalizeObservation(ObservationWrapper[Any, ActType, ObsType]):
    """Normalises observations with running statistics (an ``ObservationNormalizer``).

    Each observation, reset ones included, updates the statistics as a batch of one while
    ``update_running_mean`` is true. Box leaves become float64 (clipped to ``±clip`` if set);
    ``stats="ewm"`` follows non-stationary data with a ``halflife`` counted in steps.
    NaN/inf samples: ``nonfinite="raise"`` (default) raises ``ValueError``, ``"skip"`` drops them.
    A dropped observation is still normalised with the current statistics (NaN/inf out).
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        epsilon: float = 1e-8,
        *,
        stats: StatsKind = "running",
        halflife: float = 1000.0,
        clip: float | None = None,
        nonfinite: NonFinitePolicy = "raise",
    ) -> None:
        super().__init__(env)
        self.normalizer = ObservationNormalizer(
            env.observation_space,
            stats=stats,
            halflife=halflife,
            epsilon=epsilon,
            clip=clip,
            nonfinite=check_nonfinite(nonfinite, "NormalizeObservation"),
        )
        self.normalizer._name_statistics("NormalizeObservation")
        self.observation_space = self.normalizer.output_space
        self.epsilon = self.normalizer.epsilon
        self.update_running_mean = True
        self._normalize = self.normalizer._one

    @property
    def obs_rms(self) -> Any:
        """The statistics: one stats object, or a dict/tuple of them mirroring the space."""
        return self.normalizer.stats

    @property
    def nonfinite(self) -> NonFinitePolicy:
        """What an update does with a NaN/inf sample: ``"raise"`` or ``"skip"``."""
        return self.normalizer.nonfinite

    def observation(self, observation: ObsType) -> Any:
        """The normalised observation (updating the statistics first if enabled)."""
        return self._normalize(observation, self.update_running_mean)

    def _wrap_step(self, result: StepResult[Any]) -> StepResult[Any]:
        # Inlined ``observation()``: this runs on every step.
        return StepResult(
            self._normalize(result.observation, self.update_running_mean),
            result.reward,
            result.terminated,
            result.truncated,
            result.info,
        )

    def state_dict(self) -> Any:
        """The statistics' state (see ``ObservationNormalizer.state_dict``)."""
        return self.normalizer.state_dict()

    def load_state_dict(self, state: Any) -> None:
        """Restore a ``state_dict()``."""
        self.normalizer.load_state_dict(state)


class NormalizeReward(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Scales rewards by the running standard deviation of the discounted return.

    The return ``G = G * gamma + reward`` updates ``return_rms`` (while
    ``update_running_mean``) and restarts at 0 on reset and when an episode ends; the reward
    becomes ``reward / sqrt(return_rms.var + epsilon)`` (the mean is not subtracted).
    NaN/inf returns: ``nonfinite="raise"`` (default) raises ``ValueError``, ``"skip"`` drops them.
    A dropped return restarts at 0; its reward is still scaled (NaN/inf out).
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        gamma: float = 0.99,
        epsilon: float = 1e-8,
        *,
        nonfinite: NonFinitePolicy = "raise",
    ) -> None:
        super().__init__(env)
        nonfinite = check_nonfinite(nonfinite, "NormalizeReward")
        self.gamma = check_real(gamma, "gamma", "NormalizeReward", low=0.0, high=1.0)
        self.epsilon = check_real(epsilon, "epsilon", "NormalizeReward", low=0.0)
        self.return_rms = RunningMeanStd(shape=(), nonfinite=nonfinite)
        self.return_rms._owner = "NormalizeReward (discounted return)"
        self.update_running_mean = True
        self._returns = 0.0

    @property
    def nonfinite(self) -> NonFinitePolicy:
        """What an update does with a NaN/inf return: ``"raise"`` or ``"skip"``."""
        return self.return_rms.nonfinite

    def _scale(self, result: StepResult[ObsType]) -> StepResult[ObsType]:
        reward = float(result.reward)
        returns = self._returns * self.gamma + reward
        rms = self.return_rms
        if not self.update_running_mean:
            var = float(rms.var)
        elif (lists := rms._add_one([returns])) is not None:
            var = lists[1][0]
        else:
            # The first return, or a non-finite one: raises, or is dropped and restarts at 0.
            rms.update_from_moments(returns, 0.0, 1)
            var = float(rms.var)
            if not math.isfinite(returns):
                returns = 0.0
        self._returns = 0.0 if result.terminated or result.truncated else returns
        return StepResult(
            result.observation,
            reward / math.sqrt(var + self.epsilon),
            result.terminated,
            result.truncated,
            result.info,
        )

    def reset(
        self, *, seed: Any = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Reset the inner env and the discounted return."""
        self._returns = 0.0
        return self.env.reset(seed=seed, options=options)

    def step(self, action: ActType) -> StepResult[ObsType]:
        """Step the inner env and scale the reward."""
        return self._scale(self.env.step(action))

    async def async_reset(
        self, *, seed: Any = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Async ``reset``."""
        self._returns = 0.0
        return await self.env.async_reset(seed=seed, options=options)

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        """Async ``step``."""
        return self._scale(await self.env.async_step(action))

"""``SyncVecEnv``: sub-envs stepped one after another in this process."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from sekai._types import SeedType
from sekai.core.result import merge_autoreset
from sekai.error import VecEnvClosed
from sekai.vector.partial_reset import split_reset_mask
from sekai.vector.result import VecResetResult, VecStepResult
from sekai.vector.vec_env import (
    InProcessVecEnv,
    close_envs,
    frozen_step,
    resolve_options,
    resolve_seeds,
)

__all__ = ["SyncVecEnv"]


class SyncVecEnv(InProcessVecEnv):
    """Runs the sub-envs built by ``env_fns`` sequentially in this process.

    ``copy`` is accepted for compatibility and has no effect: outputs are always new arrays.
    """

    def __init__(
        self,
        env_fns: Iterable[Callable[[], Any]],
        *,
        autoreset: bool = True,
        copy: bool = True,
    ) -> None:
        self._build(env_fns, autoreset)

    def reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[Any]:
        """Reset every sub-env and unfreeze them all (only the selected ones with a
        ``reset_mask`` in ``options``)."""
        self._check_open()
        mask, options = split_reset_mask(options, self.num_envs)
        if mask is not None:
            indices, seeds = self._partial_requests(mask, seed, options)
            envs = self.envs
            partial = [
                envs[i].reset(seed=s, options=options) for i, s in zip(indices, seeds, strict=True)
            ]
            return self._partial_result(indices, partial)
        seeds = resolve_seeds(seed, self.num_envs)
        opts = resolve_options(options, self.num_envs)
        results = [
            env.reset(seed=s, options=o) for env, s, o in zip(self.envs, seeds, opts, strict=True)
        ]
        self._frozen = [None] * self.num_envs
        observed = self._observed = [r.observation for r in results]
        return VecResetResult(self._batch_observations(observed), [r.info for r in results])

    def step(self, actions: Any) -> VecStepResult[Any]:
        """Step every sub-env, resetting (or freezing) the ones whose episode ended."""
        if self.closed:
            raise VecEnvClosed()
        acts = self._split_actions(actions)
        frozen = self._frozen
        autoreset = self.autoreset
        observations, rewards, terminated, truncated, infos = [], [], [], [], []
        for i, env in enumerate(self.envs):
            result = frozen[i]
            if result is not None:
                result = frozen_step(result)
            else:
                result = env.step(acts[i])
                ended = result.terminated or result.truncated
                if ended and "final_observation" not in result.info:
                    if autoreset:
                        result = merge_autoreset(result, env.reset())
                    else:
                        frozen[i] = result
            observations.append(result.observation)
            rewards.append(result.reward)
            terminated.append(result.terminated)
            truncated.append(result.truncated)
            infos.append(result.info)
        self._observed = observations
        return VecStepResult(
            self._batch_observations(observations),
            np.array(rewards, dtype=np.float64),
            np.array(terminated, dtype=bool),
            np.array(truncated, dtype=bool),
            infos,
        )

    def close(self) -> None:
        """Close every sub-env (all of them, then raise the first error); idempotent."""
        if self.closed:
            return
        self.closed = True
        close_envs(self.envs)

"""``SyncVecEnv``: sub-envs stepped one after another in this process."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.core.result import merge_autoreset
from sekai.error import VecEnvClosed
from sekai.vector.partial_reset import split_reset_mask
from sekai.vector.result import VecResetResult, VecStepResult, all_ids
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
        self._check_idle("reset")
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
        if self._sent:
            self._check_idle("step")
        return self._steps(range(self.num_envs), self._split_actions(actions), None)

    def _step_subset(self, ids: NDArray[np.intp], actions: Any) -> VecStepResult[Any]:
        """Step sub-envs ``ids`` only."""
        return self._steps(ids.tolist(), self._split_actions(actions, len(ids)), ids)

    def _steps(
        self, indices: Iterable[int], acts: list[Any], env_ids: NDArray[np.intp] | None
    ) -> VecStepResult[Any]:
        """Step sub-env ``indices[k]`` with ``acts[k]``, resetting (or freezing) the ones whose
        episode ended; ``env_ids`` of the result (None: all)."""
        envs = self.envs
        frozen = self._frozen
        autoreset = self.autoreset
        observations, rewards, terminated, truncated, infos = [], [], [], [], []
        for i, action in zip(indices, acts, strict=True):
            result = frozen[i]
            if result is not None:
                result = frozen_step(result)
            else:
                env = envs[i]
                result = env.step(action)
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
        self._keep_observed(env_ids, observations)
        return VecStepResult(
            self._batch_observations(observations),
            np.array(rewards, dtype=np.float64),
            np.array(terminated, dtype=bool),
            np.array(truncated, dtype=bool),
            infos,
            all_ids(len(infos)) if env_ids is None else env_ids,
        )

    def close(self) -> None:
        """Close every sub-env (all of them, then raise the first error); idempotent."""
        if self.closed:
            return
        self.closed = True
        close_envs(self.envs)

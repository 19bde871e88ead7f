"""What a worker pool keeps to restart failed workers (private): each sub-env's restart seed
stream and last observation, and the truncations owed to the sub-envs of a rebuilt worker.

Restart seeds: after ``reset(seed=...)`` gives sub-env ``i`` the int seed ``s_i`` (its own
entry of a list, or the ``i``-th seed derived from an int), sub-env ``i``'s ``k``-th restart
since then resets it with ``SeedSequence(s_i).spawn(k)[k - 1].generate_state(1)[0]``: the
next child of its stream. A sub-env reset without an int seed draws from fresh entropy.
"""

from __future__ import annotations

import copy
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.error import VecEnvWorkerError
from sekai.spaces import Space
from sekai.spaces.utils import iterate
from sekai.vector.result import VecStepResult

__all__ = ["Restarts"]


class Restarts:
    """Restart bookkeeping of ``num_envs`` sub-envs in ``num_workers`` workers."""

    def __init__(self, num_envs: int, num_workers: int) -> None:
        self.counts = np.zeros(num_workers, dtype=np.int64)
        """Rebuilds of each worker so far."""
        self._streams = [np.random.SeedSequence() for _ in range(num_envs)]
        self._last: list[Any] = [None] * num_envs
        self._owed: dict[int, tuple[Any, dict[str, Any], VecEnvWorkerError]] = {}

    # -- what the learner has seen --------------------------------------------------------------

    def reset(self, seeds: list[Any], selected: list[int], space: Space[Any], batch: Any) -> None:
        """Sub-envs ``selected`` were reset with ``seeds`` (one per sub-env); ``batch`` is
        every sub-env's observation now."""
        for i in selected:
            seed = seeds[i]
            if isinstance(seed, numbers.Integral):
                self._streams[i] = np.random.SeedSequence(int(seed))
            elif seed is not None:  # a Generator: no reproducible stream to follow
                self._streams[i] = np.random.SeedSequence()
            self._owed.pop(i, None)
        self._last = [copy.deepcopy(row) for row in iterate(space, batch)]

    def observed(self, space: Space[Any], result: VecStepResult[Any]) -> None:
        """``result`` reached the learner: its rows are the sub-envs' last observations."""
        rows = iterate(space, result.observations)
        for i, row in zip(result.env_ids.tolist(), rows, strict=True):
            self._last[i] = copy.deepcopy(row)

    # -- restarting ------------------------------------------------------------------------------

    def next_seeds(self, group: list[int]) -> list[int]:
        """The seeds of the next reset after a restart of sub-envs ``group``."""
        return [int(self._streams[i].spawn(1)[0].generate_state(1)[0]) for i in group]

    def owe(
        self, group: list[int], starts: list[tuple[Any, dict[str, Any]]], error: VecEnvWorkerError
    ) -> None:
        """Sub-envs ``group`` restarted after ``error`` with ``starts`` (observation, info):
        each one's next result is the truncation of its episode."""
        for i, (obs, info) in zip(group, starts, strict=True):
            self._owed[i] = (obs, info, error)

    def owes(self, ids: NDArray[np.intp]) -> bool:
        """Whether any of sub-envs ``ids`` is owed a truncation."""
        return bool(self._owed) and any(i in self._owed for i in ids.tolist())

    def owed_mask(self, ids: NDArray[np.intp]) -> NDArray[np.bool_]:
        """Which of sub-envs ``ids`` are owed a truncation."""
        return np.array([i in self._owed for i in ids.tolist()], dtype=bool)

    def pay(self, ids: NDArray[np.intp], batch: Callable[[list[Any]], Any]) -> VecStepResult[Any]:
        """The truncation rows owed to sub-envs ``ids`` (ascending); ``batch`` makes a batch of
        observations."""
        observations, infos = [], []
        for i in ids.tolist():
            obs, info, error = self._owed.pop(i)
            observations.append(obs)
            infos.append(
                {
                    "final_observation": self._last[i],
                    "final_info": {},
                    "reset_info": info,
                    "worker_failure": error,
                }
            )
        n = len(infos)
        return VecStepResult(
            batch(observations),
            np.zeros(n, dtype=np.float64),
            np.zeros(n, dtype=bool),
            np.ones(n, dtype=bool),
            infos,
            ids.astype(np.intp, copy=True),
        )

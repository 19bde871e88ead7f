"""``ScheduledActions``: a policy that plays a fixed action per step, read from the observation.

OptimalExecution's reference policies (``OptimalExecutionEnv.reference_policies()``) are such
schedules: the step comes from the observation's time-to-go entry ``(N - k)/N``, so one policy
serves the single env (one observation) and its native vector env (a batch of them).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.utils.validation import check_array

__all__ = ["ScheduledActions"]


class ScheduledActions:
    """The policy playing ``actions[k]`` on step ``k`` of an ``N = len(actions)``-step episode.

    Called with an observation ``[x/X0, (N - k)/N, ...]`` it returns ``actions[k]`` with shape
    ``(1,)``; with a batch ``(num_envs, d)``, one row each, ``(num_envs, 1)``. Time-to-go is
    rounded to whole steps and clipped to ``1..N`` (a finished episode gets the last action).
    Deterministic and picklable.
    """

    def __init__(self, actions: ArrayLike) -> None:
        table = check_array(actions, "actions", ndim=1, finite=True)
        if not len(table):
            raise ValueError("actions must hold one action per step, got none.")
        self.actions: NDArray[np.float32] = table.astype(np.float32)

    def __repr__(self) -> str:
        return f"ScheduledActions(n_steps={len(self.actions)})"

    def __call__(self, observation: Any) -> NDArray[np.float32]:
        """The scheduled action(s) for ``observation`` (one or a batch)."""
        n_steps = len(self.actions)
        time_left = np.asarray(observation, dtype=np.float64)[..., 1]
        steps_left = np.clip(np.rint(time_left * n_steps), 1, n_steps).astype(np.intp)
        chosen: NDArray[np.float32] = self.actions[n_steps - steps_left][..., None]
        return chosen

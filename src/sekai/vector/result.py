"""Results returned by a vector environment's ``reset()`` and ``step()``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic

import numpy as np
from numpy.typing import NDArray

from sekai._types import ObsType
from sekai.core.result import TupleLike

__all__ = ["VecResetResult", "VecStepResult", "stack_infos"]


@dataclass(frozen=True, slots=True)
class VecStepResult(TupleLike, Generic[ObsType]):
    """What ``VecEnv.step()`` returns: batched results and one info dict per sub-env; unpacks
    as ``obs, rewards, terminated, truncated, infos``."""

    observations: ObsType
    rewards: NDArray[np.float64]
    terminated: NDArray[np.bool_]
    truncated: NDArray[np.bool_]
    infos: list[dict[str, Any]]

    @property
    def dones(self) -> NDArray[np.bool_]:
        """``terminated | truncated``."""
        return self.terminated | self.truncated

    def _astuple(self) -> tuple[Any, ...]:
        return (self.observations, self.rewards, self.terminated, self.truncated, self.infos)


@dataclass(frozen=True, slots=True)
class VecResetResult(TupleLike, Generic[ObsType]):
    """What ``VecEnv.reset()`` returns; unpacks as ``obs, infos``."""

    observations: ObsType
    infos: list[dict[str, Any]]

    @property
    def dones(self) -> NDArray[np.bool_]:
        """All False, one per sub-env."""
        return np.zeros(len(self.infos), dtype=bool)

    def _astuple(self) -> tuple[Any, ...]:
        return (self.observations, self.infos)


def stack_infos(infos: list[dict[str, Any]]) -> dict[str, NDArray[Any]]:
    """Stack the keys present in every info dict into arrays (``np.array`` of the values)."""
    if not infos:
        return {}
    common = [key for key in infos[0] if all(key in info for info in infos)]
    return {key: np.array([info[key] for info in infos]) for key in common}

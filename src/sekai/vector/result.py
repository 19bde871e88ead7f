"""Results returned by a vector environment's ``reset()`` and ``step()``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic

import numpy as np
from numpy.typing import NDArray

from sekai._types import ObsType

__all__ = ["VecResetResult", "VecStepResult", "stack_infos"]


@dataclass(frozen=True, slots=True)
class VecStepResult(Generic[ObsType]):
    """What ``VecEnv.step()`` returns: batched results and one info dict per sub-env."""

    observations: ObsType
    rewards: NDArray[np.float64]
    terminated: NDArray[np.bool_]
    truncated: NDArray[np.bool_]
    infos: list[dict[str, Any]]

    @property
    def dones(self) -> NDArray[np.bool_]:
        """``terminated | truncated``."""
        return self.terminated | self.truncated


@dataclass(frozen=True, slots=True)
class VecResetResult(Generic[ObsType]):
    """What ``VecEnv.reset()`` returns."""

    observations: ObsType
    infos: list[dict[str, Any]]

    @property
    def dones(self) -> NDArray[np.bool_]:
        """All False, one per sub-env."""
        return np.zeros(len(self.infos), dtype=bool)


def stack_infos(infos: list[dict[str, Any]]) -> dict[str, NDArray[Any]]:
    """Stack the keys present in every info dict into arrays (``np.array`` of the values)."""
    if not infos:
        return {}
    common = [key for key in infos[0] if all(key in info for info in infos)]
    return {key: np.array([info[key] for info in infos]) for key in common}

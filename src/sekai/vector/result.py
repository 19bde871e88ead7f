"""Results returned by a vector environment's ``reset()`` and ``step()``."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Generic

import numpy as np
from numpy.typing import NDArray

from sekai._types import ObsType
from sekai.core.result import TupleLike

__all__ = ["VecResetResult", "VecStepResult", "all_ids", "stack_infos"]


@functools.lru_cache(maxsize=32)
def all_ids(n: int) -> NDArray[np.intp]:
    """``np.arange(n)`` as a read-only array, one per ``n``: the ``env_ids`` of a full batch."""
    ids = np.arange(n, dtype=np.intp)
    ids.flags.writeable = False
    return ids


@dataclass(frozen=True, slots=True, eq=False)
class VecStepResult(TupleLike, Generic[ObsType]):
    """What ``VecEnv.step()`` and ``VecEnv.recv()`` return: batched results and one info dict
    per row; unpacks as ``obs, rewards, terminated, truncated, infos``.

    ``env_ids`` gives the sub-env of each row: ``arange(num_envs)`` (read-only) when omitted,
    as for every ``step()``; a ``recv()`` may hold fewer rows.
    """

    observations: ObsType
    rewards: NDArray[np.float64]
    terminated: NDArray[np.bool_]
    truncated: NDArray[np.bool_]
    infos: list[dict[str, Any]]
    env_ids: NDArray[np.intp] = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.env_ids is None:
            object.__setattr__(self, "env_ids", all_ids(len(self.rewards)))

    @property
    def dones(self) -> NDArray[np.bool_]:
        """``terminated | truncated``."""
        return self.terminated | self.truncated

    def _astuple(self) -> tuple[Any, ...]:
        return (self.observations, self.rewards, self.terminated, self.truncated, self.infos)


@dataclass(frozen=True, slots=True, eq=False)
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

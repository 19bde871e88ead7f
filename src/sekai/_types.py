"""Type variables and aliases shared across sekai."""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "ActType",
    "AgentID",
    "InfoDict",
    "ObsType",
    "RNGType",
    "RenderFrame",
    "RewardType",
    "SeedType",
    "T",
    "WActType",
    "WObsType",
]

ObsType = TypeVar("ObsType")
ActType = TypeVar("ActType")
WObsType = TypeVar("WObsType")
WActType = TypeVar("WActType")
AgentID = TypeVar("AgentID")
T = TypeVar("T")

SeedType = int | np.random.Generator | None
InfoDict = dict[str, Any]
RewardType = float
RNGType = np.random.Generator
RenderFrame = NDArray[np.uint8] | str

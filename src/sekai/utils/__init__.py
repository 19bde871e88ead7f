"""Seeding, running statistics, normalisation, action masks and the env checker."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sekai.utils.running_stats import ExponentialMovingStats, RunningMeanStd
from sekai.utils.seeding import make_seed_sequence, np_random

if TYPE_CHECKING:
    from sekai.utils.masking import (
        action_mask_space,
        flatten_action_mask,
        get_action_mask,
        supports_action_mask,
    )

__all__ = [
    "np_random",
    "make_seed_sequence",
    "RunningMeanStd",
    "ExponentialMovingStats",
    "get_action_mask",
    "supports_action_mask",
    "action_mask_space",
    "flatten_action_mask",
]

# sekai.spaces imports sekai.utils.seeding, so importing sekai.utils.masking (which needs
# sekai.spaces) here would be circular: its names load on first access instead.
_MASKING_NAMES = frozenset(
    {"get_action_mask", "supports_action_mask", "action_mask_space", "flatten_action_mask"}
)


def __getattr__(name: str) -> Any:
    """Load the action-mask helpers on first access."""
    if name in _MASKING_NAMES:
        value = getattr(importlib.import_module("sekai.utils.masking"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

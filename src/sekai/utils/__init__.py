"""Ground-floor helpers: seeding, running statistics, validation and pickling.

``sekai.utils`` sits below ``sekai.spaces``, so the action-mask helpers it also exports (from
``sekai.spaces.masking``) load on first access rather than on import.
"""

from __future__ import annotations

from sekai.utils._moved import moved_names
from sekai.utils.progress import Progress
from sekai.utils.running_stats import ExponentialMovingStats, RunningMeanStd
from sekai.utils.seeding import make_seed_sequence, np_random

__all__ = [
    "np_random",
    "make_seed_sequence",
    "RunningMeanStd",
    "ExponentialMovingStats",
    "get_action_mask",
    "supports_action_mask",
    "action_mask_space",
    "flatten_action_mask",
    "Progress",
]

__getattr__ = moved_names(
    __name__,
    "sekai.spaces.masking",
    ["get_action_mask", "supports_action_mask", "action_mask_space", "flatten_action_mask"],
)

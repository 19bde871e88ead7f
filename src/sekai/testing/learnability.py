"""The learnability checks of ``check_env(..., check_learnability=True)``.

They name two ways an env that keeps the ``Env`` contract still traps a learner with the
usual defaults (a Gaussian policy starting at mean 0 with standard deviation 1, value targets
and entropy bonuses sized for rewards near 1):

* ``action_space_warning``: a bounded float ``Box`` action space other than ``[-1, 1]`` in
  every component. If it is not symmetric around 0, the policy starts off its centre and
  clipping to the box piles its actions up at one bound (a ``[0, 1]`` box gets the action 0
  half of the time); if it is symmetric but wider or narrower, the unit spread explores it
  too little or hardly ever leaves its bounds.
* ``reward_scale_warning``: rewards under random actions whose root mean square (the typical
  size of a reward, its mean and spread together: ``rms² = mean² + std²``) is outside
  ``REWARD_SCALE_RANGE``, two orders of magnitude either side of 1. Beyond 100 the value
  loss dwarfs the policy loss (and clipped gradients learn the values slowly); below 0.01 an
  entropy bonus or the value function's initial errors drown the reward.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from sekai.spaces import Box, Space

__all__ = ["REWARD_SCALE_RANGE", "action_space_warning", "reward_scale_warning"]

#: The root mean squares of a random rollout's rewards that draw no warning (bounds included).
REWARD_SCALE_RANGE = (0.01, 100.0)

_RESCALE = "rescale it to [-1, 1], e.g. with RescaleAction"


def action_space_warning(space: Space[Any]) -> str | None:
    """A warning for a bounded float ``Box`` other than ``[-1, 1]``; None for any other space.

    Only a ``Box`` with a floating dtype and finite bounds everywhere is judged: unbounded
    boxes, integer boxes and other spaces (discrete ones, composites) are not.
    """
    if not isinstance(space, Box) or space.dtype.kind != "f" or not all(space.is_bounded):
        return None
    low, high = space.low, space.high
    if np.all(low == -1.0) and np.all(high == 1.0):
        return None
    if not np.array_equal(low, -high):
        return (
            f"action_space {space!r} is not symmetric around 0: a Gaussian policy starts at "
            "mean 0, and clipping to the box piles its actions up at a bound; " + _RESCALE + "."
        )
    return (
        f"action_space {space!r} is symmetric but not [-1, 1]: a Gaussian policy starts with "
        "standard deviation 1, which explores a wider box too little and a narrower one mostly "
        "at its bounds; " + _RESCALE + "."
    )


def reward_scale_warning(rewards: Sequence[float]) -> str | None:
    """A warning if the root mean square of ``rewards`` is outside ``REWARD_SCALE_RANGE``.

    ``rewards`` are the finite rewards of a rollout of random actions; None for none.
    """
    values = np.asarray(rewards, dtype=np.float64)
    if not values.size:
        return None
    largest = float(np.max(np.abs(values)))
    unit = values / largest if largest else values  # no overflow in the squares
    rms = largest * math.sqrt(float(np.mean(np.square(unit))))
    low, high = REWARD_SCALE_RANGE
    if low <= rms <= high:
        return None
    side = "above" if rms > high else "below"
    return (
        f"{values.size} finite rewards under random actions have a root mean square of {rms:.3g} "
        f"(mean {largest * float(np.mean(unit)):.3g}, std {largest * float(np.std(unit)):.3g}), "
        f"{side} the range [{low:g}, {high:g}] around 1 that learners' defaults are sized for; "
        "scale the reward towards 1 (e.g. with TransformReward, or NormalizeReward while training)."
    )

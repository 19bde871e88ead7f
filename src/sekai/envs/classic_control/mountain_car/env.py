"""MountainCar: drive an under-powered car up a hill with three discrete actions."""

from __future__ import annotations

import math
from typing import Any, ClassVar, overload

import numpy as np
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.core.env import Env
from sekai.core.options import check_reset_options
from sekai.core.result import ResetResult, StepResult
from sekai.envs.classic_control._options import FAST_INT_TYPES, check_real, reset_bounds
from sekai.error import InvalidAction, ResetRequired
from sekai.spaces import Box, Discrete

__all__ = ["MountainCarEnv"]

_cos = math.cos
_array = np.array
_float32 = np.float32


class MountainCarEnv(Env[NDArray[np.float32], int]):
    """Accelerate left (0), not at all (1) or right (2) to reach the flag at ``x = 0.5``.

    Observation ``[position, velocity]`` (float32); reward ``-1`` per step; terminated when
    ``position >= 0.5 and velocity >= goal_velocity``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_fps": 30}

    def __init__(self, goal_velocity: float = 0.0) -> None:
        self.goal_velocity = check_real(goal_velocity, "goal_velocity")
        self.min_position = -1.2
        self.max_position = 0.6
        self.max_speed = 0.07
        self.goal_position = 0.5
        self.force = 0.001
        self.gravity = 0.0025
        self.low = np.array([self.min_position, -self.max_speed], dtype=np.float32)
        self.high = np.array([self.max_position, self.max_speed], dtype=np.float32)
        self.observation_space = Box(self.low, self.high, dtype=np.float32)
        self.action_space = Discrete(3)
        self.state: tuple[float, float] | None = None

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        """Start at rest at a position drawn from ``U[low, high]``.

        ``options``: ``low`` (default -0.6) and ``high`` (default -0.4).
        """
        check_reset_options(self, options, ("low", "high"))
        self._set_rng(seed)
        low, high = reset_bounds(options, -0.6, -0.4)
        self.state = (float(self.rng.uniform(low=low, high=high)), 0.0)
        return ResetResult(_array(self.state, dtype=_float32), {})

    def step(self, action: int | np.integer[Any]) -> StepResult[NDArray[np.float32]]:
        """Push with ``(action - 1) * force`` and move along the track."""
        if (
            action.__class__ not in FAST_INT_TYPES or not (0 <= action <= 2)
        ) and not self.action_space.contains(action):
            raise InvalidAction(action, self.action_space)
        state = self.state
        if state is None:
            raise ResetRequired()
        position, velocity = state
        velocity += (int(action) - 1) * self.force - _cos(3 * position) * self.gravity
        max_speed = self.max_speed
        if velocity > max_speed:
            velocity = max_speed
        elif velocity < -max_speed:
            velocity = -max_speed
        position += velocity
        if position > self.max_position:
            position = self.max_position
        elif position < self.min_position:
            position = self.min_position
        if position == self.min_position and velocity < 0:
            velocity = 0.0
        self.state = state = (position, velocity)
        terminated = bool(position >= self.goal_position and velocity >= self.goal_velocity)
        return StepResult(_array(state, dtype=_float32), -1.0, terminated, False, {})

    @overload
    @staticmethod
    def height(xs: float) -> float: ...

    @overload
    @staticmethod
    def height(xs: NDArray[Any]) -> NDArray[np.float64]: ...

    @staticmethod
    def height(xs: float | NDArray[Any]) -> float | NDArray[np.float64]:
        """Track height ``0.45 sin(3 xs) + 0.55`` (scalar or elementwise)."""
        if isinstance(xs, np.ndarray):
            result: NDArray[np.float64] = 0.45 * np.sin(3 * xs) + 0.55
            return result
        return 0.45 * math.sin(3 * xs) + 0.55

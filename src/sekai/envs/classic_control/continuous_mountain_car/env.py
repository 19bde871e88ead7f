"""MountainCarContinuous: drive an under-powered car up a hill with a continuous force."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._types import SeedType
from sekai.core.env import Env
from sekai.core.options import check_reset_options
from sekai.core.result import ResetResult, StepResult
from sekai.envs.classic_control._options import check_real, first_action_element, reset_bounds
from sekai.envs.classic_control.mountain_car.env import MountainCarEnv
from sekai.error import ResetRequired
from sekai.spaces import Box

__all__ = ["ContinuousMountainCarEnv"]

_cos = math.cos
_pow = math.pow
_array = np.array
_float32 = np.float32


class ContinuousMountainCarEnv(Env[NDArray[np.float32], NDArray[np.float32]]):
    """Apply a force in ``[-1, 1]`` to reach the flag at ``x = 0.45``.

    Observation ``[position, velocity]`` (float32). Reward ``100`` on reaching the goal minus
    ``0.1 * action**2`` every step (unclipped action); terminated when
    ``position >= 0.45 and velocity >= goal_velocity``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_fps": 30}

    def __init__(self, goal_velocity: float = 0.0) -> None:
        self.goal_velocity = check_real(goal_velocity, "goal_velocity")
        self.min_action = -1.0
        self.max_action = 1.0
        self.min_position = -1.2
        self.max_position = 0.6
        self.max_speed = 0.07
        self.goal_position = 0.45
        self.power = 0.0015
        self.low_state = np.array([self.min_position, -self.max_speed], dtype=np.float32)
        self.high_state = np.array([self.max_position, self.max_speed], dtype=np.float32)
        self.observation_space = Box(self.low_state, self.high_state, dtype=np.float32)
        self.action_space = Box(self.min_action, self.max_action, shape=(1,), dtype=np.float32)
        #: ``[position, velocity]``: float64 after ``reset``, float32 after each ``step``.
        self.state: NDArray[np.floating[Any]] | None = None

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        """Start at rest at a position drawn from ``U[low, high]``.

        ``options``: ``low`` (default -0.6) and ``high`` (default -0.4).
        """
        check_reset_options(self, options, ("low", "high"))
        self._set_rng(seed)
        low, high = reset_bounds(options, -0.6, -0.4)
        state = np.array([self.rng.uniform(low=low, high=high), 0.0])
        self.state = state
        return ResetResult(_array(state, dtype=_float32), {})

    def step(self, action: ArrayLike) -> StepResult[NDArray[np.float32]]:
        """Push with ``clip(action[0], -1, 1) * power`` and move along the track.

        The action keeps its dtype: a float32 action makes the force term float32, as in
        gymnasium under NumPy 2 promotion rules.
        """
        state = self.state
        if state is None:
            raise ResetRequired()
        a: Any = first_action_element(action, self.action_space)
        # Numpy scalars on purpose: the state dtype (float64, then float32) and the action
        # dtype decide the precision of each term, exactly as in the reference dynamics.
        position = state[0]
        velocity = state[1]
        force = min(max(a, self.min_action), self.max_action)
        velocity += force * self.power - 0.0025 * _cos(3 * position)
        if velocity > self.max_speed:
            velocity = self.max_speed
        if velocity < -self.max_speed:
            velocity = -self.max_speed
        position += velocity
        if position > self.max_position:
            position = self.max_position
        if position < self.min_position:
            position = self.min_position
        if position == self.min_position and velocity < 0:
            velocity = 0
        terminated = bool(position >= self.goal_position and velocity >= self.goal_velocity)
        reward = (100.0 if terminated else 0.0) - _pow(a, 2) * 0.1
        new_state = _array([position, velocity], dtype=_float32)
        self.state = new_state
        return StepResult(new_state.copy(), reward, terminated, False, {})

    height = staticmethod(MountainCarEnv.height)

"""Pendulum: swing a frictionless pendulum up and keep it upright."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._types import SeedType
from sekai.core.env import Env
from sekai.core.options import check_reset_options
from sekai.core.result import ResetResult, StepResult
from sekai.envs.classic_control._options import check_real, first_action_element
from sekai.error import ResetRequired
from sekai.spaces import Box

__all__ = ["PendulumEnv", "angle_normalize"]

_cos = math.cos
_sin = math.sin
_pi = math.pi
_two_pi = 2 * math.pi
_array = np.array
_float32 = np.float32
_clip = np.clip
_FAST_FLOAT_TYPES: frozenset[Any] = frozenset((np.float32, np.float64))

DEFAULT_X = math.pi
DEFAULT_Y = 1.0


def angle_normalize(x: float) -> float:
    """Wrap an angle into ``[-pi, pi)``: ``((x + pi) mod 2 pi) - pi``."""
    return ((x + _pi) % _two_pi) - _pi


class PendulumEnv(Env[NDArray[np.float32], NDArray[np.float32]]):
    """Apply a torque in ``[-2, 2]`` to swing the pendulum up (``theta = 0`` is upright).

    Observation ``[cos theta, sin theta, theta_dot]`` (float32). Reward
    ``-(angle_normalize(theta)**2 + 0.1 theta_dot**2 + 0.001 u**2)``; never terminates.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_fps": 30}

    def __init__(self, g: float = 10.0) -> None:
        self.g = check_real(g, "g")
        self.max_speed = 8
        self.max_torque = 2.0
        self.dt = 0.05
        self.m = 1.0
        self.l = 1.0
        high = np.array([1.0, 1.0, self.max_speed], dtype=np.float32)
        self.observation_space = Box(-high, high, dtype=np.float32)
        self.action_space = Box(-self.max_torque, self.max_torque, shape=(1,), dtype=np.float32)
        self.state: tuple[float, float] | None = None
        #: The clipped torque of the last step (``None`` right after ``reset``).
        self.last_u: np.generic | None = None

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        """Start at ``theta ~ U[-x_init, x_init]``, ``theta_dot ~ U[-y_init, y_init]``.

        ``options``: ``x_init`` (default pi) and ``y_init`` (default 1.0), real numbers.
        """
        check_reset_options(self, options, ("x_init", "y_init"))
        self._set_rng(seed)
        if options is None:
            x, y = DEFAULT_X, DEFAULT_Y
        else:
            x = (
                check_real(options["x_init"], "options['x_init']")
                if "x_init" in options
                else DEFAULT_X
            )
            y = (
                check_real(options["y_init"], "options['y_init']")
                if "y_init" in options
                else DEFAULT_Y
            )
        high = np.array([x, y])
        theta, theta_dot = self.rng.uniform(low=-high, high=high).tolist()
        self.state = (theta, theta_dot)
        self.last_u = None
        return ResetResult(_array((_cos(theta), _sin(theta), theta_dot), dtype=_float32), {})

    def step(self, action: ArrayLike) -> StepResult[NDArray[np.float32]]:
        """Apply the torque ``clip(action[0], -max_torque, max_torque)`` for ``dt`` seconds.

        The torque keeps the action's dtype: with a float32 action the torque terms are
        evaluated in float32, as in gymnasium under NumPy 2 promotion rules.
        """
        state = self.state
        if state is None:
            raise ResetRequired()
        u: Any = first_action_element(action, self.action_space)
        max_torque = self.max_torque
        if u.__class__ in _FAST_FLOAT_TYPES:
            if u > max_torque:
                u = type(u)(max_torque)
            elif u < -max_torque:
                u = type(u)(-max_torque)
        else:
            u = _clip(u, -max_torque, max_torque)
        self.last_u = u
        theta, theta_dot = state
        g = self.g
        m = self.m
        length = self.l
        dt = self.dt
        costs = angle_normalize(theta) ** 2 + 0.1 * theta_dot**2 + float(0.001 * (u**2))
        new_theta_dot = (
            theta_dot + (3 * g / (2 * length) * _sin(theta) + float(3.0 / (m * length**2) * u)) * dt
        )
        max_speed = self.max_speed
        if new_theta_dot > max_speed:
            new_theta_dot = float(max_speed)
        elif new_theta_dot < -max_speed:
            new_theta_dot = float(-max_speed)
        new_theta = theta + new_theta_dot * dt
        self.state = (new_theta, new_theta_dot)
        return StepResult(
            _array((_cos(new_theta), _sin(new_theta), new_theta_dot), dtype=_float32),
            -costs,
            False,
            False,
            {},
        )

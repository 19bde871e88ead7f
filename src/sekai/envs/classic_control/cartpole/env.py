"""CartPole: balance a pole on a cart moving along a frictionless track."""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.core.env import Env
from sekai.core.options import check_reset_options
from sekai.core.result import ResetResult, StepResult
from sekai.envs.classic_control._options import FAST_INT_TYPES, reset_bounds
from sekai.error import InvalidAction, ResetRequired
from sekai.spaces import Box, Discrete

__all__ = ["CartPoleEnv"]

_cos = math.cos
_sin = math.sin
_array = np.array
_float32 = np.float32


class CartPoleEnv(Env[NDArray[np.float32], int]):
    """Push a cart left (0) or right (1) to keep the pole upright.

    Observation ``[x, x_dot, theta, theta_dot]`` (float32). Reward ``+1`` per step, the
    terminating one included (with ``sutton_barto_reward``: ``0`` per step, ``-1`` on
    termination). The episode terminates when ``|x| > 2.4`` or ``|theta| > 12°``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_fps": 50}

    def __init__(self, sutton_barto_reward: bool = False) -> None:
        if not isinstance(sutton_barto_reward, (bool, np.bool_)):
            raise TypeError(
                f"sutton_barto_reward must be a bool, got {sutton_barto_reward!r} "
                f"({type(sutton_barto_reward).__name__})."
            )
        self.sutton_barto_reward = bool(sutton_barto_reward)
        self.gravity = 9.8
        self.masscart = 1.0
        self.masspole = 0.1
        self.total_mass = self.masspole + self.masscart
        self.length = 0.5
        self.polemass_length = self.masspole * self.length
        self.force_mag = 10.0
        self.tau = 0.02
        self.kinematics_integrator = "euler"
        self.theta_threshold_radians = 12 * 2 * math.pi / 360
        self.x_threshold = 2.4
        high = np.array(
            [self.x_threshold * 2, np.inf, self.theta_threshold_radians * 2, np.inf],
            dtype=np.float32,
        )
        self.observation_space = Box(-high, high, dtype=np.float32)
        self.action_space = Discrete(2)
        self.state: tuple[float, float, float, float] | None = None
        self.steps_beyond_terminated: int | None = None

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        """Start an episode with every state variable drawn from ``U[low, high]``.

        ``options``: ``low`` (default -0.05) and ``high`` (default 0.05).
        """
        check_reset_options(self, options, ("low", "high"))
        self._set_rng(seed)
        low, high = reset_bounds(options, -0.05, 0.05)
        x, x_dot, theta, theta_dot = self.rng.uniform(low=low, high=high, size=(4,)).tolist()
        self.state = (x, x_dot, theta, theta_dot)
        self.steps_beyond_terminated = None
        return ResetResult(_array(self.state, dtype=_float32), {})

    def step(self, action: int | np.integer[Any]) -> StepResult[NDArray[np.float32]]:
        """Apply ``+force_mag`` for action 1, ``-force_mag`` for action 0."""
        if (
            action.__class__ not in FAST_INT_TYPES or not (action == 0 or action == 1)
        ) and not self.action_space.contains(action):
            raise InvalidAction(action, self.action_space)
        state = self.state
        if state is None:
            raise ResetRequired()
        x, x_dot, theta, theta_dot = state
        force = self.force_mag if action == 1 else -self.force_mag
        costheta = _cos(theta)
        sintheta = _sin(theta)
        total_mass = self.total_mass
        polemass_length = self.polemass_length
        temp = (force + polemass_length * (theta_dot * theta_dot) * sintheta) / total_mass
        thetaacc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * (costheta * costheta) / total_mass)
        )
        xacc = temp - polemass_length * thetaacc * costheta / total_mass
        tau = self.tau
        if self.kinematics_integrator == "euler":
            x = x + tau * x_dot
            x_dot = x_dot + tau * xacc
            theta = theta + tau * theta_dot
            theta_dot = theta_dot + tau * thetaacc
        else:
            x_dot = x_dot + tau * xacc
            x = x + tau * x_dot
            theta_dot = theta_dot + tau * thetaacc
            theta = theta + tau * theta_dot
        self.state = state = (x, x_dot, theta, theta_dot)
        x_threshold = self.x_threshold
        theta_threshold = self.theta_threshold_radians
        terminated = bool(
            x < -x_threshold
            or x > x_threshold
            or theta < -theta_threshold
            or theta > theta_threshold
        )
        if not terminated:
            reward = 0.0 if self.sutton_barto_reward else 1.0
        elif self.steps_beyond_terminated is None:
            self.steps_beyond_terminated = 0
            reward = -1.0 if self.sutton_barto_reward else 1.0
        else:
            if self.steps_beyond_terminated == 0:
                warnings.warn(
                    "CartPoleEnv.step() was called after the episode terminated; call reset() "
                    "first. Further steps are undefined behaviour and pay "
                    f"{-1.0 if self.sutton_barto_reward else 0.0}.",
                    UserWarning,
                    stacklevel=2,
                )
            self.steps_beyond_terminated += 1
            reward = -1.0 if self.sutton_barto_reward else 0.0
        return StepResult(_array(state, dtype=_float32), reward, terminated, False, {})

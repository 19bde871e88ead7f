"""Acrobot: swing the free end of a two-link chain above a line with torque on the middle joint."""

from __future__ import annotations

import math
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

__all__ = ["AcrobotEnv", "bound", "wrap"]

_cos = math.cos
_sin = math.sin
_pi = math.pi
_half_pi = math.pi / 2.0
_array = np.array
_float32 = np.float32


def wrap(x: float, m: float, M: float) -> float:
    """Shift ``x`` by multiples of ``M - m`` until it lies in ``[m, M]``."""
    diff = M - m
    while x > M:
        x = x - diff
    while x < m:
        x = x + diff
    return x


def bound(x: float, m: float, M: float) -> float:
    """Clamp ``x`` into ``[m, M]``."""
    return min(max(x, m), M)


class AcrobotEnv(Env[NDArray[np.float32], int]):
    """Apply torque -1 (0), 0 (1) or +1 (2) to the joint between the two links.

    Observation ``[cos t1, sin t1, cos t2, sin t2, t1_dot, t2_dot]`` (float32). Reward ``-1``
    per step and ``0`` on the terminal step, reached when ``-cos t1 - cos(t1 + t2) > 1``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_fps": 15}

    dt = 0.2
    LINK_LENGTH_1 = 1.0
    LINK_LENGTH_2 = 1.0
    LINK_MASS_1 = 1.0
    LINK_MASS_2 = 1.0
    LINK_COM_POS_1 = 0.5
    LINK_COM_POS_2 = 0.5
    LINK_MOI = 1.0
    MAX_VEL_1 = 4 * math.pi
    MAX_VEL_2 = 9 * math.pi
    AVAIL_TORQUE = (-1.0, 0.0, +1.0)
    torque_noise_max = 0.0
    book_or_nips = "book"

    def __init__(self) -> None:
        high = np.array([1.0, 1.0, 1.0, 1.0, self.MAX_VEL_1, self.MAX_VEL_2], dtype=np.float32)
        self.observation_space = Box(-high, high, dtype=np.float32)
        self.action_space = Discrete(3)
        #: ``(theta1, theta2, theta1_dot, theta2_dot)``; float32 values right after ``reset``.
        self.state: tuple[float, float, float, float] | None = None

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        """Start with each state variable drawn from ``U[low, high]`` and rounded to float32.

        ``options``: ``low`` (default -0.1) and ``high`` (default 0.1).
        """
        check_reset_options(self, options, ("low", "high"))
        self._set_rng(seed)
        low, high = reset_bounds(options, -0.1, 0.1)
        state = self.rng.uniform(low=low, high=high, size=(4,)).astype(np.float32)
        t1, t2, d1, d2 = state.tolist()
        self.state = (t1, t2, d1, d2)
        # The reset state is float32, so its cos/sin are float32 too.
        s1, s2 = state[0], state[1]
        observation = _array(
            (np.cos(s1), np.sin(s1), np.cos(s2), np.sin(s2), state[2], state[3]), dtype=_float32
        )
        return ResetResult(observation, {})

    def step(self, action: int | np.integer[Any]) -> StepResult[NDArray[np.float32]]:
        """Integrate one ``dt`` with classical RK4 under torque ``AVAIL_TORQUE[action]``."""
        if (
            action.__class__ not in FAST_INT_TYPES or not (0 <= action <= 2)
        ) and not self.action_space.contains(action):
            raise InvalidAction(action, self.action_space)
        state = self.state
        if state is None:
            raise ResetRequired()
        torque = self.AVAIL_TORQUE[int(action)]
        if self.torque_noise_max > 0:
            torque += float(self.rng.uniform(-self.torque_noise_max, self.torque_noise_max))
        t1, t2, v1, v2 = state
        params = (
            self.LINK_MASS_1,
            self.LINK_MASS_2,
            self.LINK_LENGTH_1,
            self.LINK_COM_POS_1,
            self.LINK_COM_POS_2,
            self.LINK_MOI,
            self.LINK_MOI,
            self.book_or_nips == "book",
        )
        dt = self.dt
        dt2 = dt / 2.0
        # Classical RK4; the torque is constant over the step.
        k1 = _derivatives(t1, t2, v1, v2, torque, params)
        k2 = _derivatives(
            t1 + dt2 * k1[0], t2 + dt2 * k1[1], v1 + dt2 * k1[2], v2 + dt2 * k1[3], torque, params
        )
        k3 = _derivatives(
            t1 + dt2 * k2[0], t2 + dt2 * k2[1], v1 + dt2 * k2[2], v2 + dt2 * k2[3], torque, params
        )
        k4 = _derivatives(
            t1 + dt * k3[0], t2 + dt * k3[1], v1 + dt * k3[2], v2 + dt * k3[3], torque, params
        )
        sixth = dt / 6.0
        t1 = t1 + sixth * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        t2 = t2 + sixth * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        v1 = v1 + sixth * (k1[2] + 2 * k2[2] + 2 * k3[2] + k4[2])
        v2 = v2 + sixth * (k1[3] + 2 * k2[3] + 2 * k3[3] + k4[3])
        t1 = wrap(t1, -_pi, _pi)
        t2 = wrap(t2, -_pi, _pi)
        v1 = bound(v1, -self.MAX_VEL_1, self.MAX_VEL_1)
        v2 = bound(v2, -self.MAX_VEL_2, self.MAX_VEL_2)
        self.state = (t1, t2, v1, v2)
        cos_t1 = _cos(t1)
        terminated = bool(-cos_t1 - _cos(t2 + t1) > 1.0)
        return StepResult(
            _array((cos_t1, _sin(t1), _cos(t2), _sin(t2), v1, v2), dtype=_float32),
            0.0 if terminated else -1.0,
            terminated,
            False,
            {},
        )


_Params = tuple[float, float, float, float, float, float, float, bool]


def _derivatives(
    theta1: float, theta2: float, dtheta1: float, dtheta2: float, a: float, p: _Params
) -> tuple[float, float, float, float]:
    """Time derivatives of ``(theta1, theta2, theta1_dot, theta2_dot)`` under torque ``a``."""
    m1, m2, l1, lc1, lc2, i1, i2, book = p
    g = 9.8
    cos_theta2 = _cos(theta2)
    sin_theta2 = _sin(theta2)
    d1 = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * cos_theta2) + i1 + i2
    d2 = m2 * (lc2**2 + l1 * lc2 * cos_theta2) + i2
    phi2 = m2 * lc2 * g * _cos(theta1 + theta2 - _half_pi)
    phi1 = (
        -m2 * l1 * lc2 * dtheta2**2 * sin_theta2
        - 2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * sin_theta2
        + (m1 * lc1 + m2 * l1) * g * _cos(theta1 - _half_pi)
        + phi2
    )
    if book:
        ddtheta2 = (a + d2 / d1 * phi1 - m2 * l1 * lc2 * dtheta1**2 * sin_theta2 - phi2) / (
            m2 * lc2**2 + i2 - d2**2 / d1
        )
    else:
        ddtheta2 = (a + d2 / d1 * phi1 - phi2) / (m2 * lc2**2 + i2 - d2**2 / d1)
    ddtheta1 = -(d2 * ddtheta2 + phi1) / d1
    return dtheta1, dtheta2, ddtheta1, ddtheta2

"""``AcrobotVecEnv``: ``num_envs`` Acrobot envs stepped together with array operations."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.classic_control._vector import StateVecEnv, discrete_actions, square
from sekai.envs.classic_control.acrobot.env import AcrobotEnv
from sekai.vector.template import Param

__all__ = ["AcrobotVecEnv"]

_Columns = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]


class AcrobotVecEnv(StateVecEnv[AcrobotEnv]):
    """``num_envs`` copies of ``AcrobotEnv``, each bit for bit the single env (RK4 included).

    ``AcrobotVecEnv(num_envs, *, autoreset=True, max_episode_steps=None)``; ``state`` is
    ``(num_envs, 4)`` float64 ``[theta1, theta2, theta1_dot, theta2_dot]``. Actions are
    integer arrays ``(num_envs,)`` of 0, 1 and 2. The physical constants are the template's,
    shared by every sub-env; with ``torque_noise_max > 0`` each sub-env draws its own noise.
    """

    env_class = AcrobotEnv
    state_width = 4
    dt = Param()
    LINK_LENGTH_1 = Param()
    LINK_LENGTH_2 = Param()
    LINK_MASS_1 = Param()
    LINK_MASS_2 = Param()
    LINK_COM_POS_1 = Param()
    LINK_COM_POS_2 = Param()
    LINK_MOI = Param()
    MAX_VEL_1 = Param()
    MAX_VEL_2 = Param()
    AVAIL_TORQUE = Param()
    torque_noise_max = Param()
    book_or_nips = Param()

    def _allocate(self) -> None:
        super()._allocate()
        # Sub-envs just reset: their observation is computed in float32, as the single env's.
        self._fresh = np.zeros(self.num_envs, bool)

    @StateVecEnv.state.setter  # type: ignore[attr-defined]
    def state(self, value: Any) -> None:
        self._state = self._checked_state(value).astype(np.float64)
        self._fresh = np.zeros(self.num_envs, bool)

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        starts = self._uniform_starts(options, -0.1, 0.1, 4).astype(np.float32)
        self._state[indices] = starts
        self._fresh[indices] = True

    def _observe(self) -> NDArray[np.float32]:
        state = self._state
        obs = np.empty((self.num_envs, 6), np.float32)
        obs[:, 0] = np.cos(state[:, 0])
        obs[:, 1] = np.sin(state[:, 0])
        obs[:, 2] = np.cos(state[:, 1])
        obs[:, 3] = np.sin(state[:, 1])
        obs[:, 4:] = state[:, 2:]
        if self._fresh.any():
            rows = np.flatnonzero(self._fresh)
            angles = state[rows, :2].astype(np.float32)
            obs[rows, 0] = np.cos(angles[:, 0])
            obs[rows, 1] = np.sin(angles[:, 0])
            obs[rows, 2] = np.cos(angles[:, 1])
            obs[rows, 3] = np.sin(angles[:, 1])
        return obs

    def _torques(self, actions: Any) -> NDArray[np.float64]:
        env = self.template
        torque = np.asarray(env.AVAIL_TORQUE, dtype=np.float64).take(
            discrete_actions(self, actions, 3)
        )
        if env.torque_noise_max > 0:
            noise = env.torque_noise_max
            torque += self.rng.uniform(-noise, noise, size=self.num_envs)
        return torque

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, Any]]:
        env = self.template
        torque = self._torques(actions)
        state: _Columns = tuple(self._state.T)
        dt = env.dt
        dt2 = dt / 2.0
        # Classical RK4 as the single env takes it, stage for stage.
        k1 = self._derivatives(state, torque)
        k2 = self._derivatives(_stage(state, dt2, k1), torque)
        k3 = self._derivatives(_stage(state, dt2, k2), torque)
        k4 = self._derivatives(_stage(state, dt, k3), torque)
        sixth = dt / 6.0
        new = self._spare
        for j in range(4):
            total = 2 * k2[j]
            np.add(k1[j], total, out=total)
            total += 2 * k3[j]
            total += k4[j]
            total *= sixth
            np.add(state[j], total, out=new[:, j])
        for j in (0, 1):
            _wrap(new[:, j], -math.pi, math.pi)
        np.clip(new[:, 2], -env.MAX_VEL_1, env.MAX_VEL_1, out=new[:, 2])
        np.clip(new[:, 3], -env.MAX_VEL_2, env.MAX_VEL_2, out=new[:, 3])
        theta1, theta2 = new[:, 0], new[:, 1]
        height = np.negative(np.cos(theta1))
        height -= np.cos(theta2 + theta1)
        terminated = height > 1.0
        active = self.active
        self._fresh &= False if active is None else ~active
        self._advance()
        rewards = np.where(terminated, 0.0, -1.0)
        return rewards, terminated, np.zeros(self.num_envs, bool), {}

    def _derivatives(self, columns: _Columns, a: NDArray[np.float64]) -> _Columns:
        """The single env's ``_derivatives`` on arrays: products and sums in its order."""
        env = self.template
        theta1, theta2, dtheta1, dtheta2 = columns
        m1, m2 = env.LINK_MASS_1, env.LINK_MASS_2
        l1, lc1, lc2 = env.LINK_LENGTH_1, env.LINK_COM_POS_1, env.LINK_COM_POS_2
        i1 = i2 = env.LINK_MOI
        g = 9.8
        half_pi = math.pi / 2.0
        cos_theta2 = np.cos(theta2)
        sin_theta2 = np.sin(theta2)
        d1 = l1**2 + lc2**2 + (2 * l1 * lc2) * cos_theta2
        d1 *= m2
        d1 += m1 * lc1**2
        d1 += i1
        d1 += i2
        d2 = lc2**2 + (l1 * lc2) * cos_theta2
        d2 *= m2
        d2 += i2
        phi2 = np.add(theta1, theta2)
        phi2 -= half_pi
        phi2 = (m2 * lc2 * g) * np.cos(phi2, out=phi2)
        phi1 = (-m2 * l1 * lc2) * square(dtheta2)
        phi1 *= sin_theta2
        product = (2 * m2 * l1 * lc2) * dtheta2
        product *= dtheta1
        product *= sin_theta2
        phi1 -= product
        phi1 += ((m1 * lc1 + m2 * l1) * g) * np.cos(theta1 - half_pi)
        phi1 += phi2
        ratio = d2 / d1
        numerator = ratio * phi1
        numerator += a
        if env.book_or_nips == "book":
            product = (m2 * l1 * lc2) * square(dtheta1)
            product *= sin_theta2
            numerator -= product
        numerator -= phi2
        denominator = square(d2)
        denominator /= d1
        np.subtract(m2 * lc2**2 + i2, denominator, out=denominator)
        ddtheta2 = np.divide(numerator, denominator, out=numerator)
        ddtheta1 = d2 * ddtheta2
        ddtheta1 += phi1
        np.negative(ddtheta1, out=ddtheta1)
        ddtheta1 /= d1
        return dtheta1, dtheta2, ddtheta1, ddtheta2


def _stage(state: _Columns, h: float, k: _Columns) -> _Columns:
    """``state + h * k``, column by column, as the single env forms an RK4 stage."""
    return tuple(np.add(s, h * d) for s, d in zip(state, k, strict=True))  # type: ignore[return-value]


def _wrap(x: NDArray[np.float64], low: float, high: float) -> None:
    """The single env's ``wrap`` in place: shift by ``high - low`` until in ``[low, high]``.

    Infinite values, which the single env's loop never leaves, are left as they are.
    """
    diff = high - low
    finite = np.isfinite(x)
    while (above := (x > high) & finite).any():
        np.subtract(x, diff, out=x, where=above)
    while (below := (x < low) & finite).any():
        np.add(x, diff, out=x, where=below)

"""``PendulumVecEnv``: ``num_envs`` Pendulum envs stepped together with array operations."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core.options import check_reset_options_each
from sekai.envs.classic_control._options import check_real
from sekai.envs.classic_control._vector import StateVecEnv, clamp, first_elements, square
from sekai.envs.classic_control.pendulum.env import DEFAULT_X, DEFAULT_Y, PendulumEnv
from sekai.vector.template import Param

__all__ = ["PendulumVecEnv"]


def _half_range(option: Any, key: str, default: float) -> float:
    return check_real(option[key], f"options[{key!r}]") if option and key in option else default


class PendulumVecEnv(StateVecEnv[PendulumEnv]):
    """``num_envs`` copies of ``PendulumEnv``, each bit for bit the single env.

    ``PendulumVecEnv(num_envs, *, autoreset=True, max_episode_steps=None, g=10.0)``;
    ``state`` is ``(num_envs, 2)`` float64 ``[theta, theta_dot]``. Actions are
    ``(num_envs, 1)`` arrays (any float dtype, which the torque terms keep as in the single
    env); only the first element of each row counts. The parameters are the template's.
    ``last_u`` is each sub-env's clipped torque of its last step (``None`` after its reset).
    """

    env_class = PendulumEnv
    state_width = 2
    g = Param()
    max_speed = Param()
    max_torque = Param()
    dt = Param()
    m = Param()
    l = Param()  # noqa: E741 - the single env's name

    def _allocate(self) -> None:
        super()._allocate()
        self._torque: NDArray[Any] = np.zeros(self.num_envs)
        self._stepped = np.zeros(self.num_envs, bool)

    @property
    def last_u(self) -> NDArray[np.object_]:
        """Object array of each sub-env's clipped torque of its last step, a scalar of the
        action's dtype as in the single env, or ``None`` if it has not stepped since its reset."""
        torques = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(self._stepped).tolist():
            torques[i] = self._torque[i]
        return torques

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        check_reset_options_each(self, options, ("x_init", "y_init"))
        high = np.array(
            [
                (_half_range(entry, "x_init", DEFAULT_X), _half_range(entry, "y_init", DEFAULT_Y))
                for entry in options
            ]
        )
        self._state[indices] = self.rng.uniform(low=-high, high=high)
        self._stepped[indices] = False

    def _observe(self) -> NDArray[np.float32]:
        theta = self._state[:, 0]
        obs = np.empty((self.num_envs, 3), np.float32)
        obs[:, 0] = np.cos(theta)
        obs[:, 1] = np.sin(theta)
        obs[:, 2] = self._state[:, 1]
        return obs

    def _torques(self, actions: Any) -> NDArray[Any]:
        """Each sub-env's torque, clipped as the single env clips it (dtype kept)."""
        u = first_elements(self, actions)
        max_torque = self.template.max_torque
        if u.dtype in (np.float32, np.float64):
            u = u.copy()
            clamp(u, u.dtype.type(-max_torque), u.dtype.type(max_torque))
            return u
        return np.clip(u, -max_torque, max_torque)

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, Any]]:
        env = self.template
        u = self._torques(actions)
        self._torque = u
        self._stepped.fill(True)
        theta, theta_dot = self._state.T
        new_theta, new_theta_dot = self._spare.T
        g, m, length, dt = env.g, env.m, env.l, env.dt
        # The single env's operations in its order: Python's x ** 2 is C pow (``square``),
        # and the torque terms are evaluated in the action's dtype before becoming floats.
        angle = np.remainder(theta + math.pi, 2 * math.pi)
        angle -= math.pi
        costs = square(angle)
        costs += 0.1 * square(theta_dot)
        costs += (0.001 * square(u)).astype(np.float64)
        accel = 3 * g / (2 * length) * np.sin(theta)
        accel += (3.0 / (m * length**2) * u).astype(np.float64)
        accel *= dt
        np.add(theta_dot, accel, out=new_theta_dot)
        max_speed = env.max_speed
        clamp(new_theta_dot, float(-max_speed), float(max_speed))
        np.add(theta, np.multiply(new_theta_dot, dt, out=new_theta), out=new_theta)
        self._advance()
        no = np.zeros(self.num_envs, bool)
        return np.negative(costs, out=costs), no, no.copy(), {}

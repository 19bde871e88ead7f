"""``CartPoleVecEnv``: ``num_envs`` CartPole envs stepped together with array operations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.classic_control._vector import StateVecEnv, discrete_actions
from sekai.envs.classic_control.cartpole.env import CartPoleEnv
from sekai.vector.template import Param

__all__ = ["CartPoleVecEnv"]


class CartPoleVecEnv(StateVecEnv[CartPoleEnv]):
    """``num_envs`` copies of ``CartPoleEnv``, each bit for bit the single env.

    ``CartPoleVecEnv(num_envs, *, autoreset=True, max_episode_steps=None,
    sutton_barto_reward=False)``; ``state`` is ``(num_envs, 4)`` float64
    ``[x, x_dot, theta, theta_dot]``. Actions are integer arrays ``(num_envs,)`` of 0 and 1.
    The parameters (``gravity``, ``force_mag``, ``tau``, ...) are the template's, shared.
    ``steps_beyond_terminated`` is per sub-env: ``0`` for one frozen by termination
    (``autoreset=False``; with autoreset it starts over at once), else ``None``.
    """

    env_class = CartPoleEnv
    state_width = 4
    sutton_barto_reward = Param()
    gravity = Param()
    masscart = Param()
    masspole = Param()
    total_mass = Param()
    length = Param()
    polemass_length = Param()
    force_mag = Param()
    tau = Param()
    kinematics_integrator = Param()
    theta_threshold_radians = Param()
    x_threshold = Param()

    def _allocate(self) -> None:
        super()._allocate()
        self._ones = np.ones(self.num_envs)
        self._scratch = np.empty((6, self.num_envs))
        self._terminated = np.zeros(self.num_envs, bool)

    @property
    def steps_beyond_terminated(self) -> NDArray[np.object_]:
        """Object array of each sub-env's ``steps_beyond_terminated``: ``0`` after its episode
        terminated, ``None`` before (a frozen sub-env takes no further steps)."""
        steps = np.full(self.num_envs, None, dtype=object)
        steps[self._terminated] = 0
        return steps

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        self._state[indices] = self._uniform_starts(options, -0.05, 0.05, 4)
        self._terminated[indices] = False

    def _observe(self) -> NDArray[np.float32]:
        return self._state.astype(np.float32)

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, Any]]:
        env = self.template
        push = discrete_actions(self, actions, 2)
        x, x_dot, theta, theta_dot = self._state.T
        new = self._spare
        new_x, new_x_dot, new_theta, new_theta_dot = new.T
        force, costheta, sintheta, temp, thetaacc, xacc = self._scratch
        total_mass = env.total_mass
        polemass_length = env.polemass_length
        # The single env's operations in its order, so that every rounding is the same.
        np.array((-env.force_mag, env.force_mag)).take(push, out=force)
        np.cos(theta, out=costheta)
        np.sin(theta, out=sintheta)
        np.multiply(theta_dot, theta_dot, out=temp)
        temp *= polemass_length
        temp *= sintheta
        temp += force
        temp /= total_mass
        np.multiply(costheta, costheta, out=thetaacc)
        thetaacc *= env.masspole
        thetaacc /= total_mass
        np.subtract(4.0 / 3.0, thetaacc, out=thetaacc)
        thetaacc *= env.length
        numerator = np.multiply(env.gravity, sintheta, out=sintheta)
        numerator -= np.multiply(costheta, temp, out=force)
        np.divide(numerator, thetaacc, out=thetaacc)
        np.multiply(polemass_length, thetaacc, out=xacc)
        xacc *= costheta
        xacc /= total_mass
        np.subtract(temp, xacc, out=xacc)
        tau = env.tau
        if env.kinematics_integrator == "euler":
            np.add(x, np.multiply(tau, x_dot, out=new_x), out=new_x)
            np.add(x_dot, np.multiply(tau, xacc, out=new_x_dot), out=new_x_dot)
            np.add(theta, np.multiply(tau, theta_dot, out=new_theta), out=new_theta)
            np.add(theta_dot, np.multiply(tau, thetaacc, out=new_theta_dot), out=new_theta_dot)
        else:
            np.add(x_dot, np.multiply(tau, xacc, out=new_x_dot), out=new_x_dot)
            np.add(x, np.multiply(tau, new_x_dot, out=new_x), out=new_x)
            np.add(theta_dot, np.multiply(tau, thetaacc, out=new_theta_dot), out=new_theta_dot)
            np.add(theta, np.multiply(tau, new_theta_dot, out=new_theta), out=new_theta)
        terminated = np.abs(new_x, out=xacc) > env.x_threshold
        terminated |= np.abs(new_theta, out=thetaacc) > env.theta_threshold_radians
        self._advance()
        active = self.active
        self._terminated |= terminated if active is None else terminated & active
        rewards = np.where(terminated, -1.0, 0.0) if env.sutton_barto_reward else self._ones
        return rewards, terminated, np.zeros(self.num_envs, bool), {}

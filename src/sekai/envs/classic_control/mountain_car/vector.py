"""``MountainCarVecEnv``: ``num_envs`` MountainCar envs stepped together with array operations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.classic_control._vector import StateVecEnv, clamp, discrete_actions
from sekai.envs.classic_control.mountain_car.env import MountainCarEnv
from sekai.vector.template import Param

__all__ = ["MountainCarVecEnv"]


class MountainCarVecEnv(StateVecEnv[MountainCarEnv]):
    """``num_envs`` copies of ``MountainCarEnv``, each bit for bit the single env.

    ``MountainCarVecEnv(num_envs, *, autoreset=True, max_episode_steps=None,
    goal_velocity=0.0)``; ``state`` is ``(num_envs, 2)`` float64 ``[position, velocity]``.
    Actions are integer arrays ``(num_envs,)`` of 0, 1 and 2. The parameters are the
    template's, shared by every sub-env.
    """

    env_class = MountainCarEnv
    state_width = 2
    goal_velocity = Param()
    min_position = Param()
    max_position = Param()
    max_speed = Param()
    goal_position = Param()
    force = Param()
    gravity = Param()
    low = Param()
    high = Param()

    def _allocate(self) -> None:
        super()._allocate()
        self._scratch = np.empty((2, self.num_envs))

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        self._state[indices, 0] = self._uniform_starts(options, -0.6, -0.4, 1)[:, 0]
        self._state[indices, 1] = 0.0

    def _observe(self) -> NDArray[np.float32]:
        return self._state.astype(np.float32)

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, Any]]:
        env = self.template
        push = discrete_actions(self, actions, 3)
        position, velocity = self._state.T
        new_position, new_velocity = self._spare.T
        term, pull = self._scratch
        # velocity += (action - 1) * force - cos(3 * position) * gravity, rounding as it does
        np.array([(action - 1) * env.force for action in range(3)]).take(push, out=term)
        np.multiply(3, position, out=pull)
        np.cos(pull, out=pull)
        pull *= env.gravity
        term -= pull
        np.add(velocity, term, out=new_velocity)
        clamp(new_velocity, -env.max_speed, env.max_speed)
        np.add(position, new_velocity, out=new_position)
        clamp(new_position, env.min_position, env.max_position)
        np.copyto(
            new_velocity,
            0.0,
            where=(new_position == env.min_position) & (new_velocity < 0),
        )
        terminated = new_position >= env.goal_position
        terminated &= new_velocity >= env.goal_velocity
        self._advance()
        return np.full(self.num_envs, -1.0), terminated, np.zeros(self.num_envs, bool), {}

"""``ContinuousMountainCarVecEnv``: ``num_envs`` MountainCarContinuous envs stepped together.

The single env computes with NumPy scalars whose types change along the way: the state is
float64 after ``reset`` and float32 after a step, the action keeps its dtype, and a clipped
value becomes a Python float, which NumPy 2 rounds to the type of the other operand. Each
such scalar is held here as its float64 value and its type (``_Numbers``); every operation
rounds its operands and its result to the type NumPy would compute it in. For the four basic
operations, rounding the float64 result is the same as computing in float32 or float16.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.classic_control._vector import StateVecEnv, first_elements, square
from sekai.envs.classic_control.continuous_mountain_car.env import ContinuousMountainCarEnv
from sekai.vector.template import Param

__all__ = ["ContinuousMountainCarVecEnv"]

#: The type of a value: a Python float (0, which takes the type of a NumPy operand) or a
#: NumPy float of that many bits.
PYTHON = 0
_NARROW = {16: np.float16, 32: np.float32}

_Binary = Callable[[Any, Any], Any]


class _Numbers:
    """One scalar per sub-env: ``value`` (float64) and its type in ``bits`` (int8)."""

    __slots__ = ("bits", "value")

    def __init__(self, value: NDArray[np.float64], bits: NDArray[np.int8]) -> None:
        self.value = value
        self.bits = bits

    def rounded(self, bits: NDArray[np.int8]) -> NDArray[np.float64]:
        """``value`` rounded to the types ``bits`` (Python floats and float64 stay)."""
        return _rounded(self.value, bits)

    def combine(self, op: _Binary, other: _Numbers | float) -> _Numbers:
        """``self op other`` as NumPy computes it for each pair of scalars."""
        if not isinstance(other, _Numbers):
            other = _Numbers(np.full_like(self.value, other), np.zeros_like(self.bits))
        bits = np.maximum(self.bits, other.bits)  # a Python float takes the NumPy type
        return _Numbers(_rounded(op(self.rounded(bits), other.rounded(bits)), bits), bits)

    def compare(self, op: _Binary, constant: float) -> NDArray[np.bool_]:
        """``self op constant`` for a Python float ``constant``, in each value's type."""
        return np.asarray(op(self.value, _rounded(np.full_like(self.value, constant), self.bits)))

    def replace(self, where: NDArray[np.bool_], constant: float) -> None:
        """Set the Python float ``constant`` where ``where`` is set."""
        np.copyto(self.value, constant, where=where)
        np.copyto(self.bits, PYTHON, where=where)


def _rounded(value: NDArray[np.float64], bits: NDArray[np.int8]) -> NDArray[np.float64]:
    result = value
    with np.errstate(over="ignore"):
        for size, narrow in _NARROW.items():
            where = bits == size
            if where.any():
                if result is value:
                    result = value.copy()
                np.copyto(result, value.astype(narrow), where=where)
    return result


class ContinuousMountainCarVecEnv(StateVecEnv[ContinuousMountainCarEnv]):
    """``num_envs`` copies of ``ContinuousMountainCarEnv``, each bit for bit the single env.

    ``ContinuousMountainCarVecEnv(num_envs, *, autoreset=True, max_episode_steps=None,
    goal_velocity=0.0)``; ``state`` is ``(num_envs, 2)`` float64 ``[position, velocity]``.
    As in the single env, a state is float64 after a reset and float32 after a step: setting
    ``state`` to a float32 array makes every sub-env's a float32 state, any other dtype a
    float64 one. Actions are ``(num_envs, 1)`` arrays of any real dtype, which the force term
    keeps as in the single env; only the first element of each row counts.
    """

    env_class = ContinuousMountainCarEnv
    state_width = 2
    goal_velocity = Param()
    min_action = Param()
    max_action = Param()
    min_position = Param()
    max_position = Param()
    max_speed = Param()
    goal_position = Param()
    power = Param()
    low_state = Param()
    high_state = Param()

    def _allocate(self) -> None:
        super()._allocate()
        self._state_bits = np.full(self.num_envs, 64, np.int8)

    @StateVecEnv.state.setter  # type: ignore[attr-defined]
    def state(self, value: Any) -> None:
        array = self._checked_state(value)
        self._state = array.astype(np.float64)
        self._state_bits = np.full(self.num_envs, 32 if array.dtype == np.float32 else 64, np.int8)

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        self._state[indices, 0] = self._uniform_starts(options, -0.6, -0.4, 1)[:, 0]
        self._state[indices, 1] = 0.0
        self._state_bits[indices] = 64

    def _observe(self) -> NDArray[np.float32]:
        return self._state.astype(np.float32)

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, Any]]:
        env = self.template
        raw = first_elements(self, actions)
        size = raw.dtype.itemsize * 8 if raw.dtype.kind == "f" and raw.dtype.itemsize <= 8 else 64
        action = raw.astype(np.float64)
        n = self.num_envs
        state_bits = self._state_bits
        position = _Numbers(self._state[:, 0].copy(), state_bits)
        velocity = _Numbers(self._state[:, 1].copy(), state_bits)
        # force = min(max(action, min_action), max_action)
        force = _Numbers(action.copy(), np.full(n, size, np.int8))
        force.replace(force.compare(operator.lt, env.min_action), env.min_action)
        force.replace(force.compare(operator.gt, env.max_action), env.max_action)
        # velocity += force * power - 0.0025 * cos(3 * position): the cosine is a Python float
        tripled = position.combine(operator.mul, 3.0).value
        pull = _Numbers(0.0025 * np.cos(tripled), np.zeros(n, np.int8))
        velocity = velocity.combine(
            operator.add, force.combine(operator.mul, env.power).combine(operator.sub, pull)
        )
        velocity.replace(velocity.compare(operator.gt, env.max_speed), env.max_speed)
        velocity.replace(velocity.compare(operator.lt, -env.max_speed), -env.max_speed)
        position = position.combine(operator.add, velocity)
        position.replace(position.compare(operator.gt, env.max_position), env.max_position)
        position.replace(position.compare(operator.lt, env.min_position), env.min_position)
        wall = position.compare(operator.eq, env.min_position)
        wall &= velocity.compare(operator.lt, 0.0)
        velocity.replace(wall, 0.0)
        terminated = position.compare(operator.ge, env.goal_position)
        terminated &= velocity.compare(operator.ge, env.goal_velocity)
        new = self._spare
        new[:, 0] = position.value.astype(np.float32)
        new[:, 1] = velocity.value.astype(np.float32)
        active = self.active
        self._state_bits = np.where(True if active is None else active, 32, state_bits)
        self._advance()
        rewards = np.where(terminated, 100.0, 0.0) - square(action) * 0.1
        return rewards, terminated, np.zeros(n, bool), {}

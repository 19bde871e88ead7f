"""What the native classic-control envs share: the state array, action batches, reset draws.

Each native env repeats its single env's arithmetic on arrays, operation for operation, so
that every sub-env is bit for bit the single env. Two things need care for that: NumPy's
``float ** 2`` on arrays is ``x * x``, while Python's is C ``pow`` (``square`` below), and
an action keeps the dtype of its batch, as the single env keeps the dtype of its action.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.core.env import Env
from sekai.core.options import check_reset_options_each
from sekai.envs.classic_control._options import reset_bounds
from sekai.error import InvalidAction
from sekai.vector.template import TemplateVecEnv
from sekai.vector.vec_env import VecEnv

__all__ = [
    "StateVecEnv",
    "array_power_is_c_pow",
    "clamp",
    "discrete_actions",
    "first_elements",
    "square",
]

EnvT = TypeVar("EnvT", bound=Env[Any, Any])

_UNSIGNED = {size: np.dtype(f"u{size}") for size in (1, 2, 4, 8)}


def square(x: NDArray[Any]) -> NDArray[Any]:
    """``x ** 2`` per element as C ``pow`` computes it, which the single envs' scalars call.

    ``pow(x, 2)`` and ``x * x`` differ in the last bit for about one value in a thousand; an
    exponent array, unlike a scalar, keeps NumPy from taking its ``x * x`` shortcut. Where
    NumPy's array power is not C ``pow`` on this CPU (a SIMD approximation), the elements are
    raised one by one instead.
    """
    if array_power_is_c_pow(x.dtype):
        return np.power(x, np.full(x.shape, 2, x.dtype))
    return np.array([value**2 for value in x], dtype=x.dtype)


@functools.cache
def array_power_is_c_pow(dtype: np.dtype[Any]) -> bool:
    """Whether ``np.power`` on arrays of ``dtype`` gives what it gives on scalars (C ``pow``)."""
    probe = np.random.default_rng(0).uniform(-30.0, 30.0, 4096).astype(dtype)
    scalars = np.array([value**2 for value in probe], dtype=dtype)
    return bool(np.array_equal(np.power(probe, np.full(probe.shape, 2, dtype)), scalars))


def clamp(x: NDArray[Any], low: float, high: float) -> None:
    """``x = high if x > high else low if x < low else x`` per element, in place."""
    above = x > high
    np.copyto(x, low, where=x < low)
    np.copyto(x, high, where=above)


def discrete_actions(vec: VecEnv[Any, Any], actions: Any, n: int) -> NDArray[np.integer[Any]]:
    """``actions`` as an integer array of shape ``(num_envs,)`` with entries in ``[0, n)``.

    Anything else (floats and bools included, as the single env's ``Discrete`` refuses them)
    raises ``InvalidAction`` with ``batch_action_space``.
    """
    array = actions
    if array.__class__ is not np.ndarray:
        try:
            array = np.asarray(actions)
        except (TypeError, ValueError) as exc:
            raise InvalidAction(actions, vec.batch_action_space) from exc
    kind = array.dtype.kind
    if array.shape != (vec.num_envs,) or kind not in "iu":
        raise InvalidAction(actions, vec.batch_action_space)
    # One reduction checks both ends: negative entries become huge unsigned ones.
    unsigned = array.view(_UNSIGNED[array.dtype.itemsize]) if kind == "i" else array
    if unsigned.max() >= n:
        raise InvalidAction(actions, vec.batch_action_space)
    return array


def first_elements(vec: VecEnv[Any, Any], actions: Any) -> NDArray[Any]:
    """The first element of each sub-env's action, in the batch's dtype (as the single envs
    read theirs).

    ``TypeError`` for a non-numeric batch, ``InvalidAction`` for another leading axis than
    ``num_envs`` or empty actions.
    """
    try:
        array = np.asarray(actions)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"actions must be numeric, got {actions!r}.") from exc
    if array.dtype.kind not in "biuf":
        raise TypeError(f"actions must be numeric, got {actions!r} (dtype {array.dtype}).")
    n = vec.num_envs
    if array.ndim == 0 or array.shape[0] != n or array.size == 0:
        raise InvalidAction(actions, vec.batch_action_space)
    return array.reshape(n, -1)[:, 0]


class StateVecEnv(TemplateVecEnv[EnvT]):
    """A classic env's native twin: row ``i`` of ``_state`` is the state of sub-env ``i``.

    ``_state`` is ``(num_envs, state_width)`` float64 and ``state`` a copy of it, each row
    what the single env keeps in ``state``. A step writes the next states into ``_spare``
    and ``_advance`` swaps the two (frozen sub-envs keep theirs), so that no step allocates
    state arrays and both stay in cache.
    """

    state_width: ClassVar[int]

    def _allocate(self) -> None:
        self._state: NDArray[np.float64] = np.zeros((self.num_envs, self.state_width))
        self._spare: NDArray[np.float64] = np.zeros_like(self._state)

    @property
    def state(self) -> NDArray[np.float64]:
        """Every sub-env's state, ``(num_envs, state_width)`` float64; a copy."""
        return self._state.copy()

    @state.setter
    def state(self, value: Any) -> None:
        self._state = self._checked_state(value).astype(np.float64)

    def _checked_state(self, value: Any) -> NDArray[Any]:
        """``value`` as a real array of shape ``(num_envs, state_width)`` (dtype kept)."""
        shape = (self.num_envs, self.state_width)
        array = np.asarray(value)
        if array.dtype.kind not in "iuf":
            raise TypeError(f"state must be a real array of shape {shape}, got {value!r}.")
        if array.shape != shape:
            raise ValueError(f"state must have shape {shape}, got shape {array.shape}.")
        return array

    def _advance(self) -> None:
        """Make ``_spare`` the state, with the old rows of frozen sub-envs."""
        new, old = self._spare, self._state
        active = self.active
        if active is not None:
            np.copyto(new, old, where=~active[:, None])
        self._state, self._spare = new, old

    def _uniform_starts(
        self, options: Sequence[Any], low: float, high: float, width: int
    ) -> NDArray[np.float64]:
        """One ``rng.uniform(low, high, size=(width,))`` row per options entry, ``(len, width)``.

        An entry's ``low`` / ``high`` replace the defaults (``reset_bounds``); one call of the
        generator draws all rows, the same numbers a single env draws for one row.
        """
        count = len(options)
        if options.count(None) == count:
            return self.rng.uniform(low, high, size=(count, width))
        check_reset_options_each(self, options, ("low", "high"))
        bounds = np.array([reset_bounds(entry, low, high) for entry in options])
        return self.rng.uniform(bounds[:, :1], bounds[:, 1:], size=(count, width))

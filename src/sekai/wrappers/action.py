"""Action wrappers: clipping, rescaling, sticky, repeated and delayed actions."""

from __future__ import annotations

import copy
from collections import deque
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._types import ActType, ObsType, SeedType
from sekai.core.env import Env
from sekai.core.result import ResetResult, StepResult
from sekai.core.wrapper import ActionWrapper, Wrapper
from sekai.spaces import Box, Space
from sekai.spaces.masking import get_action_mask, supports_action_mask
from sekai.utils.seeding import make_seed_sequence, np_random
from sekai.utils.validation import check_array
from sekai.wrappers._args import check_int, check_real
from sekai.wrappers._ordering import warn_if_autoreset_inside

__all__ = ["ActionRepeat", "ClipAction", "DelayAction", "RescaleAction", "StickyAction"]


def _box_action_space(env: Env[Any, Any], owner: str) -> Box:
    space = env.action_space
    if not isinstance(space, Box):
        raise TypeError(f"{owner} needs a Box action space, got {space!r}.")
    return space


class ClipAction(ActionWrapper[ObsType, NDArray[Any], NDArray[Any]]):
    """Clips every action into the Box action space's bounds."""

    def __init__(self, env: Env[ObsType, NDArray[Any]]) -> None:
        super().__init__(env)
        space = _box_action_space(env, "ClipAction")
        self._low, self._high = space.low, space.high

    def action(self, action: NDArray[Any]) -> NDArray[Any]:
        """``np.clip(action, low, high)``."""
        return np.clip(action, self._low, self._high)

    def reverse_action(self, action: NDArray[Any]) -> NDArray[Any]:
        """The identity."""
        return action


class RescaleAction(ActionWrapper[ObsType, NDArray[Any], NDArray[Any]]):
    """Maps actions from ``[min_action, max_action]`` linearly onto the env's Box bounds.

    The result is clipped into the env's bounds. If the env provides an action mask that
    broadcasts to the action shape, masked (0) components are set to the env's
    ``action_space.zero()``, not to the image of 0 under the linear map.
    """

    def __init__(self, env: Env[ObsType, NDArray[Any]], min_action: Any, max_action: Any) -> None:
        super().__init__(env)
        space = _box_action_space(env, "RescaleAction")
        if not all(space.is_bounded):
            raise ValueError(f"RescaleAction needs finite action bounds, got {space!r}.")
        dtype, shape = space.dtype, space.shape
        lo = check_array(min_action, "RescaleAction: min_action")
        hi = check_array(max_action, "RescaleAction: max_action")
        self.min_action = np.array(np.broadcast_to(lo.astype(dtype), shape))
        self.max_action = np.array(np.broadcast_to(hi.astype(dtype), shape))
        finite = np.isfinite(self.min_action).all() and np.isfinite(self.max_action).all()
        if not finite or np.any(self.min_action >= self.max_action):
            raise ValueError(
                "RescaleAction needs finite min_action < max_action in every component, got "
                f"min_action={self.min_action.tolist()}, max_action={self.max_action.tolist()}."
            )
        self.action_space = Box(self.min_action, self.max_action, dtype=dtype)
        self._env_space = space
        self._dtype = dtype
        lo, hi = space.low.astype(np.float64), space.high.astype(np.float64)
        amin, amax = self.min_action.astype(np.float64), self.max_action.astype(np.float64)
        self._scale = (hi - lo) / (amax - amin)
        self._offset = lo - amin * self._scale
        self._masked = supports_action_mask(env)

    def action(self, action: NDArray[Any]) -> NDArray[Any]:
        """The action mapped onto the env's bounds (masked components at the env's zero)."""
        space = self._env_space
        out = np.clip(
            (np.asarray(action, dtype=np.float64) * self._scale + self._offset).astype(self._dtype),
            space.low,
            space.high,
        )
        if self._masked:
            mask = get_action_mask(self.env)
            if mask is not None:
                try:
                    flags = np.broadcast_to(np.asarray(mask), out.shape)
                except ValueError:
                    return out  # not a Box-shaped mask: nothing to apply
                out = np.where(flags != 0, out, space.zero())
        return out

    def reverse_action(self, action: NDArray[Any]) -> NDArray[Any]:
        """An env action mapped back to ``[min_action, max_action]`` (no masking)."""
        scaled = (np.asarray(action, dtype=np.float64) - self._offset) / self._scale
        return np.clip(scaled.astype(self._dtype), self.min_action, self.max_action)


class StickyAction(Wrapper[ObsType, ActType, ObsType, ActType]):
    """With probability ``repeat_action_probability`` repeats the previous executed action.

    The draw uses the wrapper's own generator. ``reset(seed=s)`` reseeds it from ``s``
    (int: ``make_seed_sequence(s, 2)[1]``; Generator: a child spawned from its SeedSequence,
    without drawing from it); ``seed=None`` keeps it.
    """

    def __init__(self, env: Env[ObsType, ActType], repeat_action_probability: float) -> None:
        super().__init__(env)
        self.repeat_action_probability = check_real(
            repeat_action_probability,
            "repeat_action_probability",
            "StickyAction",
            low=0.0,
            high=1.0,
            high_open=True,
        )
        self._sticky_rng: np.random.Generator = np_random()[0]
        self._last_action: Any = None
        warn_if_autoreset_inside(self, env)

    def _on_reset(self, seed: SeedType) -> None:
        self._last_action = None
        if isinstance(seed, np.random.Generator):
            seq = seed.bit_generator.seed_seq
            if isinstance(seq, np.random.SeedSequence):
                bit_generator = type(seed.bit_generator)(seq.spawn(1)[0])
                self._sticky_rng = np.random.Generator(bit_generator)
            else:
                self._sticky_rng = np_random(int(seed.integers(2**63)))[0]
        elif seed is not None:
            self._sticky_rng = np_random(make_seed_sequence(seed, 2)[1])[0]

    def _executed(self, action: ActType) -> ActType:
        if (
            self._last_action is not None
            and self._sticky_rng.random() < self.repeat_action_probability
        ):
            action = self._last_action
        self._last_action = copy.deepcopy(action)
        return action

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Reset the inner env, forget the previous action and reseed (see class docstring)."""
        result = self.env.reset(seed=seed, options=options)
        self._on_reset(seed)
        return result

    def step(self, action: ActType) -> StepResult[ObsType]:
        """Step with ``action`` or, with the set probability, the previous action."""
        return self.env.step(self._executed(action))

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Async ``reset``."""
        result = await self.env.async_reset(seed=seed, options=options)
        self._on_reset(seed)
        return result

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        """Async ``step``."""
        return await self.env.async_step(self._executed(action))


class ActionRepeat(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Steps each action ``repeat`` times, stopping early when the episode ends.

    Returns the last step's observation and flags, the summed reward (a float) and
    ``{**last_info, "action_repeats": n}``.
    """

    def __init__(self, env: Env[ObsType, ActType], repeat: int) -> None:
        super().__init__(env)
        self.repeat = check_int(repeat, "repeat", "ActionRepeat", 1)

    @staticmethod
    def _result(last: StepResult[ObsType], total: float, n: int) -> StepResult[ObsType]:
        return StepResult(
            last.observation,
            total,
            last.terminated,
            last.truncated,
            {**last.info, "action_repeats": n},
        )

    def step(self, action: ActType) -> StepResult[ObsType]:
        """Step ``action`` up to ``repeat`` times."""
        total, n = 0.0, 0
        while True:
            result = self.env.step(action)
            total += float(result.reward)
            n += 1
            if result.done or n == self.repeat:
                return self._result(result, total, n)

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        """Async ``step``."""
        total, n = 0.0, 0
        while True:
            result = await self.env.async_step(action)
            total += float(result.reward)
            n += 1
            if result.done or n == self.repeat:
                return self._result(result, total, n)


class DelayAction(Wrapper[ObsType, ActType, ObsType, ActType]):
    """The env receives each action ``delay`` steps after it is chosen; ``noop`` until then.

    ``noop`` defaults to ``action_space.zero()`` for a Box and is required otherwise.
    """

    def __init__(self, env: Env[ObsType, ActType], delay: int, *, noop: Any = None) -> None:
        super().__init__(env)
        self.delay = check_int(delay, "delay", "DelayAction", 0)
        space: Space[Any] = env.action_space
        if noop is None:
            if not isinstance(space, Box):
                raise ValueError(
                    f"DelayAction needs a noop action for the action space {space!r} "
                    "(only a Box has a default, its zero())."
                )
            noop = space.zero()
        elif not space.contains(noop):
            raise ValueError(f"DelayAction: noop {noop!r} is not in the action space {space!r}.")
        self.noop = noop
        self._queue: deque[Any] = deque()
        warn_if_autoreset_inside(self, env)

    @property
    def pending_actions(self) -> list[Any]:
        """Chosen actions not yet sent to the env, oldest first."""
        return list(self._queue)

    def _executed(self, action: ActType) -> Any:
        if self.delay == 0:
            return action
        queue = self._queue
        queue.append(copy.deepcopy(action))
        return queue.popleft() if len(queue) > self.delay else self.noop

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Reset the inner env and drop the pending actions."""
        self._queue.clear()
        return self.env.reset(seed=seed, options=options)

    def step(self, action: ActType) -> StepResult[ObsType]:
        """Queue ``action`` and send the one chosen ``delay`` steps ago (or ``noop``)."""
        return self.env.step(self._executed(action))

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Async ``reset``."""
        self._queue.clear()
        return await self.env.async_reset(seed=seed, options=options)

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        """Async ``step``."""
        return await self.env.async_step(self._executed(action))

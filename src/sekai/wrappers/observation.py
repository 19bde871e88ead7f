"""Observation wrappers: flattening, stacking, rescaling, filtering, time, delay, masks, padding."""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import DTypeLike, NDArray

from sekai._types import ActType, ObsType
from sekai.core.env import Env
from sekai.core.result import ResetResult, StepResult
from sekai.core.wrapper import ObservationWrapper, Wrapper
from sekai.spaces import Box, Dict, MaskedBox, MultiBinary, Space, Tuple
from sekai.spaces import Sequence as SequenceSpace
from sekai.spaces.box import float_dtype
from sekai.spaces.masking import (
    action_mask_space,
    flatten_action_mask,
    get_action_mask,
    supports_action_mask,
)
from sekai.spaces.utils import batch_space, concatenate, flatten, flatten_space, zero_sample
from sekai.utils.validation import check_array
from sekai.wrappers._args import check_int, func_or_fn
from sekai.wrappers._ordering import warn_if_autoreset_inside
from sekai.wrappers.common import TimeLimit

__all__ = [
    "ActionMaskObservation",
    "DelayObservation",
    "DtypeObservation",
    "FilterObservation",
    "FlattenObservation",
    "FrameStackObservation",
    "PadSequenceObservation",
    "RescaleObservation",
    "TimeAwareObservation",
    "TransformObservation",
]


def _box_observation_space(env: Env[Any, Any], owner: str) -> Box:
    space = env.observation_space
    if not isinstance(space, Box):
        raise TypeError(f"{owner} needs a Box observation space, got {space!r}.")
    return space


def _choice(value: Any, allowed: tuple[str, ...], name: str, owner: str) -> Any:
    if value not in allowed:
        raise ValueError(f"{owner}: {name} must be one of {list(allowed)}, got {value!r}.")
    return value


class FlattenObservation(ObservationWrapper[NDArray[np.float32], ActType, ObsType]):
    """Flattens observations to 1-D float32 arrays (``flatten`` / ``flatten_space``)."""

    def __init__(self, env: Env[ObsType, ActType]) -> None:
        super().__init__(env)
        space = env.observation_space
        if not space.is_flattenable:
            raise NotImplementedError(f"FlattenObservation cannot flatten {space!r}.")
        self.observation_space = flatten_space(space)
        self._space = space
        self._flatten = flatten.dispatch(type(space))

    def observation(self, observation: ObsType) -> NDArray[np.float32]:
        """``flatten(inner_space, observation)``."""
        return self._flatten(self._space, observation)


class FrameStackObservation(ObservationWrapper[Any, ActType, ObsType]):
    """Stacks the last ``num_stack`` observations, oldest first (``batch_space`` layout).

    After a reset the missing frames are ``padding``: copies of the first observation
    (``"reset"``) or ``zero_sample`` of the space (``"zeros"``).
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        num_stack: int,
        *,
        padding: Literal["reset", "zeros"] = "reset",
    ) -> None:
        super().__init__(env)
        self.num_stack = check_int(num_stack, "num_stack", "FrameStackObservation", 1)
        self.padding = _choice(padding, ("reset", "zeros"), "padding", "FrameStackObservation")
        space = env.observation_space
        try:
            self.observation_space = batch_space(space, self.num_stack)
        except NotImplementedError as exc:
            raise TypeError(f"FrameStackObservation cannot stack {space!r}: {exc}") from None
        self._space = space
        self._frames: deque[Any] = deque(maxlen=self.num_stack)
        warn_if_autoreset_inside(self, env)

    def observation(self, observation: ObsType) -> Any:
        """The stacked frames, ``observation`` being the newest."""
        self._frames.append(observation)
        return concatenate(self._space, self._frames)

    def _wrap_reset(self, result: ResetResult[Any]) -> ResetResult[Any]:
        pad = result.observation if self.padding == "reset" else zero_sample(self._space)
        self._frames.clear()
        self._frames.extend([pad] * (self.num_stack - 1))
        return super()._wrap_reset(result)


class TransformObservation(ObservationWrapper[Any, ActType, ObsType]):
    """Applies ``func`` to every observation; ``new_observation_space`` replaces the space.

    ``fn=`` is a deprecated alias of ``func``.
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        func: Callable[[ObsType], Any] | None = None,
        new_observation_space: Space[Any] | None = None,
        *,
        fn: Callable[[ObsType], Any] | None = None,
    ) -> None:
        super().__init__(env)
        self.func = func_or_fn(func, fn, "TransformObservation")
        if new_observation_space is not None:
            self.observation_space = new_observation_space

    def observation(self, observation: ObsType) -> Any:
        """``func(observation)``."""
        return self.func(observation)


class RescaleObservation(ObservationWrapper[NDArray[Any], ActType, NDArray[Any]]):
    """Maps a bounded Box observation linearly onto ``[min_obs, max_obs]``.

    Computed in float64, clipped to the target range and cast to the inner dtype if it is
    floating, else float32. A component with ``low == high`` always maps to ``min_obs``.
    """

    def __init__(self, env: Env[NDArray[Any], ActType], min_obs: Any, max_obs: Any) -> None:
        super().__init__(env)
        space = _box_observation_space(env, "RescaleObservation")
        if not all(space.is_bounded):
            raise ValueError(f"RescaleObservation needs finite observation bounds, got {space!r}.")
        self._dtype = dtype = float_dtype(space.dtype)
        shape = space.shape
        lo = np.broadcast_to(check_array(min_obs, "RescaleObservation: min_obs"), shape)
        hi = np.broadcast_to(check_array(max_obs, "RescaleObservation: max_obs"), shape)
        lo, hi = lo.astype(np.float64), hi.astype(np.float64)
        if not (np.isfinite(lo).all() and np.isfinite(hi).all()) or np.any(lo >= hi):
            raise ValueError(
                "RescaleObservation needs finite min_obs < max_obs in every component, got "
                f"min_obs={lo.tolist()}, max_obs={hi.tolist()}."
            )
        self.min_obs, self.max_obs = lo.copy(), hi.copy()
        self.observation_space = Box(lo, hi, shape, dtype)
        low, high = space.low.astype(np.float64), space.high.astype(np.float64)
        width = high - low
        self._scale = np.divide(hi - lo, width, out=np.zeros(shape), where=width > 0)
        self._offset = lo - low * self._scale

    def observation(self, observation: NDArray[Any]) -> NDArray[Any]:
        """The rescaled observation."""
        out = np.asarray(observation, dtype=np.float64) * self._scale + self._offset
        return np.clip(out, self.min_obs, self.max_obs).astype(self._dtype)


class DtypeObservation(ObservationWrapper[NDArray[Any], ActType, NDArray[Any]]):
    """Casts Box observations to ``dtype``; the space becomes ``Box(low, high, dtype)``."""

    def __init__(self, env: Env[NDArray[Any], ActType], dtype: DTypeLike) -> None:
        super().__init__(env)
        space = _box_observation_space(env, "DtypeObservation")
        self.dtype = np.dtype(dtype)
        self.observation_space = Box(space.low, space.high, space.shape, self.dtype)

    def observation(self, observation: NDArray[Any]) -> NDArray[Any]:
        """``observation`` cast to ``dtype``."""
        return np.asarray(observation, dtype=self.dtype)


class FilterObservation(ObservationWrapper[dict[Any, Any], ActType, dict[Any, Any]]):
    """Keeps only ``keys`` of a Dict observation, in the given order."""

    def __init__(self, env: Env[dict[Any, Any], ActType], keys: Sequence[str]) -> None:
        super().__init__(env)
        space = env.observation_space
        if not isinstance(space, Dict):
            raise TypeError(f"FilterObservation needs a Dict observation space, got {space!r}.")
        if isinstance(keys, str):
            raise TypeError(f"FilterObservation: keys must be a sequence of keys, got {keys!r}.")
        self.keys = tuple(keys)
        if not self.keys:
            raise ValueError("FilterObservation: keys must not be empty.")
        if len(set(self.keys)) != len(self.keys):
            raise ValueError(f"FilterObservation: keys must be distinct, got {list(self.keys)}.")
        missing = [key for key in self.keys if key not in space.spaces]
        if missing:
            raise KeyError(
                f"FilterObservation: keys {missing} are not in the observation space "
                f"(its keys: {list(space.spaces)})."
            )
        self.observation_space = Dict({key: space[key] for key in self.keys})

    def observation(self, observation: dict[Any, Any]) -> dict[Any, Any]:
        """The observation restricted to ``keys``."""
        return {key: observation[key] for key in self.keys}


def _episode_limit(env: Env[Any, Any]) -> int | None:
    """The nearest inner ``TimeLimit``'s limit, else the spec's ``max_episode_steps``."""
    if isinstance(env, Wrapper):
        for layer in env:
            if isinstance(layer, TimeLimit):
                return layer.max_episode_steps
    spec = env.spec
    return None if spec is None else spec.max_episode_steps


class TimeAwareObservation(ObservationWrapper[Any, ActType, Any]):
    """Adds the time in the episode to the observation.

    The feature is ``min(t / max_episode_steps, 1.0)`` (``normalize_time``) or ``float(t)``.
    The limit comes from the argument, else the nearest inner ``TimeLimit``, else
    ``env.spec.max_episode_steps``. A 1-D Box gains one element; a Dict gains
    ``dict_key: Box(0, high, (1,), float32)``.
    """

    def __init__(
        self,
        env: Env[Any, ActType],
        max_episode_steps: int | None = None,
        *,
        normalize_time: bool = True,
        dict_key: str = "time",
    ) -> None:
        super().__init__(env)
        if max_episode_steps is None:
            max_episode_steps = _episode_limit(env)
        self.max_episode_steps = (
            None
            if max_episode_steps is None
            else check_int(max_episode_steps, "max_episode_steps", "TimeAwareObservation", 1)
        )
        self.normalize_time = bool(normalize_time)
        if self.normalize_time and self.max_episode_steps is None:
            raise ValueError(
                "TimeAwareObservation(normalize_time=True) needs an episode limit: pass "
                "max_episode_steps, wrap a TimeLimit, or use an env whose spec has one."
            )
        self.dict_key = dict_key
        high = 1.0 if self.normalize_time else np.inf
        space = env.observation_space
        if isinstance(space, Dict) and not isinstance(space, MaskedBox):
            if dict_key in space.spaces:
                raise KeyError(
                    f"TimeAwareObservation: the observation space already has a {dict_key!r} key."
                )
            self.observation_space = Dict(
                {**space.spaces, dict_key: Box(0.0, high, (1,), np.float32)}
            )
            self._is_dict = True
        elif isinstance(space, Box) and len(space.shape) == 1:
            self._dtype = dtype = float_dtype(space.dtype)
            self._size = space.shape[0] + 1
            self.observation_space = Box(
                np.append(space.low.astype(dtype), dtype.type(0.0)),
                np.append(space.high.astype(dtype), dtype.type(high)),
                dtype=dtype,
            )
            self._is_dict = False
        else:
            raise TypeError(
                f"TimeAwareObservation needs a 1-D Box or a Dict observation space, got {space!r}."
            )
        self._t = 0
        warn_if_autoreset_inside(self, env)

    def _time(self) -> float:
        limit = self.max_episode_steps
        if self.normalize_time and limit is not None:
            return min(self._t / limit, 1.0)
        return float(self._t)

    def observation(self, observation: Any) -> Any:
        """``observation`` with the current time feature added."""
        if self._is_dict:
            return {**observation, self.dict_key: np.array([self._time()], dtype=np.float32)}
        out = np.empty(self._size, self._dtype)
        out[:-1] = observation
        out[-1] = self._time()
        return out

    def _wrap_reset(self, result: ResetResult[Any]) -> ResetResult[Any]:
        self._t = 0
        return super()._wrap_reset(result)

    def _wrap_step(self, result: StepResult[Any]) -> StepResult[Any]:
        self._t += 1
        return super()._wrap_step(result)


class DelayObservation(ObservationWrapper[ObsType, ActType, ObsType]):
    """Returns the observation from ``delay`` steps earlier (the reset one included).

    Until enough have arrived it returns the padding: ``zero_sample(space)`` (``"zeros"``) or
    the episode's first observation (``"reset"``).
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        delay: int,
        *,
        padding: Literal["zeros", "reset"] = "zeros",
    ) -> None:
        super().__init__(env)
        self.delay = check_int(delay, "delay", "DelayObservation", 0)
        self.padding = _choice(padding, ("zeros", "reset"), "padding", "DelayObservation")
        self._queue: deque[ObsType] = deque(maxlen=self.delay + 1)
        self._first: Any = None
        warn_if_autoreset_inside(self, env)

    def observation(self, observation: ObsType) -> ObsType:
        """The observation ``delay`` steps older than ``observation``, or the padding."""
        queue = self._queue
        queue.append(observation)
        if len(queue) > self.delay:
            return queue[0]
        if self.padding == "zeros":
            return zero_sample(self.env.observation_space)
        return copy.deepcopy(self._first)

    def _wrap_reset(self, result: ResetResult[Any]) -> ResetResult[ObsType]:
        self._queue.clear()
        self._first = copy.deepcopy(result.observation)
        return super()._wrap_reset(result)


class ActionMaskObservation(ObservationWrapper[dict[Any, Any], ActType, ObsType]):
    """Adds the env's action mask, flattened to int8 flags, to every observation.

    A Dict observation gains the entry ``key``; anything else becomes
    ``{"observation": obs, key: mask}``. The mask space is ``action_mask_space(action_space)``;
    an env whose ``action_mask()`` returns None gets all ones.
    """

    def __init__(self, env: Env[ObsType, ActType], *, key: str = "action_mask") -> None:
        super().__init__(env)
        if not supports_action_mask(env):
            raise TypeError(
                f"ActionMaskObservation needs an env with action_mask(); {env} has none."
            )
        self.key = key
        self._mask_space: MultiBinary = action_mask_space(env.action_space)
        space = env.observation_space
        self._is_dict = isinstance(space, Dict) and not isinstance(space, MaskedBox)
        if isinstance(space, Dict) and self._is_dict:
            if key in space.spaces:
                raise KeyError(f"ActionMaskObservation: the observation space already has {key!r}.")
            self.observation_space = Dict({**space.spaces, key: self._mask_space})
        else:
            self.observation_space = Dict({"observation": space, key: self._mask_space})

    def _mask(self) -> NDArray[np.int8]:
        mask = get_action_mask(self.env)
        if mask is None:
            return np.ones(self._mask_space.shape, dtype=np.int8)
        return flatten_action_mask(self.env.action_space, mask).astype(np.int8)

    def observation(self, observation: ObsType) -> dict[Any, Any]:
        """``observation`` with the current mask added."""
        if self._is_dict:
            return {**observation, self.key: self._mask()}  # type: ignore[dict-item]
        return {"observation": observation, self.key: self._mask()}


_Converter = Callable[[Any], Any]


class PadSequenceObservation(ObservationWrapper[Any, ActType, Any]):
    """Turns every Sequence of Box elements in the observation into a fixed-size MaskedBox.

    ``max_size`` is ``max_length``, else the Sequence's own ``max_length``. Elements fill the
    first slots in order; a longer sequence keeps its last (``truncate="tail"``) or first
    (``"head"``) elements, or raises ``ValueError`` (``"error"``).
    """

    def __init__(
        self,
        env: Env[Any, ActType],
        max_length: int | None = None,
        *,
        truncate: Literal["tail", "head", "error"] = "tail",
    ) -> None:
        super().__init__(env)
        self.truncate = _choice(
            truncate, ("tail", "head", "error"), "truncate", "PadSequenceObservation"
        )
        self.max_length = (
            None
            if max_length is None
            else check_int(max_length, "max_length", "PadSequenceObservation", 1)
        )
        space, convert = self._build(env.observation_space)
        if convert is None:
            raise TypeError(
                f"PadSequenceObservation found no Sequence in the observation space {space!r}."
            )
        self.observation_space = space
        self._convert = convert

    def _build(self, space: Space[Any]) -> tuple[Space[Any], _Converter | None]:
        """The padded space and a converter for its samples (None: no Sequence inside)."""
        if isinstance(space, SequenceSpace):
            return self._pad(space)
        if isinstance(space, Dict) and not isinstance(space, MaskedBox):
            parts = {key: self._build(sub) for key, sub in space.spaces.items()}
            if all(convert is None for _, convert in parts.values()):
                return space, None
            converters = {key: convert for key, (_, convert) in parts.items()}

            def convert_dict(x: Any) -> dict[Any, Any]:
                return {
                    key: x[key] if convert is None else convert(x[key])
                    for key, convert in converters.items()
                }

            return Dict({key: sub for key, (sub, _) in parts.items()}), convert_dict
        if isinstance(space, Tuple):
            items = [self._build(sub) for sub in space.spaces]
            if all(convert is None for _, convert in items):
                return space, None

            def convert_tuple(x: Any) -> tuple[Any, ...]:
                return tuple(
                    value if convert is None else convert(value)
                    for (_, convert), value in zip(items, x, strict=True)
                )

            return Tuple([sub for sub, _ in items]), convert_tuple
        return space, None

    def _pad(self, seq: SequenceSpace) -> tuple[MaskedBox, _Converter]:
        feature = seq.feature_space
        if not isinstance(feature, Box):
            raise TypeError(f"PadSequenceObservation pads Sequences of Box elements, got {seq!r}.")
        size = self.max_length if self.max_length is not None else seq.max_length
        if size is None:
            raise ValueError(
                f"PadSequenceObservation needs max_length for {seq!r}, which has no max_length."
            )
        padded = MaskedBox(
            feature.low, feature.high, feature.shape, max_size=size, dtype=feature.dtype
        )
        truncate = self.truncate

        def convert(x: Any) -> dict[str, NDArray[Any]]:
            items = seq.elements(x)
            if len(items) > size:
                if truncate == "error":
                    raise ValueError(
                        f"PadSequenceObservation: a sequence of {len(items)} elements does not "
                        f"fit max_length {size} (truncate='error')."
                    )
                items = items[-size:] if truncate == "tail" else items[:size]
            return padded.pack(np.asarray(items, dtype=padded.value_dtype))

        return padded, convert

    def observation(self, observation: Any) -> Any:
        """``observation`` with each sequence packed into its MaskedBox."""
        return self._convert(observation)

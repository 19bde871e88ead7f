"""For ``to_sb3``: observations in the forms Stable-Baselines3's policies take, and episodes in
SB3's ``info["episode"]`` format (``EpisodeReporter``).

SB3's policies take a Box of at least one dimension, a Discrete starting at 0, a 1-D
MultiDiscrete starting at 0, a MultiBinary, or a flat Dict of those with str keys
(``MultiInputPolicy``). ``observation_flattener(space)`` is None for such a space; for any other
it returns an ``ObservationFlattener``:

* a Dict (a MaskedBox included) becomes a flat Dict: nested Dicts and MaskedBoxes are opened
  and their parts keyed by path (``"trades/values"``: torch's ``ModuleDict`` rejects keys
  with "."); parts SB3 takes stay as they are, every other part becomes the float32 Box of
  ``flatten_space`` holding ``flatten`` of it;
* any other space (a Tuple, a 0-D Box, a Discrete with a non-zero start, ...) becomes the one
  float32 Box of ``flatten_space``.

A space with no flat form (a Sequence) raises ``ValueError``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.compat.gymnasium import space_to_gymnasium
from sekai.spaces import Box, Dict, Discrete, MultiBinary, MultiDiscrete, Space, Tuple
from sekai.spaces.utils import flatten, flatten_space, iterate
from sekai.stats.tracker import EpisodeStats

__all__ = [
    "KEY_SEPARATOR",
    "EpisodeReporter",
    "ObservationFlattener",
    "flatten_rows",
    "observation_flattener",
]

KEY_SEPARATOR = "/"
"""Joins the keys of a nested Dict part into its key in the flat Dict."""

_FLATTEN_BOX = flatten.dispatch(Box)
_FLATTEN_MULTI_BINARY = flatten.dispatch(MultiBinary)
_FLATTEN_DISCRETE = flatten.dispatch(Discrete)
_FLATTEN_MULTI_DISCRETE = flatten.dispatch(MultiDiscrete)
_FLATTEN_DICT = flatten.dispatch(Dict)
_FLATTEN_TUPLE = flatten.dispatch(Tuple)


def sb3_takes(space: Space[Any]) -> bool:
    """Whether SB3's policies take ``space`` as it is (alone or as a part of a flat Dict)."""
    if isinstance(space, Box):
        return len(space.shape) >= 1
    if isinstance(space, Discrete):
        return space.start == 0
    if isinstance(space, MultiDiscrete):
        return space.nvec.ndim == 1 and not space.start.any()
    return isinstance(space, MultiBinary)


def flatten_rows(space: Space[Any], batch: Any, n: int) -> NDArray[np.float32]:
    """The ``(n, flatdim(space))`` float32 array whose row ``i`` is ``flatten`` of sample ``i``.

    ``batch`` holds ``n`` samples stacked as ``concatenate`` does. Spaces with sekai's own
    ``flatten`` are done at once; a space registered with another ``flatten`` row by row.
    """
    impl = flatten.dispatch(type(space))
    if impl is _FLATTEN_BOX or impl is _FLATTEN_MULTI_BINARY:
        with np.errstate(over="ignore"):
            return np.asarray(batch, dtype=np.float32).reshape(n, -1)
    if impl is _FLATTEN_DISCRETE:
        assert isinstance(space, Discrete)
        out = np.zeros((n, space.n), dtype=np.float32)
        out[np.arange(n), np.asarray(batch, dtype=np.int64).reshape(n) - space.start] = 1.0
        return out
    if impl is _FLATTEN_MULTI_DISCRETE:
        assert isinstance(space, MultiDiscrete)
        nvec = space.nvec.reshape(-1)
        index = np.asarray(batch, dtype=np.int64).reshape(n, -1) - space.start.reshape(-1)
        starts = np.concatenate(([0], np.cumsum(nvec)[:-1])).astype(np.int64)
        out = np.zeros((n, int(nvec.sum())), dtype=np.float32)
        out[np.arange(n)[:, None], index + starts] = 1.0
        return out
    if impl is _FLATTEN_DICT or impl is _FLATTEN_TUPLE:
        assert isinstance(space, Dict | Tuple)
        if isinstance(space, Dict):
            pairs = [(sub, batch[key]) for key, sub in space.spaces.items()]
        else:
            pairs = list(zip(space.spaces, batch, strict=True))
        parts = [flatten_rows(sub, value, n) for sub, value in pairs]
        return np.concatenate(parts, axis=1) if parts else np.zeros((n, 0), dtype=np.float32)
    return np.stack([flatten(space, row) for row in iterate(space, batch)]).reshape(n, -1)


@dataclass(frozen=True, slots=True)
class _Part:
    """One entry of the flat Dict: ``path`` leads to it in the original observation."""

    key: str
    path: tuple[Any, ...]
    space: Space[Any]
    flat: bool


def _check_flattenable(space: Space[Any], where: str) -> None:
    if not space.is_flattenable:
        raise ValueError(
            f"to_sb3 cannot flatten the observation {where}{space!r}: it has no fixed-size "
            "flat form. Pass flatten_observations=False to keep the observations as they are."
        )


def _dict_parts(space: Dict, path: tuple[Any, ...]) -> list[_Part]:
    """The parts of ``space`` (at ``path``), nested Dicts opened."""
    parts: list[_Part] = []
    for key, sub in space.spaces.items():
        here = (*path, key)
        if isinstance(sub, Dict):
            parts.extend(_dict_parts(sub, here))
            continue
        name = KEY_SEPARATOR.join(str(k) for k in here)
        takes = sb3_takes(sub)
        if not takes:
            _check_flattenable(sub, f"part {name!r}: ")
        parts.append(_Part(name, here, sub, not takes))
    return parts


class ObservationFlattener:
    """Maps observations of ``space`` to what SB3's policies take (see the module docstring).

    ``output_space`` is the sekai space of the results, ``gymnasium_space`` its gymnasium
    equivalent. ``batch`` converts a batch of ``num_envs`` observations, ``one`` a single one;
    parts kept as they are are the very arrays given.
    """

    def __init__(self, space: Space[Any]) -> None:
        self.space = space
        self._parts: list[_Part] | None = None
        if isinstance(space, Dict):
            parts = _dict_parts(space, ())
            keys = [part.key for part in parts]
            for key in keys:
                if "." in key:
                    raise ValueError(
                        f"to_sb3 cannot flatten {space!r}: the key {key!r} of a part holds '.', "
                        "which torch's ModuleDict (SB3's MultiInputPolicy) rejects."
                    )
                if keys.count(key) > 1:
                    raise ValueError(
                        f"to_sb3 cannot flatten {space!r}: two of its parts are keyed {key!r}."
                    )
            self._parts = parts
            self.output_space: Space[Any] = Dict(
                {p.key: flatten_space(p.space) if p.flat else p.space for p in parts}
            )
        else:
            _check_flattenable(space, "")
            self.output_space = flatten_space(space)
        self.gymnasium_space = space_to_gymnasium(self.output_space)

    def batch(self, observations: Any, num_envs: int) -> Any:
        """The SB3 form of a batch of ``num_envs`` observations."""
        if self._parts is None:
            return flatten_rows(self.space, observations, num_envs)
        return self._convert(observations, lambda part, x: flatten_rows(part.space, x, num_envs))

    def one(self, observation: Any) -> Any:
        """The SB3 form of one observation (``flatten`` of each part that is flattened)."""
        if self._parts is None:
            return flatten(self.space, observation)
        return self._convert(observation, lambda part, x: flatten(part.space, x))

    def _convert(self, observation: Any, flat: Callable[[_Part, Any], Any]) -> dict[str, Any]:
        assert self._parts is not None
        out: dict[str, Any] = {}
        for part in self._parts:
            value = observation
            for key in part.path:
                value = value[key]
            out[part.key] = flat(part, value) if part.flat else value
        return out

    def __repr__(self) -> str:
        return f"ObservationFlattener({self.space!r} -> {self.output_space!r})"


def observation_flattener(space: Space[Any]) -> ObservationFlattener | None:
    """None if SB3's policies take ``space`` as it is, else its ``ObservationFlattener``."""
    if sb3_takes(space):
        return None
    if isinstance(space, Dict) and all(
        isinstance(key, str) and sb3_takes(sub) for key, sub in space.spaces.items()
    ):
        return None
    return ObservationFlattener(space)


class EpisodeReporter:
    """Counts every sub-env's return and length and writes SB3's ``info["episode"]``.

    ``t_start`` (``time.monotonic()``) is when it was made; "t" is the seconds since then,
    rounded to 6 digits as SB3's ``Monitor`` does.
    """

    def __init__(self, num_envs: int) -> None:
        self.returns = np.zeros(num_envs, dtype=np.float64)
        self.lengths = np.zeros(num_envs, dtype=np.int64)
        self.t_start = time.monotonic()

    def restart(self) -> None:
        """Start every sub-env's count at 0 (on reset)."""
        self.returns[:] = 0.0
        self.lengths[:] = 0

    def add(self, rewards: NDArray[np.float64]) -> None:
        """Count one step of every sub-env."""
        self.returns += rewards
        self.lengths += 1

    def report(self, info: dict[str, Any], i: int) -> None:
        """Set ``info["episode"]`` for sub-env ``i``'s episode, which ended now.

        An ``EpisodeStats`` already there gives the figures and moves to
        ``info["episode_stats"]``; any other value is kept; else the counts are used.
        """
        episode = info.get("episode")
        if isinstance(episode, EpisodeStats):
            info["episode_stats"] = episode
            info["episode"] = {
                "r": float(episode.episode_return),
                "l": int(episode.episode_length),
                "t": round(episode.end_time - self.t_start, 6),
            }
        elif episode is None:
            info["episode"] = {
                "r": float(self.returns[i]),
                "l": int(self.lengths[i]),
                "t": round(time.monotonic() - self.t_start, 6),
            }

    def ended(self, indices: NDArray[np.intp]) -> None:
        """Start the counts of the sub-envs at ``indices`` at 0 (their episodes ended)."""
        self.returns[indices] = 0.0
        self.lengths[indices] = 0

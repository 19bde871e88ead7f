"""Episode samplers: where in a history each episode starts."""

from __future__ import annotations

import copy
import numbers
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from sekai.finance.data.timeaxis import row_of
from sekai.utils.validation import check_int

__all__ = [
    "EpisodeSampler",
    "FixedStart",
    "RandomStart",
    "SequentialStart",
    "as_sampler",
    "first_start",
    "resolve_start",
    "sample_start",
]


class EpisodeSampler(ABC):
    """Chooses the window start of each episode among ``n_starts`` candidates."""

    @abstractmethod
    def sample(self, rng: np.random.Generator, n_starts: int, episode_length: int) -> int:
        """A window start in ``[0, n_starts)``."""

    def reset(self) -> None:  # noqa: B027 - stateless samplers need nothing
        """Forget any progress (no-op for stateless samplers)."""

    def spawn(self) -> EpisodeSampler:
        """The sampler a new sub-env should use: ``self``, shared, unless overridden."""
        return self

    def __copy_for_sub_env__(self) -> EpisodeSampler:
        """``spawn()``: how ``make_vec`` gives each sub-env its sampler (``PerSubEnv``)."""
        return self.spawn()


class RandomStart(EpisodeSampler):
    """Uniformly random window starts."""

    def sample(self, rng: np.random.Generator, n_starts: int, episode_length: int) -> int:
        """``rng.integers(0, n_starts)``."""
        if n_starts < 1:
            raise ValueError(f"n_starts must be >= 1, got {n_starts}.")
        return int(rng.integers(0, n_starts))

    def __repr__(self) -> str:
        return "RandomStart()"


class SequentialStart(EpisodeSampler):
    """Consecutive windows from ``start``, ``stride`` apart (default: the episode length).

    Wraps back to ``start`` and increments ``epoch`` once the next start would not fit.
    """

    def __init__(self, start: int = 0, stride: int | None = None) -> None:
        self.start = check_int(start, "start", low=0)
        self.stride = None if stride is None else check_int(stride, "stride", low=1)
        self._position = self.start
        self.epoch = 0

    def sample(self, rng: np.random.Generator, n_starts: int, episode_length: int) -> int:
        """The current position; then advance it."""
        if self.start >= n_starts:
            raise ValueError(
                f"SequentialStart start={self.start} is beyond the last window start "
                f"{n_starts - 1} ({n_starts} windows)."
            )
        if self._position >= n_starts:
            self._position = self.start
        current = self._position
        self._position += self.stride or episode_length
        if self._position >= n_starts:
            self._position = self.start
            self.epoch += 1
        return current

    def reset(self) -> None:
        """Back to ``start``, epoch 0."""
        self._position = self.start
        self.epoch = 0

    def spawn(self) -> SequentialStart:
        """A fresh, reset copy."""
        child = copy.copy(self)
        child.reset()
        return child

    def __repr__(self) -> str:
        return f"SequentialStart(start={self.start}, stride={self.stride})"


class FixedStart(EpisodeSampler):
    """Always the same window start."""

    def __init__(self, start: int) -> None:
        self.start = check_int(start, "start", low=0)

    def sample(self, rng: np.random.Generator, n_starts: int, episode_length: int) -> int:
        """``start`` (``ValueError`` if it is ``>= n_starts``)."""
        if self.start >= n_starts:
            raise ValueError(
                f"FixedStart({self.start}) is beyond the last window start {n_starts - 1} "
                f"({n_starts} windows)."
            )
        return self.start

    def __repr__(self) -> str:
        return f"FixedStart({self.start})"


def as_sampler(value: Any) -> EpisodeSampler:
    """A sampler from a sampler, an int (``FixedStart``), ``"random"`` or ``"sequential"``.

    A real number follows ``check_int`` (``3.0`` is the start 3, ``2.5`` a ``TypeError``).
    Another string or a complex number raises ``ValueError``; anything else ``TypeError``.
    """
    if isinstance(value, EpisodeSampler):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        return FixedStart(check_int(value, "sampler"))
    if isinstance(value, str) and value in ("random", "sequential"):
        return RandomStart() if value == "random" else SequentialStart()
    message = (
        f"sampler must be 'random', 'sequential', an int start or an EpisodeSampler, got {value!r}."
    )
    if isinstance(value, (str, numbers.Number)) and not isinstance(value, (bool, np.bool_)):
        raise ValueError(message)
    raise TypeError(message)


def first_start(lookback: int, warmup: int) -> int:
    """First window start whose decisions avoid the warm-up rows: ``max(0, warmup - lookback)``."""
    return max(0, warmup - lookback)


def sample_start(
    sampler: EpisodeSampler,
    rng: np.random.Generator,
    *,
    n_starts: int,
    episode_length: int,
    lookback: int,
    warmup: int = 0,
) -> int:
    """A window start chosen by ``sampler`` among those that decide after the warm-up."""
    first = first_start(lookback, warmup)
    available = n_starts - first
    if available < 1:
        raise ValueError(
            f"no episode window fits after the warm-up: {n_starts} window starts, of which "
            f"the first {first} would decide on warm-up rows (warmup={warmup}, "
            f"lookback={lookback})."
        )
    try:
        start = sampler.sample(rng, available, episode_length)
    except ValueError as exc:
        raise ValueError(
            f"{sampler!r} failed: {exc} Sampler positions count from the first window start "
            f"after the warm-up (row {first}); {available} window starts are available."
        ) from exc
    if not 0 <= start < available:
        raise ValueError(
            f"{sampler!r} returned {start!r}, outside [0, {available}) available window starts."
        )
    return first + start


def resolve_start(
    option: Any,
    *,
    timestamps: Any,
    lookback: int,
    n_starts: int,
    warmup: int = 0,
) -> int:
    """Window start whose first decision row is named by ``option`` (row or timestamp)."""
    stamps = np.asarray(timestamps)
    row = row_of(stamps, option, what="start")
    if isinstance(option, (int, np.integer)) and row < 0:
        row += len(stamps)
    low, high = max(lookback, warmup), lookback + n_starts - 1
    if not low <= row <= high:
        message = (
            f"start {option!r} names decision row {row}; valid first decision rows are "
            f"[{low}, {high}] (lookback={lookback}, warmup={warmup}, {n_starts} windows)."
        )
        if (
            isinstance(option, (int, np.integer))
            and stamps.dtype.kind in "iuf"
            and bool((stamps == option).any())
        ):
            message += f" An int is a row position; use Time({option!r}) for the timestamp."
        raise ValueError(message)
    return row - lookback

"""What a dashboard records of an env during an episode, and the ``View`` panels draw from."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.rendering.sources import ColorSpec, finite_number, resolve_color
from sekai.rendering.theme import Color, Theme

__all__ = ["View"]

_Floats = NDArray[np.float64]


class _History:
    """The samples recorded for one env during one episode (``episode``: the env's count of
    it, when the env keeps one; ``began``: the step of the first sample, which ``trim``
    keeps)."""

    __slots__ = ("began", "context", "episode", "first", "steps", "values")

    def __init__(self, episode: Any = None) -> None:
        self.steps: list[Any] = []
        self.values: dict[str, list[Any]] = {}
        self.context: dict[str, Any] = {}
        self.episode = episode
        self.began: Any = None
        # First finite value of each key among the samples that trim() dropped.
        self.first: dict[str, float] = {}

    def record(self, step: Any, samples: Mapping[str, Any], replace: bool) -> None:
        """Append a sample (every key; missing ones NaN), or overwrite the last when
        ``replace`` and there is one. A new key is back-filled with NaN."""
        if self.began is None:
            self.began = step
        if replace and self.steps:
            self.steps[-1] = step
            for column in self.values.values():
                column[-1] = math.nan
        else:
            self.steps.append(step)
            for column in self.values.values():
                column.append(math.nan)
        n = len(self.steps)
        for key, value in samples.items():
            self.values.setdefault(key, [math.nan] * n)[-1] = value

    def trim(self, keep: int) -> None:
        """Keep only the last ``keep`` samples."""
        if keep < 0:
            raise ValueError(f"keep must be >= 0, got {keep}.")
        drop = max(len(self.steps) - keep, 0)
        if drop == 0:
            return
        del self.steps[:drop]
        for key, column in self.values.items():
            if key not in self.first:
                found = next((v for v in map(finite_number, column[:drop]) if v is not None), None)
                if found is not None:
                    self.first[key] = found
            del column[:drop]

    def first_finite(self, key: str) -> float:
        """The first finite number recorded under ``key`` this episode (NaN if none)."""
        if key in self.first:
            return self.first[key]
        found = (v for v in map(finite_number, self.values.get(key, ())) if v is not None)
        return next(found, math.nan)


class View:
    """What a panel sees while drawing: the env, its history under the panel's keys, the
    theme, the scale and the shared time axis."""

    def __init__(
        self,
        env: Any,
        history: _History,
        prefix: str,
        theme: Theme,
        scale: float,
        x_domain: tuple[float, float],
        show_x: bool,
        gutter: float,
    ) -> None:
        self.env = env
        self.theme = theme
        self.scale = float(scale)
        self.steps: _Floats = np.asarray(history.steps, dtype=np.float64)
        self.x_domain = x_domain
        self.show_x = show_x
        self.gutter = float(gutter)
        self._history = history
        self._prefix = prefix

    @property
    def step(self) -> float:
        """The latest recorded step (NaN before any)."""
        return float(self.steps[-1]) if self.steps.size else math.nan

    def raw(self, key: str) -> list[Any]:
        """Every recorded sample of ``key``, as read (NaN where it was not recorded)."""
        try:
            return self._history.values[self._prefix + key]
        except KeyError:
            raise KeyError(
                f"Nothing recorded under {key!r}; is it in the panel's sources()?"
            ) from None

    def latest(self, key: str) -> Any:
        """The latest sample of ``key``."""
        return self.raw(key)[-1]

    def values(self, key: str) -> _Floats:
        """The samples of ``key`` as floats: ``(n,)`` for numbers, ``(n, k)`` for vectors
        (shorter vectors, numbers and None padded with NaN)."""
        samples = self.raw(key)
        try:
            out = np.array([np.nan if v is None else v for v in samples], dtype=np.float64)
        except ValueError:  # ragged
            rows = [
                np.asarray(np.nan if v is None else v, dtype=np.float64).ravel() for v in samples
            ]
            out = np.full((len(rows), max(r.size for r in rows)), np.nan)
            for i, row in enumerate(rows):
                out[i, : row.size] = row
        return out.reshape(len(samples), -1) if out.ndim > 2 else out

    def first(self, key: str) -> float:
        """The first finite number of ``key`` this episode, even if the window dropped it."""
        return self._history.first_finite(self._prefix + key)

    def context(self, key: str) -> Any:
        """The value of the panel's context ``key``, read when the episode started."""
        try:
            return self._history.context[self._prefix + key]
        except KeyError:
            raise KeyError(f"No context {key!r}; is it in the panel's context()?") from None

    def color(self, spec: ColorSpec, slot: int = 0) -> Color:
        """``resolve_color`` with this view's theme."""
        return resolve_color(self.theme, spec, slot)

    def size(self, px: float) -> float:
        """``px`` pixels at this view's scale."""
        return px * self.scale

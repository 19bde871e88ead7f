"""Running mean and variance: equal-weight (``RunningMeanStd``) and exponentially weighted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["ExponentialMovingStats", "RunningMeanStd"]


def _shape(shape: Any, owner: str) -> tuple[int, ...]:
    try:
        return tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError(f"{owner}: shape must be a tuple of ints, got {shape!r}.") from None


def _moments(batch: ArrayLike, shape: tuple[int, ...], owner: str) -> tuple[Any, Any, int]:
    """``(mean, var, n)`` of ``batch`` along axis 0; ``n == 0`` for an empty batch."""
    x = np.asarray(batch, dtype=np.float64)
    if x.shape[1:] != shape or x.ndim == 0:
        raise ValueError(
            f"{owner}.update expects a batch of shape (n, *{shape}), got shape {x.shape}."
        )
    n = x.shape[0]
    if n == 0:
        return None, None, 0
    if n == 1:
        return x[0], 0.0, 1
    return x.mean(axis=0), x.var(axis=0), n


class RunningMeanStd:
    """Running mean and variance over batches, using the parallel-variance (Chan) update.

    Starts at mean 0, var 1 with a pseudo-count of ``epsilon``. The first batch sets the
    mean outright and the prior's unit variance keeps only its pseudo-count's weight, so data
    far from zero gets the right variance and one first sample does not give a zero variance.
    Empty batches are ignored.
    """

    def __init__(self, shape: tuple[int, ...] = (), epsilon: float = 1e-4) -> None:
        epsilon = float(epsilon)
        if not epsilon >= 0.0:
            raise ValueError(f"RunningMeanStd: epsilon must be >= 0, got {epsilon}.")
        self.shape = _shape(shape, "RunningMeanStd")
        self.epsilon = epsilon
        self.mean: NDArray[np.float64] = np.zeros(self.shape, dtype=np.float64)
        self.var: NDArray[np.float64] = np.ones(self.shape, dtype=np.float64)
        self.count = epsilon

    @property
    def std(self) -> NDArray[np.float64]:
        """The standard deviation, ``sqrt(var)``."""
        return np.sqrt(self.var)

    def update(self, batch: ArrayLike) -> None:
        """Add the samples of ``batch`` (along axis 0)."""
        mean, var, n = _moments(batch, self.shape, "RunningMeanStd")
        self.update_from_moments(mean, var, n)

    def update_from_moments(
        self, batch_mean: ArrayLike, batch_var: ArrayLike, batch_count: float
    ) -> None:
        """Add a batch given its mean, population variance and size (count <= 0: no-op)."""
        bcount = float(batch_count)
        if bcount <= 0.0:
            return
        count = self.count
        total = count + bcount
        bvar = np.asarray(batch_var, dtype=np.float64)
        if count <= self.epsilon:
            # Only the prior so far: its mean of 0 is dropped, its variance keeps its weight.
            var = (self.var * count + bvar * bcount) / total
            mean = np.asarray(batch_mean, dtype=np.float64)
        else:
            delta = np.asarray(batch_mean, dtype=np.float64) - self.mean
            var = (
                self.var * count + bvar * bcount + delta * delta * (count * bcount / total)
            ) / total
            mean = self.mean + delta * (bcount / total)
        self.var[...] = var
        self.mean[...] = mean
        self.count = total

    def _one_sample_rate(self) -> float | None:
        """Count one sample and return its weight ``r`` in ``mean += r * (x - mean)``.

        The variance then becomes ``(1 - r) * (var + r * (x - mean)**2)``. None (and nothing
        counted) while only the prior is held: use ``update_from_moments`` then.
        """
        count = self.count
        if count <= self.epsilon:
            return None
        self.count = total = count + 1.0
        return 1.0 / total

    def normalize(self, x: ArrayLike, epsilon: float = 1e-8) -> NDArray[np.float64]:
        """``(x - mean) / sqrt(var + epsilon)`` as float64."""
        return (np.asarray(x, dtype=np.float64) - self.mean) / np.sqrt(self.var + epsilon)

    def state_dict(self) -> dict[str, Any]:
        """``{"mean", "var", "count"}`` (copies)."""
        return {"mean": self.mean.copy(), "var": self.var.copy(), "count": float(self.count)}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore a ``state_dict()``."""
        self.mean = np.array(np.broadcast_to(state["mean"], self.shape), dtype=np.float64)
        self.var = np.array(np.broadcast_to(state["var"], self.shape), dtype=np.float64)
        self.count = float(state["count"])

    def __repr__(self) -> str:
        return f"RunningMeanStd(shape={self.shape}, count={self.count:.4g})"


class ExponentialMovingStats:
    """Exponentially weighted mean and variance, a drop-in for ``RunningMeanStd``.

    A sample's weight halves every ``halflife`` samples, so the statistics follow
    non-stationary data. Weights are bias-corrected like pandas' ``ewm(adjust=True)``; the
    variance is the weighted population variance (pandas' ``var(bias=True)``). A batch counts
    as ``len(batch)`` samples arriving together.
    """

    def __init__(self, shape: tuple[int, ...] = (), halflife: float = 1000.0) -> None:
        self.shape = _shape(shape, "ExponentialMovingStats")
        self.halflife = self._check_halflife(halflife)
        self.mean: NDArray[np.float64] = np.zeros(self.shape, dtype=np.float64)
        self.var: NDArray[np.float64] = np.ones(self.shape, dtype=np.float64)
        self.count = 0.0
        self.weight = 0.0

    @staticmethod
    def _check_halflife(halflife: float) -> float:
        value = float(halflife)
        if not value > 0.0:
            raise ValueError(f"ExponentialMovingStats: halflife must be > 0, got {halflife!r}.")
        return value

    @property
    def decay(self) -> float:
        """The per-sample weight factor ``0.5 ** (1 / halflife)``."""
        return 0.5 ** (1.0 / self.halflife)

    @property
    def std(self) -> NDArray[np.float64]:
        """The standard deviation, ``sqrt(var)``."""
        return np.sqrt(self.var)

    def update(self, batch: ArrayLike) -> None:
        """Add the samples of ``batch`` (along axis 0)."""
        mean, var, n = _moments(batch, self.shape, "ExponentialMovingStats")
        self.update_from_moments(mean, var, n)

    def update_from_moments(
        self, batch_mean: ArrayLike, batch_var: ArrayLike, batch_count: float
    ) -> None:
        """Add ``batch_count`` samples with this mean and population variance (<= 0: no-op)."""
        c = float(batch_count)
        if c <= 0.0:
            return
        weight = self.weight * self.decay**c + c
        mean = np.asarray(batch_mean, dtype=np.float64)
        var = np.asarray(batch_var, dtype=np.float64)
        if self.count != 0.0:
            w = c / weight
            delta = mean - self.mean
            mean = self.mean + w * delta
            var = (1.0 - w) * self.var + w * var + (w * (1.0 - w)) * (delta * delta)
        self.var[...] = var
        self.mean[...] = mean
        self.weight = weight
        self.count += c

    def _one_sample_rate(self) -> float | None:
        """Count one sample and return its weight ``r`` in ``mean += r * (x - mean)``.

        The variance then becomes ``(1 - r) * (var + r * (x - mean)**2)``. None (and nothing
        counted) before the first sample: use ``update_from_moments`` then.
        """
        if self.count == 0.0:
            return None
        self.weight = weight = self.weight * self.decay + 1.0
        self.count += 1.0
        return 1.0 / weight

    def normalize(self, x: ArrayLike, epsilon: float = 1e-8) -> NDArray[np.float64]:
        """``(x - mean) / sqrt(var + epsilon)`` as float64."""
        return (np.asarray(x, dtype=np.float64) - self.mean) / np.sqrt(self.var + epsilon)

    def state_dict(self) -> dict[str, Any]:
        """``{"mean", "var", "count", "halflife", "weight"}`` (copies)."""
        return {
            "mean": self.mean.copy(),
            "var": self.var.copy(),
            "count": float(self.count),
            "halflife": self.halflife,
            "weight": self.weight,
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore a ``state_dict()``; a missing ``halflife`` keeps the current one and a
        missing ``weight`` becomes ``count``."""
        halflife = self._check_halflife(state.get("halflife", self.halflife))
        mean = np.array(np.broadcast_to(state["mean"], self.shape), dtype=np.float64)
        var = np.array(np.broadcast_to(state["var"], self.shape), dtype=np.float64)
        self.halflife, self.mean, self.var = halflife, mean, var
        self.count = float(state["count"])
        self.weight = float(state.get("weight", self.count))

    def __repr__(self) -> str:
        return (
            f"ExponentialMovingStats(shape={self.shape}, halflife={self.halflife:g}, "
            f"count={self.count:.4g})"
        )

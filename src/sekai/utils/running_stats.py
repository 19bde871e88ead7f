"""Running mean and variance: equal-weight (``RunningMeanStd``) and exponentially weighted."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.utils.validation import check_int, check_real

__all__ = ["ExponentialMovingStats", "NonFinitePolicy", "RunningMeanStd"]

NonFinitePolicy = Literal["raise", "skip"]
"""What an update does with a sample holding NaN or inf: raise ``ValueError``, or skip it."""

_POLICIES = ("raise", "skip")


def check_nonfinite(value: Any, owner: str) -> NonFinitePolicy:
    """``value`` if it is ``"raise"`` or ``"skip"``; TypeError for a non-string, else ValueError."""
    if not isinstance(value, str):
        raise TypeError(
            f"{owner}: nonfinite must be 'raise' or 'skip', got {type(value).__name__}."
        )
    if value not in _POLICIES:
        raise ValueError(f"{owner}: nonfinite must be 'raise' or 'skip', got {value!r}.")
    return "raise" if value == "raise" else "skip"


def _nonfinite_error(owner: str, bad: int, total: int) -> ValueError:
    verb = "is" if bad == 1 else "are"
    return ValueError(
        f"{owner}: {bad} of the {total} values in this update {verb} not finite (NaN or inf); "
        "the statistics are unchanged. Pass nonfinite='skip' to leave such samples out instead."
    )


def _shape(shape: Any, owner: str) -> tuple[int, ...]:
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Iterable):
        raise TypeError(f"{owner}: shape must be a tuple of ints, got {shape!r}.")
    return tuple(check_int(d, f"{owner}: shape entry", low=0) for d in shape)


def _as_batch(batch: ArrayLike, shape: tuple[int, ...], owner: str) -> NDArray[np.float64]:
    """``batch`` as float64 of shape ``(n, *shape)``."""
    x = np.asarray(batch, dtype=np.float64)
    if x.shape[1:] != shape or x.ndim == 0:
        raise ValueError(
            f"{owner}.update expects a batch of shape (n, *{shape}), got shape {x.shape}."
        )
    return x


def _moments(x: NDArray[np.float64]) -> tuple[Any, Any, int]:
    """``(mean, var, n)`` of ``x`` along axis 0; ``n == 0`` for an empty batch."""
    n = x.shape[0]
    if n == 0:
        return None, None, 0
    if n == 1:
        return x[0], 0.0, 1
    return x.mean(axis=0), x.var(axis=0), n


class _MomentStats:
    """Mean and variance arrays that a single-sample fast path may hold as Python lists.

    ``_add_one(sample)`` (in each subclass) adds one flattened sample given as Python floats,
    with the same float operations as ``update_from_moments`` (so the same bits), and returns
    the live ``(mean, var)`` lists; None, with nothing added, while the next sample must go
    through ``update`` (the first sample, or one that is not finite). Meanwhile the arrays
    catch up when ``mean`` or ``var`` is next read or set: NumPy calls on tiny arrays cost
    more than a batch of one's arithmetic.

    ``nonfinite`` says what an update does with NaN or inf; ``_owner`` names the statistics
    in its error (a wrapper that builds them puts its own name there).
    """

    shape: tuple[int, ...]
    nonfinite: NonFinitePolicy = "raise"
    _owner: str = "statistics"
    _mean: NDArray[np.float64]
    _var: NDArray[np.float64]
    _lists: tuple[list[float], list[float]] | None = None

    @property
    def mean(self) -> NDArray[np.float64]:
        """The mean, of shape ``shape``."""
        if self._lists is not None:
            self._sync()
        return self._mean

    @mean.setter
    def mean(self, value: NDArray[np.float64]) -> None:
        self._sync()
        self._mean = value

    @property
    def var(self) -> NDArray[np.float64]:
        """The (population) variance, of shape ``shape``."""
        if self._lists is not None:
            self._sync()
        return self._var

    @var.setter
    def var(self, value: NDArray[np.float64]) -> None:
        self._sync()
        self._var = value

    @property
    def std(self) -> NDArray[np.float64]:
        """The standard deviation, ``sqrt(var)``."""
        return np.sqrt(self.var)

    def _sync(self) -> None:
        lists = self._lists
        if lists is not None:
            self._lists = None
            self._mean.flat[:] = lists[0]
            self._var.flat[:] = lists[1]

    def _live_lists(self) -> tuple[list[float], list[float]]:
        lists = self._lists
        if lists is None:
            lists = self._lists = (self._mean.ravel().tolist(), self._var.ravel().tolist())
        return lists

    def normalize(self, x: ArrayLike, epsilon: float = 1e-8) -> NDArray[np.float64]:
        """``(x - mean) / sqrt(var + epsilon)`` as float64."""
        return (np.asarray(x, dtype=np.float64) - self.mean) / np.sqrt(self.var + epsilon)

    def _finite_rows(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """``x`` (samples along axis 0) if all finite; else raise, or its all-finite rows."""
        finite = np.isfinite(x)
        if finite.all():
            return x
        if self.nonfinite == "raise":
            raise _nonfinite_error(self._owner, x.size - int(np.count_nonzero(finite)), x.size)
        return x[finite.reshape(len(x), -1).all(axis=1)]

    def _finite_moments(self, mean: NDArray[np.float64], var: Any) -> bool:
        """Whether a batch given by its moments may be added; raises for ``"raise"``."""
        if type(var) is float:  # a batch of one
            finite = np.isfinite(mean) & math.isfinite(var)
        else:
            finite = np.isfinite(mean) & np.isfinite(np.asarray(var, dtype=np.float64))
        if finite.all():
            return True
        if self.nonfinite == "raise":
            full = np.broadcast_to(finite, self.shape)
            raise _nonfinite_error(self._owner, full.size - int(np.count_nonzero(full)), full.size)
        return False

    def _add_moments(self, batch_mean: ArrayLike, batch_var: ArrayLike, bcount: float) -> None:
        """Add a batch by its moments, already checked (finite, ``bcount > 0``)."""
        raise NotImplementedError

    def _add_sample(self, sample: NDArray[Any]) -> None:
        """``update(sample[None])`` for one sample (an array of shape ``shape``), in fewer steps."""
        if sample.dtype.kind != "f" or np.isfinite(sample).all():  # integers are finite
            self._add_moments(sample, 0.0, 1.0)
        else:
            self._finite_rows(np.asarray(sample, dtype=np.float64)[None])  # raises, or skips

    def update(self, batch: ArrayLike) -> None:
        """Add the samples of ``batch`` (along axis 0)."""
        x = self._finite_rows(_as_batch(batch, self.shape, type(self).__name__))
        mean, var, n = _moments(x)
        if n:
            self._add_moments(mean, var, float(n))

    def update_from_moments(
        self, batch_mean: ArrayLike, batch_var: ArrayLike, batch_count: float
    ) -> None:
        """Add ``batch_count`` samples with this mean and population variance (<= 0: no-op).

        A NaN or inf in the mean or variance raises ``ValueError``, or with
        ``nonfinite="skip"`` adds nothing; a NaN or inf count is always a ``ValueError``.
        """
        bcount = float(batch_count)
        if bcount <= 0.0:
            return
        if not math.isfinite(bcount):
            raise ValueError(f"{self._owner}: batch_count must be finite, got {bcount}.")
        mean = np.asarray(batch_mean, dtype=np.float64)
        if self._finite_moments(mean, batch_var):
            self._add_moments(mean, batch_var, bcount)


class RunningMeanStd(_MomentStats):
    """Running mean and variance over batches, using the parallel-variance (Chan) update.

    Starts at mean 0, var 1 with a pseudo-count of ``epsilon``. The first batch sets the
    mean outright and the prior's unit variance keeps only its pseudo-count's weight, so data
    far from zero gets the right variance and one first sample does not give a zero variance.
    Empty batches are ignored.
    NaN/inf samples: ``nonfinite="raise"`` (default) raises ``ValueError``, ``"skip"`` drops them.
    """

    _owner = "RunningMeanStd"

    def __init__(
        self,
        shape: tuple[int, ...] = (),
        epsilon: float = 1e-4,
        *,
        nonfinite: NonFinitePolicy = "raise",
    ) -> None:
        self.nonfinite = check_nonfinite(nonfinite, "RunningMeanStd")
        epsilon = check_real(epsilon, "RunningMeanStd: epsilon", low=0.0)
        self.shape = _shape(shape, "RunningMeanStd")
        self.epsilon = epsilon
        self._mean = np.zeros(self.shape, dtype=np.float64)
        self._var = np.ones(self.shape, dtype=np.float64)
        self.count = epsilon

    def _add_moments(self, batch_mean: ArrayLike, batch_var: ArrayLike, bcount: float) -> None:
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

    def _add_one(self, sample: list[float]) -> tuple[list[float], list[float]] | None:
        count = self.count
        # A sum is finite only if every term is (a finite overflow just takes ``update``).
        if count <= self.epsilon or not math.isfinite(sum(sample)):
            return None
        self.count = total = count + 1.0
        rate, share = 1.0 / total, count / total
        lists = mean, var = self._live_lists()
        for i, x in enumerate(sample):
            m = mean[i]
            d = x - m
            var[i] = (var[i] * count + d * d * share) / total
            mean[i] = m + d * rate
        return lists

    def state_dict(self) -> dict[str, Any]:
        """``{"mean", "var", "count"}`` (copies)."""
        return {"mean": self.mean.copy(), "var": self.var.copy(), "count": float(self.count)}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore a ``state_dict()`` (``nonfinite`` stays as it is)."""
        self.mean = np.array(np.broadcast_to(state["mean"], self.shape), dtype=np.float64)
        self.var = np.array(np.broadcast_to(state["var"], self.shape), dtype=np.float64)
        self.count = float(state["count"])

    def __repr__(self) -> str:
        return f"RunningMeanStd(shape={self.shape}, count={self.count:.4g})"


class ExponentialMovingStats(_MomentStats):
    """Exponentially weighted mean and variance, a drop-in for ``RunningMeanStd``.

    A sample's weight halves every ``halflife`` samples, so the statistics follow
    non-stationary data. Weights are bias-corrected like pandas' ``ewm(adjust=True)``; the
    variance is the weighted population variance (pandas' ``var(bias=True)``). A batch counts
    as ``len(batch)`` samples arriving together.
    NaN/inf samples: ``nonfinite="raise"`` (default) raises ``ValueError``, ``"skip"`` drops them.
    """

    _owner = "ExponentialMovingStats"

    def __init__(
        self,
        shape: tuple[int, ...] = (),
        halflife: float = 1000.0,
        *,
        nonfinite: NonFinitePolicy = "raise",
    ) -> None:
        self.nonfinite = check_nonfinite(nonfinite, "ExponentialMovingStats")
        self.shape = _shape(shape, "ExponentialMovingStats")
        self.halflife = self._check_halflife(halflife)
        self._mean = np.zeros(self.shape, dtype=np.float64)
        self._var = np.ones(self.shape, dtype=np.float64)
        self.count = 0.0
        self.weight = 0.0

    @staticmethod
    def _check_halflife(halflife: float) -> float:
        name = "ExponentialMovingStats: halflife"
        return check_real(halflife, name, low=0.0, low_open=True, finite=False)

    @property
    def decay(self) -> float:
        """The per-sample weight factor ``0.5 ** (1 / halflife)``."""
        return 0.5 ** (1.0 / self.halflife)

    def _add_moments(self, batch_mean: ArrayLike, batch_var: ArrayLike, bcount: float) -> None:
        c = bcount
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

    def _add_one(self, sample: list[float]) -> tuple[list[float], list[float]] | None:
        # A sum is finite only if every term is (a finite overflow just takes ``update``).
        if self.count == 0.0 or not math.isfinite(sum(sample)):
            return None
        self.weight = weight = self.weight * self.decay + 1.0
        self.count += 1.0
        w = 1.0 / weight
        keep = 1.0 - w
        spread = w * keep
        lists = mean, var = self._live_lists()
        for i, x in enumerate(sample):
            m = mean[i]
            d = x - m
            mean[i] = m + w * d
            var[i] = keep * var[i] + spread * (d * d)
        return lists

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
        missing ``weight`` becomes ``count`` (``nonfinite`` stays as it is)."""
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

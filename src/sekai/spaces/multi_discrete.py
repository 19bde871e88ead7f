"""An array of independent discrete choices."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

from sekai._types import SeedType
from sekai.spaces.space import Space, array_of_sequence
from sekai.utils.validation import check_int_array

__all__ = ["MultiDiscrete"]


class MultiDiscrete(Space[NDArray[np.integer[Any]]]):
    """Arrays whose entry at ``idx`` is one of ``start[idx], ..., start[idx] + nvec[idx] - 1``."""

    _shape: tuple[int, ...]
    _dtype: np.dtype[Any]

    def __init__(
        self,
        nvec: Any,
        dtype: DTypeLike = np.int64,
        seed: SeedType = None,
        start: Any = None,
    ) -> None:
        nv = check_int_array(nvec, "MultiDiscrete nvec")
        if np.any(nv <= 0):
            raise ValueError(f"MultiDiscrete nvec entries must be positive, got {nv.tolist()}.")
        st = np.zeros_like(nv) if start is None else check_int_array(start, "MultiDiscrete start")
        if st.shape != nv.shape:
            raise ValueError(
                f"MultiDiscrete start must have the shape of nvec {nv.shape}, got {st.shape}."
            )
        if dtype is None:
            raise TypeError("MultiDiscrete dtype must be an integer dtype, got None.")
        dt = np.dtype(dtype)
        if dt.kind not in "iu":
            raise TypeError(f"MultiDiscrete dtype must be an integer dtype, got {dt}.")
        info = np.iinfo(dt)
        if nv.size and (int(st.min()) < info.min or int((st + nv - 1).max()) > info.max):
            raise ValueError(f"MultiDiscrete values do not fit dtype {dt}.")
        nv.flags.writeable = False
        st.flags.writeable = False
        end = st + nv
        end.flags.writeable = False
        self.nvec = nv
        self.start = st
        self._end = end
        super().__init__(nv.shape, dt, seed)

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of ``nvec``."""
        return self._shape

    @property
    def dtype(self) -> np.dtype[Any]:
        """The dtype of a sample."""
        return self._dtype

    @property
    def is_flattenable(self) -> bool:
        """Always True."""
        return True

    def _mask_entries(self, mask: Any) -> list[NDArray[Any]]:
        """Validate ``mask`` and return one flag array per entry, in ``np.ndindex`` order."""
        if isinstance(mask, np.ndarray):
            width = int(self.nvec.max()) if self.nvec.size else 0
            expected = (*self._shape, width)
            if mask.shape != expected:
                raise ValueError(
                    f"MultiDiscrete mask array must have shape {expected}, got shape {mask.shape}."
                )
            entries = [mask[idx][: self.nvec[idx]] for idx in np.ndindex(self._shape)]
            for idx, flags in zip(np.ndindex(self._shape), entries, strict=True):
                if not np.any(flags == 1):
                    raise ValueError(f"All actions masked in dimension {idx}.")
            return entries
        out: list[NDArray[Any]] = []
        self._collect_entries(mask, (), out)
        return out

    def _collect_entries(self, mask: Any, prefix: tuple[int, ...], out: list[NDArray[Any]]) -> None:
        if len(prefix) == self.nvec.ndim:
            n = int(self.nvec[prefix])
            try:
                flags = np.asarray(mask)
            except ValueError:
                flags = np.empty(0)
            if flags.shape != (n,):
                raise ValueError(
                    f"MultiDiscrete mask for dimension {prefix} must have shape ({n},), "
                    f"got {mask!r}."
                )
            if not np.any(flags == 1):
                raise ValueError(f"All actions masked in dimension {prefix}.")
            out.append(flags)
            return
        size = self._shape[len(prefix)]
        if not isinstance(mask, (tuple, list, np.ndarray)) or (
            isinstance(mask, np.ndarray) and mask.ndim == 0
        ):
            raise ValueError(
                f"MultiDiscrete mask at dimension {prefix} must be a sequence of {size} "
                f"sub-masks, got {mask!r}."
            )
        got = len(mask)
        if got < size:
            raise ValueError(
                f"MultiDiscrete mask has {got} sub-masks at dimension {prefix}, expected {size}: "
                f"no mask for dimension {(*prefix, got)}."
            )
        if got > size:
            raise ValueError(
                f"MultiDiscrete mask has {got} sub-masks at dimension {prefix}, expected {size}: "
                f"unexpected mask for dimension {(*prefix, size)}."
            )
        for i, sub in enumerate(mask):
            self._collect_entries(sub, (*prefix, i), out)

    def sample(self, mask: Any = None) -> NDArray[np.integer[Any]]:
        """A random element; ``mask`` allows, per entry, the values whose flag is 1.

        ``mask`` is a nested sequence mirroring ``nvec`` with one flag array of length
        ``nvec[idx]`` per entry, or one array of shape ``(*nvec.shape, max(nvec))``.
        """
        rng = self.rng
        if mask is None:
            return np.asarray(self.start + rng.integers(self.nvec)).astype(self._dtype)
        out = np.empty(self._shape, dtype=self._dtype)
        for idx, flags in zip(np.ndindex(self._shape), self._mask_entries(mask), strict=True):
            out[idx] = self.start[idx] + rng.choice(np.flatnonzero(flags == 1))
        return out

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is an integer array of this shape with every entry in range."""
        if not isinstance(x, np.ndarray):
            x = array_of_sequence(x)
            if x is None:
                return False
        if x.shape != self._shape or x.dtype.kind not in "iu":
            return False
        return bool(np.all(x >= self.start) and np.all(x < self._end))

    def to_jsonable(self) -> dict[str, Any]:
        """A JSON-ready description of the space."""
        return {
            "type": "MultiDiscrete",
            "nvec": self.nvec.tolist(),
            "start": self.start.tolist(),
            "dtype": str(self._dtype),
        }

    @classmethod
    def from_jsonable(cls, data: Mapping[str, Any]) -> MultiDiscrete:
        """Rebuild a MultiDiscrete from ``to_jsonable()`` output."""
        return cls(
            data["nvec"], dtype=np.dtype(data.get("dtype", "int64")), start=data.get("start")
        )

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, MultiDiscrete)
            and self._dtype == other._dtype
            and np.array_equal(self.nvec, other.nvec)
            and np.array_equal(self.start, other.start)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if np.any(self.start):
            return f"MultiDiscrete({self.nvec.tolist()}, start={self.start.tolist()})"
        return f"MultiDiscrete({self.nvec.tolist()})"

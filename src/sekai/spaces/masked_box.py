"""Up to ``max_size`` Box elements held in fixed slots, with an occupancy mask."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

from sekai.spaces.box import Box, _empty_bound, format_bound
from sekai.spaces.dict import Dict
from sekai.spaces.discrete import _check_int
from sekai.spaces.multi_binary import MultiBinary
from sekai.utils.validation import check_int_array

__all__ = ["MaskedBox"]


class MaskedBox(Dict):
    """A Dict ``{"values": Box(max_size, *shape), "mask": MultiBinary(max_size)}``.

    Slot ``i`` holds an element when ``mask[i] == 1``; empty slots hold ``fill_value``.
    """

    def __init__(
        self,
        low: Any,
        high: Any,
        shape: tuple[int, ...] | None = None,
        *,
        max_size: int,
        dtype: DTypeLike = np.float32,
        fill_value: Any = None,
        seed: Any = None,
    ) -> None:
        max_size = _check_int(max_size, "max_size", "MaskedBox")
        if max_size < 1:
            raise ValueError(f"MaskedBox max_size must be >= 1, got {max_size}.")
        element = Box(low, high, shape, dtype)
        fill = element.zero() if fill_value is None else self._check_fill(element, fill_value)
        fill.flags.writeable = False
        self.element_space = element
        self.max_size = max_size
        self.fill_value = fill
        full_shape = (max_size, *element.shape)
        super().__init__(
            {
                "values": Box(
                    np.broadcast_to(element.low, full_shape),
                    np.broadcast_to(element.high, full_shape),
                    dtype=element.dtype,
                ),
                "mask": MultiBinary(max_size),
            },
            seed=seed,
        )

    @staticmethod
    def _check_fill(element: Box, fill_value: Any) -> NDArray[Any]:
        try:
            raw = np.broadcast_to(np.asarray(fill_value), element.shape)
        except ValueError as exc:
            raise ValueError(
                f"MaskedBox fill_value must broadcast to the element shape {element.shape}, "
                f"got {fill_value!r}."
            ) from exc
        if raw.dtype.kind not in "biuf":
            raise ValueError(f"MaskedBox fill_value must be numeric, got {fill_value!r}.")
        fill = raw.astype(element.dtype)
        inexact = element.dtype.kind in "iu" and not np.array_equal(fill, raw)
        if inexact or not element.contains(fill):
            raise ValueError(
                f"MaskedBox fill_value must be a value of the element space {element!r}, "
                f"got {fill_value!r}."
            )
        return fill

    @property
    def element_shape(self) -> tuple[int, ...]:
        """The shape of one element."""
        return self.element_space.shape

    @property
    def value_dtype(self) -> np.dtype[Any]:
        """The dtype of the values."""
        return self.element_space.dtype

    def empty(self) -> dict[str, NDArray[Any]]:
        """A sample with every slot empty."""
        full_shape = (self.max_size, *self.element_shape)
        return {
            "values": np.broadcast_to(self.fill_value, full_shape).copy(),
            "mask": np.zeros(self.max_size, dtype=np.int8),
        }

    def pack(self, values: Any, slots: Any = None) -> dict[str, NDArray[Any]]:
        """A sample holding ``values`` (``k`` elements) in ``slots`` (default ``0..k-1``)."""
        arr = np.asarray(values, dtype=self.value_dtype).reshape((-1, *self.element_shape))
        k = len(arr)
        if k > self.max_size:
            raise ValueError(f"MaskedBox.pack got {k} values for max_size {self.max_size}.")
        idx = (
            np.arange(k)
            if slots is None
            else check_int_array(slots, "MaskedBox.pack slots").reshape(-1)
        )
        if len(idx) != k:
            raise ValueError(f"MaskedBox.pack got {len(idx)} slots for {k} values.")
        if k and (idx.min() < 0 or idx.max() >= self.max_size or len(np.unique(idx)) != k):
            raise ValueError(
                f"MaskedBox.pack slots must be distinct ints in [0, {self.max_size}), "
                f"got {idx.tolist()}."
            )
        out = self.empty()
        out["values"][idx] = arr
        out["mask"][idx] = 1
        return out

    def unpack(self, x: Mapping[str, Any]) -> tuple[NDArray[Any], NDArray[np.intp]]:
        """``(values of the occupied slots, those slots in ascending order)``."""
        slots = np.flatnonzero(np.asarray(x["mask"]))
        return np.asarray(x["values"])[slots], slots

    def sample(self, mask: Any = None) -> dict[str, Any]:
        """A random sample; ``mask`` of shape ``(max_size,)`` fixes which slots are occupied.

        Without a mask each slot is occupied with probability 1/2.
        """
        if mask is None:
            occupied = self.rng.integers(0, 2, size=self.max_size).astype(bool)
        else:
            flags = np.asarray(mask)
            if flags.shape != (self.max_size,):
                raise ValueError(
                    f"MaskedBox mask must have shape ({self.max_size},), got shape {flags.shape}."
                )
            occupied = flags != 0
        values = self.spaces["values"].sample()
        values[~occupied] = self.fill_value
        return {"values": values, "mask": occupied.astype(np.int8)}

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a valid sample: occupied rows in bounds, empty rows ``fill_value``."""
        if not isinstance(x, dict) or x.keys() != {"values", "mask"}:
            return False
        if not self.spaces["mask"].contains(x["mask"]):
            return False
        values = x["values"]
        if not isinstance(values, np.ndarray):
            try:
                values = np.asarray(values)
            except ValueError:
                return False
        element = self.element_space
        if values.shape != (self.max_size, *element.shape) or not np.can_cast(
            values.dtype, element.dtype, "same_kind"
        ):
            return False
        occupied = np.asarray(x["mask"]).astype(bool)
        full = values[occupied]
        empty = values[~occupied]
        return bool(
            np.all(full >= element.low)
            and np.all(full <= element.high)
            and np.all(empty == self.fill_value)
        )

    def to_jsonable(self) -> dict[str, Any]:
        """A JSON-ready description of the space."""
        element = self.element_space
        return {
            "type": "MaskedBox",
            "low": element.low.tolist(),
            "high": element.high.tolist(),
            "shape": list(element.shape),
            "max_size": self.max_size,
            "dtype": str(element.dtype),
            "fill_value": self.fill_value.tolist(),
        }

    @classmethod
    def from_jsonable(cls, data: Mapping[str, Any]) -> MaskedBox:
        """Rebuild a MaskedBox from ``to_jsonable()`` output (zero-size shapes included)."""
        shape = tuple(data["shape"])
        dtype = np.dtype(data["dtype"])
        fill = data.get("fill_value")
        return cls(
            _empty_bound(data["low"], shape, dtype),
            _empty_bound(data["high"], shape, dtype),
            shape,
            max_size=data["max_size"],
            dtype=dtype,
            fill_value=None if fill is None else _empty_bound(fill, shape, dtype),
        )

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, MaskedBox)
            and self.element_space == other.element_space
            and self.max_size == other.max_size
            and np.array_equal(self.fill_value, other.fill_value)
        )

    __hash__ = None

    def __repr__(self) -> str:
        element = self.element_space
        text = (
            f"MaskedBox({format_bound(element.low)}, {format_bound(element.high)}, "
            f"{element.shape}, max_size={self.max_size}, {element.dtype}"
        )
        if np.any(self.fill_value):
            text += f", fill_value={format_bound(self.fill_value)}"
        return text + ")"

"""Arrays of independent binary flags."""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.spaces.space import Space, array_of_sequence
from sekai.utils.validation import check_int, check_shape

__all__ = ["MultiBinary"]


def _parse_n(n: Any) -> tuple[int, ...]:
    """``n``, an int or a tuple of ints, as a shape."""
    if isinstance(n, numbers.Number):
        return (check_int(n, "MultiBinary n", low=0),)
    return check_shape(n, "MultiBinary n")


class MultiBinary(Space[NDArray[np.int8]]):
    """Arrays of shape ``n`` whose entries are 0 or 1."""

    _shape: tuple[int, ...]

    def __init__(self, n: int | tuple[int, ...], seed: SeedType = None) -> None:
        self.n = _parse_n(n)
        super().__init__(self.n, np.int8, seed)

    @property
    def shape(self) -> tuple[int, ...]:
        """Equal to ``n``."""
        return self._shape

    @property
    def is_flattenable(self) -> bool:
        """Always True."""
        return True

    def sample(self, mask: Any = None) -> NDArray[np.int8]:
        """Uniform random flags; ``mask`` (shape ``n``): 1 forces 1, -1 leaves free, else 0."""
        out = self.rng.integers(0, 2, size=self.n, dtype=np.int8)
        if mask is None:
            return out
        flags = np.asarray(mask)
        if flags.shape != self.n:
            raise ValueError(f"MultiBinary mask must have shape {self.n}, got shape {flags.shape}.")
        return np.where(flags == -1, out, (flags == 1).astype(np.int8))

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is an integer or bool array of shape ``n`` holding only 0 and 1."""
        if not isinstance(x, np.ndarray):
            x = array_of_sequence(x)
            if x is None:
                return False
        if x.shape != self.n:
            return False
        kind = x.dtype.kind
        if kind == "b":
            return True
        return kind in "iu" and bool(np.all((x == 0) | (x == 1)))

    def to_jsonable(self) -> dict[str, Any]:
        """A JSON-ready description of the space."""
        return {"type": "MultiBinary", "n": list(self.n)}

    @classmethod
    def from_jsonable(cls, data: Mapping[str, Any]) -> MultiBinary:
        """Rebuild a MultiBinary from ``to_jsonable()`` output."""
        return cls(tuple(data["n"]))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MultiBinary) and self.n == other.n

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if len(self.n) == 1:
            return f"MultiBinary({self.n[0]})"
        return f"MultiBinary({self.n})"

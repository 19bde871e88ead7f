"""A finite set of consecutive integers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from sekai._types import SeedType
from sekai.spaces.space import Space
from sekai.utils.validation import check_int

__all__ = ["Discrete"]


def _check_int(value: Any, name: str, owner: str) -> int:
    """``value`` as an int, its errors naming ``owner`` and ``name``."""
    return check_int(value, f"{owner} {name}")


class Discrete(Space[np.intp]):
    """The integers ``start, start + 1, ..., start + n - 1``."""

    def __init__(self, n: int, seed: SeedType = None, start: int = 0) -> None:
        n = _check_int(n, "n", "Discrete")
        if n <= 0:
            raise ValueError(f"Discrete n must be positive, got {n}.")
        self.n = n
        self.start = _check_int(start, "start", "Discrete")
        super().__init__((), np.int64, seed)

    @property
    def shape(self) -> tuple[int, ...]:
        """Always ``()``."""
        return ()

    @property
    def is_flattenable(self) -> bool:
        """Always True."""
        return True

    def sample(self, mask: Any = None) -> np.intp:
        """A uniform random element; ``mask`` of shape ``(n,)`` allows the indices where it is 1."""
        if mask is None:
            return np.intp(self.start + self.rng.integers(self.n))
        flags = np.asarray(mask)
        if flags.shape != (self.n,):
            raise ValueError(f"Discrete mask must have shape ({self.n},), got shape {flags.shape}.")
        allowed = np.flatnonzero(flags == 1)
        if allowed.size == 0:
            raise ValueError(f"All actions masked: mask {flags.tolist()} allows no value.")
        return np.intp(self.start + self.rng.choice(allowed))

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is an integer (not a bool) in ``[start, start + n)``."""
        if type(x) is not int:
            if isinstance(x, np.ndarray):
                if x.shape != () or x.dtype.kind not in "iu":
                    return False
                x = x.item()
            elif isinstance(x, np.integer) or (isinstance(x, int) and not isinstance(x, bool)):
                x = int(x)  # numpy ints and int subclasses such as IntEnum members
            else:
                return False
        return bool(self.start <= x < self.start + self.n)

    def to_jsonable(self) -> dict[str, Any]:
        """A JSON-ready description of the space."""
        return {"type": "Discrete", "n": self.n, "start": self.start}

    @classmethod
    def from_jsonable(cls, data: Mapping[str, Any]) -> Discrete:
        """Rebuild a Discrete from ``to_jsonable()`` output (``start`` optional)."""
        return cls(data["n"], start=data.get("start", 0))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Discrete) and self.n == other.n and self.start == other.start

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if self.start:
            return f"Discrete({self.n}, start={self.start})"
        return f"Discrete({self.n})"

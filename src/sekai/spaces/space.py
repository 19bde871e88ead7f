"""The abstract base of every space."""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import Any, Generic

import numpy as np
from numpy.typing import DTypeLike

from sekai._types import SeedType, T
from sekai.utils.seeding import np_random
from sekai.utils.validation import check_shape

__all__ = ["Space", "array_of_sequence"]


def array_of_sequence(x: Any) -> np.ndarray[Any, Any] | None:
    """``x`` as an array when it is a list or tuple numpy can make one of, else None."""
    if not isinstance(x, (list, tuple)):
        return None
    try:
        return np.asarray(x)
    except ValueError:
        return None


class Space(abc.ABC, Generic[T]):
    """A set of values an observation or action can take, with a generator to sample it."""

    def __init__(
        self,
        shape: tuple[int, ...] | None = None,
        dtype: DTypeLike | None = None,
        seed: Any = None,
    ) -> None:
        self._shape = None if shape is None else check_shape(shape, f"{type(self).__name__} shape")
        self._dtype = None if dtype is None else np.dtype(dtype)
        self._rng: np.random.Generator | None = None
        if seed is not None:
            self.seed(seed)

    @property
    def shape(self) -> tuple[int, ...] | None:
        """The shape of a sample, or None for composite spaces."""
        return self._shape

    @property
    def dtype(self) -> np.dtype[Any] | None:
        """The dtype of a sample, or None for composite spaces."""
        return self._dtype

    @property
    def rng(self) -> np.random.Generator:
        """The sampling generator; created from OS entropy on first use."""
        if self._rng is None:
            self._rng, _ = np_random()
        return self._rng

    def seed(self, seed: SeedType = None) -> int:
        """Replace the generator; return the seed used (``-1`` for an adopted Generator)."""
        self._rng, used = np_random(seed)
        return used

    @abc.abstractmethod
    def sample(self, mask: Any = None) -> T:
        """A random element, restricted by ``mask`` where given."""

    @abc.abstractmethod
    def contains(self, x: Any) -> bool:
        """Whether ``x`` is an element of this space."""

    @property
    @abc.abstractmethod
    def is_flattenable(self) -> bool:
        """Whether ``flatten`` can turn samples into fixed-size vectors."""

    def __contains__(self, x: Any) -> bool:
        return self.contains(x)

    def to_jsonable(self) -> dict[str, Any]:
        """A JSON-ready description of the space."""
        raise NotImplementedError(f"{type(self).__name__} has no JSON form.")

    @classmethod
    def from_jsonable(cls, data: Mapping[str, Any]) -> Space[Any]:
        """Rebuild a space from ``to_jsonable()`` output."""
        raise NotImplementedError(f"{cls.__name__} has no JSON form.")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

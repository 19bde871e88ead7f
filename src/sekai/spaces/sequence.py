"""Variable-length sequences of elements of one space."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from sekai.spaces._jsonable import space_from_jsonable
from sekai.spaces._stacking import concatenate, iterate
from sekai.spaces._stacking import holds_data as holds_data
from sekai.spaces.box import Box
from sekai.spaces.dict import Dict
from sekai.spaces.discrete import Discrete
from sekai.spaces.multi_binary import MultiBinary
from sekai.spaces.multi_discrete import MultiDiscrete
from sekai.spaces.space import Space
from sekai.spaces.tuple import Tuple
from sekai.utils.seeding import child_seeds, np_random
from sekai.utils.validation import check_int

__all__ = ["Sequence"]

_LEAVES = (Box, Discrete, MultiDiscrete, MultiBinary)


def is_stackable(space: Space[Any]) -> bool:
    """Whether samples of ``space`` can be stacked into arrays along a new leading axis."""
    if isinstance(space, Dict):
        return all(is_stackable(sub) for sub in space.spaces.values())
    if isinstance(space, Tuple):
        return all(is_stackable(sub) for sub in space.spaces)
    return isinstance(space, _LEAVES)


def empty_batch(space: Space[Any]) -> Any:
    """A stacked batch of zero samples of a stackable ``space``."""
    if isinstance(space, Dict):
        return {key: empty_batch(sub) for key, sub in space.spaces.items()}
    if isinstance(space, Tuple):
        return tuple(empty_batch(sub) for sub in space.spaces)
    if isinstance(space, Discrete):
        return np.zeros((0,), dtype=np.int64)
    if isinstance(space, (Box, MultiDiscrete, MultiBinary)):
        return np.zeros((0, *space.shape), dtype=space.dtype)
    raise TypeError(f"{type(space).__name__} cannot be stacked.")


def _stacked_length(space: Space[Any], x: Any) -> int | None:
    """The batch length of stacked ``x``, ``-1`` if it holds no data, None if malformed."""
    if isinstance(space, Dict):
        if not isinstance(x, dict) or x.keys() != space.spaces.keys():
            return None
        return _common_length([_stacked_length(sub, x[k]) for k, sub in space.spaces.items()])
    if isinstance(space, Tuple):
        if not isinstance(x, tuple) or len(x) != len(space.spaces):
            return None
        return _common_length(
            [_stacked_length(sub, v) for sub, v in zip(space.spaces, x, strict=True)]
        )
    if not isinstance(x, np.ndarray) or x.ndim == 0:
        return None
    return len(x)


def _common_length(lengths: list[int | None]) -> int | None:
    if any(n is None for n in lengths):
        return None
    found = {n for n in lengths if n != -1}
    if len(found) > 1:
        return None
    return found.pop() if found else -1


class Sequence(Space[Any]):
    """Finite sequences of elements of ``feature_space``, as tuples or stacked arrays.

    With ``stack=True`` samples are stacked batches (see ``concatenate``) instead of tuples.
    """

    def __init__(
        self,
        feature_space: Space[Any],
        *,
        max_length: int | None = None,
        stack: bool = False,
        seed: Any = None,
    ) -> None:
        if not isinstance(feature_space, Space):
            raise TypeError(f"Sequence feature_space must be a Space, got {feature_space!r}.")
        if max_length is not None:
            max_length = check_int(max_length, "Sequence max_length", low=0)
        if stack:
            if not is_stackable(feature_space):
                raise TypeError(
                    f"Sequence with stack=True needs a feature space built from Box, Discrete, "
                    f"MultiDiscrete, MultiBinary, Dict and Tuple, got {feature_space!r}."
                )
            if not holds_data(feature_space):
                raise TypeError(
                    f"Sequence with stack=True needs a feature space with at least one leaf; "
                    f"{feature_space!r} has no sub-space holding data."
                )
        self.feature_space = feature_space
        self.max_length = max_length
        self.stack = bool(stack)
        super().__init__(None, None, seed)

    def seed(self, seed: Any = None) -> int:
        """Seed this space and, with a derived seed, the feature space; return the seed used."""
        self._rng, used = np_random(seed)
        self.feature_space.seed(child_seeds(self._rng, used, 1)[0])
        return used

    @property
    def is_flattenable(self) -> bool:
        """Always False."""
        return False

    def sample(self, mask: Any = None) -> Any:
        """A random sequence; ``mask`` is ``(length, feature_mask)``, either part may be None.

        Without a length: uniform in ``[0, max_length]``, or geometric with mean 3 if unbounded.
        """
        length: Any = None
        feature_mask: Any = None
        if mask is not None:
            if not isinstance(mask, (tuple, list)) or len(mask) != 2:
                raise ValueError(f"Sequence mask must be (length, feature_mask), got {mask!r}.")
            length, feature_mask = mask
        if length is None:
            if self.max_length is None:
                length = int(self.rng.geometric(0.25)) - 1
            else:
                length = int(self.rng.integers(0, self.max_length + 1))
        else:
            length = check_int(length, "Sequence mask length")
        if length < 0 or (self.max_length is not None and length > self.max_length):
            raise ValueError(
                f"Sequence mask length must be in [0, {self.max_length}], got {length}."
            )
        return self.pack([self.feature_space.sample(feature_mask) for _ in range(length)])

    def pack(self, items: list[Any]) -> Any:
        """Build a sample from a list of elements: a tuple, or a stacked batch."""
        if not self.stack:
            return tuple(items)
        if not items:
            return empty_batch(self.feature_space)
        return concatenate(self.feature_space, items)

    def elements(self, x: Any) -> list[Any]:
        """The list of elements of a sample (inverse of ``pack``)."""
        if not self.stack:
            return list(x)
        return list(iterate(self.feature_space, x))

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a sequence in packed form, not too long, of contained elements."""
        if self.stack:
            length = _stacked_length(self.feature_space, x)
            if length is None:
                return False
        elif isinstance(x, (tuple, list)):
            length = len(x)
        else:
            return False
        if self.max_length is not None and length > self.max_length:
            return False
        return all(self.feature_space.contains(item) for item in self.elements(x))

    def to_jsonable(self) -> dict[str, Any]:
        """A JSON-ready description of the space."""
        return {
            "type": "Sequence",
            "feature_space": self.feature_space.to_jsonable(),
            "max_length": self.max_length,
            "stack": self.stack,
        }

    @classmethod
    def from_jsonable(cls, data: Mapping[str, Any]) -> Sequence:
        """Rebuild a Sequence from ``to_jsonable()`` output."""
        return cls(
            space_from_jsonable(data["feature_space"]),
            max_length=data.get("max_length"),
            stack=bool(data.get("stack", False)),
        )

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Sequence)
            and self.feature_space == other.feature_space
            and self.max_length == other.max_length
            and self.stack == other.stack
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        parts = [repr(self.feature_space)]
        if self.max_length is not None:
            parts.append(f"max_length={self.max_length}")
        if self.stack:
            parts.append("stack=True")
        return f"Sequence({', '.join(parts)})"

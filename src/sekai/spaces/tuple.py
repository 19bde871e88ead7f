"""A fixed-length, ordered collection of spaces."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from sekai.spaces._jsonable import space_from_jsonable
from sekai.spaces.space import Space
from sekai.utils.seeding import child_seeds, np_random

__all__ = ["Tuple"]


class Tuple(Space[tuple[Any, ...]]):
    """Tuples whose ``i``-th element is drawn from the ``i``-th sub-space."""

    def __init__(self, spaces: Iterable[Space[Any]], seed: Any = None) -> None:
        if isinstance(spaces, Space) or not isinstance(spaces, Iterable):
            raise TypeError(f"Tuple spaces must be a list or tuple of spaces, got {spaces!r}.")
        subs = tuple(spaces)
        for i, space in enumerate(subs):
            if not isinstance(space, Space):
                raise TypeError(f"Tuple spaces[{i}] must be a Space, got {space!r}.")
        self.spaces: tuple[Space[Any], ...] = subs
        super().__init__(None, None, seed)

    def seed(self, seed: Any = None) -> int:
        """Seed this space and every sub-space; return the seed used.

        An int, None or Generator derives one seed per sub-space. A list or tuple seeds the
        sub-spaces positionally (None leaves one untouched, fewer is fine) and returns ``-1``.
        """
        if isinstance(seed, (list, tuple)):
            if len(seed) > len(self.spaces):
                raise ValueError(
                    f"Tuple seed has {len(seed)} seeds but the space has only "
                    f"{len(self.spaces)} sub-spaces."
                )
            for space, sub_seed in zip(self.spaces, seed, strict=False):
                if sub_seed is not None:
                    space.seed(sub_seed)
            return -1
        self._rng, used = np_random(seed)
        for space, sub_seed in zip(
            self.spaces, child_seeds(self._rng, used, len(self.spaces)), strict=True
        ):
            space.seed(sub_seed)
        return used

    @property
    def is_flattenable(self) -> bool:
        """Whether every sub-space is flattenable."""
        return all(space.is_flattenable for space in self.spaces)

    def sample(self, mask: Any = None) -> tuple[Any, ...]:
        """A tuple of sub-samples; ``mask`` holds one sub-mask (or None) per sub-space."""
        if mask is None:
            return tuple(space.sample() for space in self.spaces)
        if not isinstance(mask, (list, tuple)) or len(mask) != len(self.spaces):
            raise ValueError(
                f"Tuple mask must hold one mask per sub-space ({len(self.spaces)}), got {mask!r}."
            )
        return tuple(space.sample(m) for space, m in zip(self.spaces, mask, strict=True))

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a tuple or list of the right length with every element contained."""
        return (
            isinstance(x, (tuple, list))
            and len(x) == len(self.spaces)
            and all(space.contains(v) for space, v in zip(self.spaces, x, strict=True))
        )

    def __getitem__(self, index: int) -> Space[Any]:
        return self.spaces[index]

    def __iter__(self) -> Iterator[Space[Any]]:
        return iter(self.spaces)

    def __len__(self) -> int:
        return len(self.spaces)

    def to_jsonable(self) -> dict[str, Any]:
        """A JSON-ready description of the space."""
        return {"type": "Tuple", "spaces": [space.to_jsonable() for space in self.spaces]}

    @classmethod
    def from_jsonable(cls, data: Mapping[str, Any]) -> Tuple:
        """Rebuild a Tuple from ``to_jsonable()`` output."""
        return cls([space_from_jsonable(sub) for sub in data["spaces"]])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tuple) and self.spaces == other.spaces

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Tuple({', '.join(repr(space) for space in self.spaces)})"

"""A keyed collection of spaces."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping
from typing import Any

from sekai.spaces._jsonable import space_from_jsonable
from sekai.spaces.space import Space
from sekai.utils.seeding import child_seeds, np_random

__all__ = ["Dict"]


def _check_space(key: Any, space: Any) -> Space[Any]:
    if not isinstance(space, Space):
        raise TypeError(f"Dict value for key {key!r} must be a Space, got {space!r}.")
    return space


class Dict(Space[dict[Any, Any]]):
    """Dicts with fixed keys, each value drawn from its own sub-space (insertion order kept)."""

    def __init__(
        self,
        spaces: Mapping[Any, Space[Any]] | None = None,
        seed: Any = None,
        **spaces_kwargs: Space[Any],
    ) -> None:
        if spaces is not None and not isinstance(spaces, Mapping):
            raise TypeError(f"Dict spaces must be a mapping of spaces or None, got {spaces!r}.")
        merged: OrderedDict[Any, Space[Any]] = OrderedDict()
        for key, space in [*(spaces or {}).items(), *spaces_kwargs.items()]:
            merged[key] = _check_space(key, space)
        self.spaces = merged
        super().__init__(None, None, seed)

    def seed(self, seed: Any = None) -> int:
        """Seed this space and every sub-space; return the seed used.

        An int, None or Generator derives one seed per sub-space. A mapping seeds only the named
        sub-spaces (None values skipped) and returns ``-1``.
        """
        if isinstance(seed, Mapping):
            unknown = [k for k in seed if k not in self.spaces]
            if unknown:
                raise ValueError(
                    f"Dict seed has entries {unknown} that are not keys of the space "
                    f"{list(self.spaces)}."
                )
            for key, sub_seed in seed.items():
                if sub_seed is not None:
                    self.spaces[key].seed(sub_seed)
            return -1
        self._rng, used = np_random(seed)
        for space, sub_seed in zip(
            self.spaces.values(), child_seeds(self._rng, used, len(self.spaces)), strict=True
        ):
            space.seed(sub_seed)
        return used

    @property
    def is_flattenable(self) -> bool:
        """Whether every sub-space is flattenable."""
        return all(space.is_flattenable for space in self.spaces.values())

    def sample(self, mask: Any = None) -> dict[Any, Any]:
        """A dict of sub-samples; ``mask`` is a dict of sub-masks (missing keys: no mask)."""
        if mask is None:
            return {key: space.sample() for key, space in self.spaces.items()}
        if not isinstance(mask, Mapping):
            raise TypeError(f"Dict mask must be a mapping of sub-masks, got {mask!r}.")
        unknown = [k for k in mask if k not in self.spaces]
        if unknown:
            raise ValueError(f"Dict mask has entries {unknown} that are not keys of the space.")
        return {key: space.sample(mask.get(key)) for key, space in self.spaces.items()}

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a dict with exactly these keys and every value contained."""
        return (
            isinstance(x, dict)
            and x.keys() == self.spaces.keys()
            and all(space.contains(x[key]) for key, space in self.spaces.items())
        )

    def keys(self) -> Iterator[Any]:
        """An iterator over the keys."""
        return iter(self.spaces.keys())

    def values(self) -> Iterator[Space[Any]]:
        """An iterator over the sub-spaces."""
        return iter(self.spaces.values())

    def items(self) -> Iterator[tuple[Any, Space[Any]]]:
        """An iterator over ``(key, sub-space)`` pairs."""
        return iter(self.spaces.items())

    def __iter__(self) -> Iterator[Any]:
        return iter(self.spaces)

    def __getitem__(self, key: Any) -> Space[Any]:
        return self.spaces[key]

    def __setitem__(self, key: Any, value: Space[Any]) -> None:
        self.spaces[key] = _check_space(key, value)

    def __len__(self) -> int:
        return len(self.spaces)

    def to_jsonable(self) -> dict[str, Any]:
        """A JSON-ready description of the space."""
        return {
            "type": "Dict",
            "spaces": {key: space.to_jsonable() for key, space in self.spaces.items()},
        }

    @classmethod
    def from_jsonable(cls, data: Mapping[str, Any]) -> Dict:
        """Rebuild a Dict from ``to_jsonable()`` output."""
        return cls({key: space_from_jsonable(sub) for key, sub in data["spaces"].items()})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dict) and self.spaces == other.spaces

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{key}: {space!r}" for key, space in self.spaces.items())
        return f"Dict({{{inner}}})"

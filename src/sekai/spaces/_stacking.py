"""Stacking samples into one batched sample and back (``concatenate``, ``iterate``).

``zero_sample`` lives here because ``iterate`` fills sub-spaces without data with it. These
generics know the leaf spaces, Dict and Tuple; ``sekai.spaces.utils`` registers Sequence and
MaskedBox, whose modules use these generics themselves.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import singledispatch
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.spaces.box import Box
from sekai.spaces.dict import Dict
from sekai.spaces.discrete import Discrete
from sekai.spaces.multi_binary import MultiBinary
from sekai.spaces.multi_discrete import MultiDiscrete
from sekai.spaces.space import Space
from sekai.spaces.tuple import Tuple

__all__ = [
    "children",
    "concatenate",
    "holds_data",
    "iterate",
    "zero_sample",
]


def children(space: Dict | Tuple) -> list[Space[Any]]:
    """The sub-spaces of a Dict or Tuple, in order."""
    return list(space.spaces.values()) if isinstance(space, Dict) else list(space.spaces)


def _child_values(space: Dict | Tuple, x: Any) -> list[Any]:
    """The parts of a sample of a Dict or Tuple, in the order of ``children``."""
    return [x[key] for key in space.spaces] if isinstance(space, Dict) else list(x)


def _rebuild(space: Dict | Tuple, parts: Iterable[Any]) -> Any:
    """A sample of a Dict or Tuple from its parts (inverse of ``_child_values``)."""
    if isinstance(space, Dict):
        return dict(zip(space.spaces, parts, strict=True))
    return tuple(parts)


def holds_data(space: Space[Any]) -> bool:
    """False for Dicts and Tuples made only of empty Dicts and Tuples, else True."""
    if isinstance(space, Dict):
        return any(holds_data(sub) for sub in space.spaces.values())
    if isinstance(space, Tuple):
        return any(holds_data(sub) for sub in space.spaces)
    return True


# -- concatenate ------------------------------------------------------------------------------


@singledispatch
def concatenate(space: Space[Any], items: Iterable[Any]) -> Any:
    """Stack samples of ``space`` into one batched sample (a list for unregistered spaces)."""
    return list(items)


@concatenate.register(Box)
@concatenate.register(Discrete)
@concatenate.register(MultiDiscrete)
@concatenate.register(MultiBinary)
def _concatenate_array(space: Space[Any], items: Iterable[Any]) -> NDArray[Any]:
    rows = list(items)
    if not rows:
        raise ValueError("need at least one sample to concatenate")
    # One array from the list: several times faster than np.stack for small samples, and it
    # refuses samples of different shapes just the same.
    return np.array(rows)


@concatenate.register
def _concatenate_dict(space: Dict, items: Iterable[Any]) -> dict[Any, Any]:
    rows = list(items)
    return {key: concatenate(sub, [row[key] for row in rows]) for key, sub in space.spaces.items()}


@concatenate.register
def _concatenate_tuple(space: Tuple, items: Iterable[Any]) -> tuple[Any, ...]:
    rows = list(items)
    return tuple(concatenate(sub, [row[i] for row in rows]) for i, sub in enumerate(space.spaces))


# -- iterate ----------------------------------------------------------------------------------


@singledispatch
def iterate(space: Space[Any], batch: Any) -> Iterator[Any]:
    """Iterate over the samples in a batch (inverse of ``concatenate``)."""
    return iter(batch)


def _iterate_composite(space: Dict | Tuple, batch: Any) -> Iterator[Any]:
    """Check the batch now (errors surface on the call), then yield its rows lazily."""
    subs = children(space)
    columns: list[list[Any] | None] = [
        list(iterate(sub, value)) if holds_data(sub) else None
        for sub, value in zip(subs, _child_values(space, batch), strict=True)
    ]
    lengths = {len(col) for col in columns if col is not None}
    if not lengths:
        raise ValueError(f"Cannot iterate {space!r}: it has no sub-space holding data.")
    if len(lengths) > 1:
        raise ValueError(
            f"Cannot iterate {space!r}: its sub-spaces hold different numbers of samples "
            f"{sorted(lengths)}."
        )
    (count,) = lengths
    fillers = [
        None if col is not None else zero_sample(sub)
        for sub, col in zip(subs, columns, strict=True)
    ]
    return _iterate_rows(space, columns, fillers, count)


def _iterate_rows(
    space: Dict | Tuple, columns: list[list[Any] | None], fillers: list[Any], count: int
) -> Iterator[Any]:
    for i in range(count):
        yield _rebuild(
            space,
            (
                col[i] if col is not None else filler
                for col, filler in zip(columns, fillers, strict=True)
            ),
        )


@iterate.register
def _iterate_dict(space: Dict, batch: Any) -> Iterator[Any]:
    if not isinstance(batch, Mapping):
        return iter(batch)
    return _iterate_composite(space, batch)


@iterate.register
def _iterate_tuple(space: Tuple, batch: Any) -> Iterator[Any]:
    if not isinstance(batch, tuple):
        return iter(batch)
    return _iterate_composite(space, batch)


# -- zero_sample ------------------------------------------------------------------------------


@singledispatch
def zero_sample(space: Space[Any]) -> Any:
    """A fixed, valid "zero" element of ``space``."""
    raise TypeError(
        f"zero_sample is not defined for {type(space).__name__}; "
        f"register an implementation with zero_sample.register({type(space).__name__})."
    )


@zero_sample.register
def _zero_box(space: Box) -> NDArray[Any]:
    return space.zero()


@zero_sample.register
def _zero_discrete(space: Discrete) -> np.intp:
    return np.intp(space.start)


@zero_sample.register
def _zero_multi_discrete(space: MultiDiscrete) -> NDArray[Any]:
    return space.start.astype(space.dtype)


@zero_sample.register
def _zero_multi_binary(space: MultiBinary) -> NDArray[np.int8]:
    return np.zeros(space.n, dtype=np.int8)


@zero_sample.register
def _zero_dict(space: Dict) -> dict[Any, Any]:
    return {key: zero_sample(sub) for key, sub in space.spaces.items()}


@zero_sample.register
def _zero_tuple(space: Tuple) -> tuple[Any, ...]:
    return tuple(zero_sample(sub) for sub in space.spaces)

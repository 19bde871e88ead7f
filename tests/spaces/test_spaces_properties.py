"""Hypothesis property tests over every space type."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sekai.spaces import (
    Box,
    Dict,
    Discrete,
    MaskedBox,
    MultiBinary,
    MultiDiscrete,
    Sequence,
    Space,
    Tuple,
    batch_space,
    concatenate,
    flatdim,
    flatten,
    flatten_space,
    iterate,
    space_from_jsonable,
    unflatten,
)
from sekai.spaces.sequence import holds_data
from sekai.testing import assert_trees_equal

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(0, 2**32 - 1)
shapes = st.lists(st.integers(1, 3), max_size=2).map(tuple)

FLOAT_DTYPES = [np.float32, np.float64]
INT_DTYPES = [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64]


# -- strategies -------------------------------------------------------------------------------


@st.composite
def float_bounds(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    finite = st.floats(-100, 100, allow_subnormal=False)
    low = draw(hnp.arrays(np.float64, shape, elements=finite))
    width = draw(hnp.arrays(np.float64, shape, elements=st.floats(0, 100, allow_subnormal=False)))
    high = np.asarray(low + width)
    low[draw(hnp.arrays(np.bool_, shape))] = -np.inf
    high[draw(hnp.arrays(np.bool_, shape))] = np.inf
    return low, high


@st.composite
def int_bounds(draw: st.DrawFn, shape: tuple[int, ...], dtype: Any) -> tuple[Any, Any]:
    info = np.iinfo(dtype)
    lo, hi = max(int(info.min), -1000), min(int(info.max), 1000)
    low = draw(hnp.arrays(np.int64, shape, elements=st.integers(lo, hi)))
    width = draw(hnp.arrays(np.int64, shape, elements=st.integers(0, 20)))
    return low, np.minimum(low + width, hi)


@st.composite
def boxes(draw: st.DrawFn) -> Box:
    shape = draw(shapes)
    dtype = draw(st.sampled_from(FLOAT_DTYPES + INT_DTYPES))
    if np.dtype(dtype).kind == "f":
        low, high = draw(float_bounds(shape))
    else:
        low, high = draw(int_bounds(shape, dtype))
    return Box(low, high, shape, dtype)


@st.composite
def discretes(draw: st.DrawFn) -> Discrete:
    return Discrete(draw(st.integers(1, 6)), start=draw(st.integers(-3, 3)))


@st.composite
def multi_discretes(draw: st.DrawFn) -> MultiDiscrete:
    shape = draw(st.sampled_from([(0,), (1,), (3,), (2, 2)]))
    dtype = draw(st.sampled_from([np.int64, np.int32, np.int8, np.uint8]))
    nvec = draw(hnp.arrays(np.int64, shape, elements=st.integers(1, 4)))
    lowest = 0 if np.dtype(dtype).kind == "u" else -2
    start = draw(hnp.arrays(np.int64, shape, elements=st.integers(lowest, 2)))
    return MultiDiscrete(nvec, dtype=dtype, start=start)


@st.composite
def multi_binaries(draw: st.DrawFn) -> MultiBinary:
    return MultiBinary(draw(st.integers(0, 4) | st.tuples(st.integers(1, 3), st.integers(1, 3))))


@st.composite
def masked_boxes(draw: st.DrawFn) -> MaskedBox:
    shape = draw(st.sampled_from([(), (2,), (2, 2)]))
    dtype = draw(st.sampled_from([np.float32, np.float64, np.int16]))
    if np.dtype(dtype).kind == "f":
        low = draw(st.floats(-10, 10, allow_subnormal=False))
        high = low + draw(st.floats(0, 10, allow_subnormal=False))
    else:
        low = draw(st.integers(-10, 10))
        high = low + draw(st.integers(0, 10))
    fill = draw(st.sampled_from([None, high]))
    return MaskedBox(low, high, shape, max_size=draw(st.integers(1, 3)), dtype=dtype,
                     fill_value=fill)  # fmt: skip


keys = st.text(alphabet="abcxyz", min_size=1, max_size=3)
leaves = st.one_of(boxes(), discretes(), multi_discretes(), multi_binaries(), masked_boxes())


def composites(children: st.SearchStrategy[Space]) -> st.SearchStrategy[Space]:
    return st.one_of(
        st.dictionaries(keys, children, max_size=3).map(Dict),
        st.lists(children, max_size=3).map(Tuple),
    )


flattenable = st.recursive(leaves, composites, max_leaves=5)


@st.composite
def sequences(draw: st.DrawFn) -> Sequence:
    feature = draw(flattenable)
    stack = draw(st.booleans()) and holds_data(feature)
    max_length = draw(st.none() | st.integers(0, 3))
    return Sequence(feature, max_length=max_length, stack=stack)


any_space = st.recursive(st.one_of(leaves, sequences()), composites, max_leaves=5)


# -- helpers ----------------------------------------------------------------------------------


def without_float64(tree: Any) -> Any:
    """``tree`` with each float64 array replaced by None (to compare the rest exactly)."""
    if isinstance(tree, dict):
        return {key: without_float64(value) for key, value in tree.items()}
    if isinstance(tree, tuple):
        return tuple(without_float64(value) for value in tree)
    if isinstance(tree, np.ndarray) and tree.dtype == np.float64:
        return None
    return tree


def fresh_copy(space: Space) -> Space:
    return space_from_jsonable(json.loads(json.dumps(space.to_jsonable())))


def draw_mask(data: st.DataObject, space: Space) -> Any:
    """A random valid mask for ``space`` (always leaves at least one value allowed)."""
    if isinstance(space, MaskedBox):
        return data.draw(hnp.arrays(np.int8, (space.max_size,), elements=st.integers(0, 1)))
    if isinstance(space, Dict):
        chosen = data.draw(st.lists(st.sampled_from(list(space.spaces)), unique=True)
                           if len(space) else st.just([]))  # fmt: skip
        return {k: draw_mask(data, space[k]) if data.draw(st.booleans()) else None for k in chosen}
    if isinstance(space, Tuple):
        return tuple(
            draw_mask(data, sub) if data.draw(st.booleans()) else None for sub in space.spaces
        )
    if isinstance(space, Sequence):
        top = 3 if space.max_length is None else space.max_length
        length = data.draw(st.none() | st.integers(0, top))
        return length, draw_mask(data, space.feature_space) if data.draw(st.booleans()) else None
    if isinstance(space, Box):
        shape = data.draw(st.sampled_from([space.shape, ()]))
        return data.draw(hnp.arrays(np.int8, shape, elements=st.integers(0, 1)))
    if isinstance(space, Discrete):
        return _flags(data, space.n)
    if isinstance(space, MultiDiscrete):
        entries = [_flags(data, int(n)) for n in space.nvec.reshape(-1)]
        if data.draw(st.booleans()):
            width = int(space.nvec.max()) if space.nvec.size else 0
            padded = data.draw(
                hnp.arrays(np.int8, (*space.shape, width), elements=st.integers(0, 1))
            )
            for idx, flags in zip(np.ndindex(space.shape), entries, strict=True):
                padded[idx][: len(flags)] = flags
            return padded
        return _nest(entries, space.shape)
    if isinstance(space, MultiBinary):
        return data.draw(hnp.arrays(np.int8, space.n, elements=st.integers(-1, 1)))
    raise AssertionError(space)


def _flags(data: st.DataObject, n: int) -> np.ndarray:
    flags = data.draw(hnp.arrays(np.int8, (n,), elements=st.integers(0, 1)))
    flags[data.draw(st.integers(0, n - 1))] = 1
    return flags


def _nest(entries: list[np.ndarray], shape: tuple[int, ...]) -> Any:
    if len(shape) == 1:
        return tuple(entries)
    step = len(entries) // shape[0]
    return tuple(_nest(entries[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0]))


def respects(space: Space, mask: Any, x: Any) -> bool:
    """Whether the masked sample ``x`` obeys ``mask``."""
    if mask is None:
        return True
    if isinstance(space, MaskedBox):
        return bool(np.array_equal(x["mask"], (mask != 0).astype(np.int8)))
    if isinstance(space, Dict):
        return all(respects(space[k], m, x[k]) for k, m in mask.items())
    if isinstance(space, Tuple):
        return all(respects(s, m, v) for s, m, v in zip(space.spaces, mask, x, strict=True))
    if isinstance(space, Sequence):
        length, feature_mask = mask
        items = space.elements(x)
        return (length is None or len(items) == length) and all(
            respects(space.feature_space, feature_mask, item) for item in items
        )
    if isinstance(space, Box):
        off = np.broadcast_to(mask, space.shape) == 0
        return bool(np.array_equal(x[off], space.zero()[off]))
    if isinstance(space, Discrete):
        return bool(mask[int(x) - space.start] == 1)
    if isinstance(space, MultiDiscrete):
        entries = space._mask_entries(mask)
        offsets = (x - space.start).reshape(-1)
        return all(flags[o] == 1 for flags, o in zip(entries, offsets, strict=True))
    if isinstance(space, MultiBinary):
        return bool(np.all(x[mask == 1] == 1) and np.all(x[mask == 0] == 0))
    raise AssertionError(space)


# -- properties -------------------------------------------------------------------------------


@SETTINGS
@given(any_space, seeds)
def test_sample_is_contained(space: Space, seed: int) -> None:
    space.seed(seed)
    for _ in range(3):
        assert space.contains(space.sample())


@SETTINGS
@given(any_space, seeds, st.data())
def test_masked_sample_is_contained_and_allowed(space: Space, seed: int, data: Any) -> None:
    space.seed(seed)
    mask = draw_mask(data, space)
    x = space.sample(mask=mask)
    assert space.contains(x)
    assert respects(space, mask, x)


@SETTINGS
@given(flattenable, seeds)
def test_flatten_round_trip(space: Space, seed: int) -> None:
    space.seed(seed)
    x = space.sample()
    flat = flatten(space, x)
    assert flat.dtype == np.float32 and flat.shape == (flatdim(space),)
    assert flat in flatten_space(space)
    back = unflatten(space, flat)
    assert space.contains(back)
    # flatten casts to float32: float64 values come back rounded, everything else exactly.
    assert_trees_equal(back, x, rtol=1e-6, atol=1e-6)
    assert_trees_equal(without_float64(back), without_float64(x))


@SETTINGS
@given(
    flattenable,
    st.sampled_from([np.float16, np.float32, np.float64]),
    st.data(),
)
def test_unflatten_of_any_vector_is_contained(space: Space, dtype: Any, data: Any) -> None:
    # A policy's raw output of the flat size always decodes to a member (NaN and inf included).
    vector = data.draw(hnp.arrays(dtype, (flatdim(space),)))
    assert space.contains(unflatten(space, vector))


@SETTINGS
@given(
    st.one_of(discretes(), multi_discretes(), multi_binaries()).flatmap(
        lambda space: st.tuples(
            st.just(space),
            hnp.arrays(np.float64, (flatdim(space),), elements=st.floats(-0.49, 0.49)),
        )
    ),
    seeds,
)
def test_unflatten_of_a_noisy_encoding_is_the_encoded_member(case: Any, seed: int) -> None:
    # Soft outputs near an encoding decode to the member it encodes.
    space, noise = case
    space.seed(seed)
    x = space.sample()
    assert_trees_equal(unflatten(space, flatten(space, x) + noise), x)


@SETTINGS
@given(any_space, seeds, st.integers(1, 3))
def test_batch_concatenate_iterate_round_trip(space: Space, seed: int, n: int) -> None:
    space.seed(seed)
    items = [space.sample() for _ in range(n)]
    batch = concatenate(space, items)
    assert batch_space(space, n).contains(batch)
    if isinstance(space, (Dict, Tuple)) and not holds_data(space):
        return
    rows = list(iterate(space, batch))
    assert len(rows) == n
    assert_trees_equal(rows, items)


@SETTINGS
@given(any_space)
def test_jsonable_round_trip(space: Space) -> None:
    data = json.loads(json.dumps(space.to_jsonable()))
    rebuilt = space_from_jsonable(data)
    assert rebuilt == space
    assert type(rebuilt) is type(space)
    assert repr(rebuilt) == repr(space)


@SETTINGS
@given(any_space, seeds)
def test_seeding_is_deterministic(space: Space, seed: int) -> None:
    other = fresh_copy(space)
    assert space.seed(seed) == seed
    other.seed(seed)
    first = [space.sample() for _ in range(3)]
    assert_trees_equal(first, [other.sample() for _ in first])
    space.seed(seed)
    assert_trees_equal(first, [space.sample() for _ in first])


@SETTINGS
@given(st.lists(leaves, min_size=1, max_size=3), seeds)
def test_composite_seeding_derives_child_seeds(children: list[Space], seed: int) -> None:
    as_tuple = Tuple(children, seed=seed)
    as_dict = Dict({str(i): fresh_copy(c) for i, c in enumerate(children)}, seed=seed)
    # Same seed, same derivation: the i-th child of each draws the same values.
    for i, child in enumerate(as_tuple.spaces):
        assert_trees_equal(child.sample(), as_dict[str(i)].sample())

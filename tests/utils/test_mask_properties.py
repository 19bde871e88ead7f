"""Property tests: masked sampling only returns allowed actions; flat mask layouts."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sekai.spaces import Box, Discrete, MultiBinary, MultiDiscrete
from sekai.utils.masking import action_mask_space, flatten_action_mask

flags = st.lists(st.integers(0, 1), min_size=1, max_size=8).filter(any)


@settings(max_examples=60, deadline=None)
@given(mask=flags, start=st.integers(-3, 3), seed=st.integers(0, 2**32 - 1))
def test_discrete_masked_samples_are_allowed(mask: list[int], start: int, seed: int) -> None:
    space = Discrete(len(mask), seed=seed, start=start)
    m = np.array(mask, np.int8)
    for _ in range(10):
        assert m[int(space.sample(mask=m)) - start] == 1
    flat = flatten_action_mask(space, m)
    assert flat.dtype == np.bool_ and flat.tolist() == [bool(f) for f in mask]
    assert action_mask_space(space).contains(flat.astype(np.int8))


@settings(max_examples=60, deadline=None)
@given(masks=st.lists(flags, min_size=1, max_size=4), seed=st.integers(0, 2**32 - 1))
def test_multidiscrete_masked_samples_are_allowed(masks: list[list[int]], seed: int) -> None:
    nvec = [len(m) for m in masks]
    space = MultiDiscrete(nvec, seed=seed)
    as_tuple = tuple(np.array(m, np.int8) for m in masks)
    padded = np.zeros((len(nvec), max(nvec)), np.int8)
    for i, m in enumerate(masks):
        padded[i, : len(m)] = m
    for mask in (as_tuple, padded):
        for _ in range(5):
            sample = space.sample(mask=mask)
            assert all(masks[i][v] == 1 for i, v in enumerate(sample.tolist()))
        flat = flatten_action_mask(space, mask)
        assert flat.tolist() == [bool(f) for m in masks for f in m]
        assert flat.shape == (sum(nvec),)


@settings(max_examples=60, deadline=None)
@given(
    mask=st.lists(st.integers(0, 1), min_size=3, max_size=3),
    low=st.floats(-5, 0.5),
    seed=st.integers(0, 2**32 - 1),
)
def test_box_masked_components_are_zero(mask: list[int], low: float, seed: int) -> None:
    space = Box(low, low + 2.0, (2, 3), np.float32, seed=seed)
    m = np.array(mask, np.int8)  # broadcasts over the rows
    zero = space.zero()
    for _ in range(5):
        sample = space.sample(mask=m)
        assert space.contains(sample)
        blocked = np.broadcast_to(m, (2, 3)) == 0
        np.testing.assert_array_equal(sample[blocked], zero[blocked])
    flat = flatten_action_mask(space, m)
    assert flat.tolist() == [bool(f) for f in mask] * 2
    assert action_mask_space(space) == MultiBinary(6)


@settings(max_examples=40, deadline=None)
@given(mask=st.lists(st.integers(-1, 1), min_size=1, max_size=6), seed=st.integers(0, 2**32 - 1))
def test_multibinary_mask_forces_values(mask: list[int], seed: int) -> None:
    space = MultiBinary(len(mask), seed=seed)
    sample = space.sample(mask=np.array(mask, np.int8))
    for flag, value in zip(mask, sample.tolist(), strict=True):
        assert value == flag if flag in (0, 1) else value in (0, 1)


@pytest.mark.parametrize(
    ("space", "mask"),
    [
        (Discrete(3), np.ones(4, np.int8)),
        (Discrete(3), np.ones((2, 2), np.int8)),
        (MultiDiscrete([2, 3]), (np.ones(2, np.int8), np.ones(2, np.int8))),
        (MultiDiscrete([2, 3]), np.ones((2, 2), np.int8)),
        (Box(0.0, 1.0, (3,)), np.ones(2, np.int8)),
    ],
)
def test_wrong_mask_shapes_raise_value_error(space: Any, mask: Any) -> None:
    with pytest.raises(ValueError):
        flatten_action_mask(space, mask)
    with pytest.raises(ValueError):
        space.sample(mask=mask)

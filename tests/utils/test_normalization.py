"""ObservationNormalizer: stats tree, output spaces, updates, fast paths and state."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest

from sekai.spaces import Box, Dict, Discrete, MaskedBox, MultiBinary, Sequence, Tuple
from sekai.utils.normalization import ObservationNormalizer, StatsKind
from sekai.utils.running_stats import ExponentialMovingStats, RunningMeanStd

NESTED = Dict(
    {
        "a": Box(-1.0, 1.0, (2,), np.float32),
        "b": Tuple([Discrete(3), MaskedBox(0.0, 5.0, (2,), max_size=3)]),
        "c": MultiBinary(2),
    }
)


def test_stats_and_output_space_mirror_the_space() -> None:
    norm = ObservationNormalizer(NESTED, clip=3.0)
    assert isinstance(norm.stats["a"], RunningMeanStd) and norm.stats["a"].shape == (2,)
    assert norm.stats["b"][0] is None and norm.stats["c"] is None
    assert isinstance(norm.stats["b"][1], RunningMeanStd) and norm.stats["b"][1].shape == (2,)
    assert norm.output_space == Dict(
        {
            "a": Box(-3.0, 3.0, (2,), np.float64),
            "b": Tuple([Discrete(3), MaskedBox(-3.0, 3.0, (2,), max_size=3, dtype=np.float64)]),
            "c": MultiBinary(2),
        }
    )
    unclipped = ObservationNormalizer(Box(0, 255, (2, 2), np.uint8), stats="ewm", halflife=5)
    assert unclipped.output_space == Box(-np.inf, np.inf, (2, 2), np.float64)
    assert isinstance(unclipped.stats, ExponentialMovingStats) and unclipped.stats.halflife == 5


def test_box_batch_updates_with_all_rows_and_normalises() -> None:
    norm = ObservationNormalizer(Box(-np.inf, np.inf, (2,)))
    batch = np.array([[1.0, 100.0], [3.0, 300.0], [5.0, 200.0]], np.float32)
    out = norm(batch)
    reference = RunningMeanStd((2,))
    reference.update(batch)
    assert out.dtype == np.float64 and out.shape == (3, 2)
    np.testing.assert_allclose(out, reference.normalize(batch), rtol=1e-12)
    assert norm.stats.count == pytest.approx(3.0001)
    frozen = norm(batch, update=False)
    assert norm.stats.count == pytest.approx(3.0001)
    np.testing.assert_allclose(frozen, out, rtol=1e-12)


def test_ewm_counts_each_call_once() -> None:
    norm = ObservationNormalizer(Box(-np.inf, np.inf, ()), stats="ewm", halflife=2.0)
    reference = ExponentialMovingStats(halflife=2.0)
    rng = np.random.default_rng(0)
    for _ in range(5):
        batch = rng.normal(size=4)
        out = norm(batch)
        reference.update_from_moments(batch.mean(), batch.var(), 1)
        np.testing.assert_allclose(out, reference.normalize(batch), rtol=1e-12)
    assert norm.stats.count == 5 and norm.stats.weight == pytest.approx(reference.weight)


def test_masked_box_uses_occupied_rows_only() -> None:
    space = MaskedBox(-10.0, 10.0, (2,), max_size=3, fill_value=7.0)
    norm = ObservationNormalizer(space, clip=1.5)
    values = np.array([[[1, 2], [7, 7], [3, 6]], [[7, 7], [5, 4], [7, 7]]], np.float32)
    mask = np.array([[1, 0, 1], [0, 1, 0]], np.int8)
    out = norm({"values": values, "mask": mask})
    assert out["mask"] is mask
    occupied = np.array([[1, 2], [3, 6], [5, 4]], np.float64)
    reference = RunningMeanStd((2,))
    reference.update(occupied)
    expected = np.clip(reference.normalize(values), -1.5, 1.5)
    expected[mask == 0] = 0.0
    np.testing.assert_allclose(out["values"], expected, rtol=1e-12)
    empty = {"values": np.full((1, 3, 2), 7.0), "mask": np.zeros((1, 3), np.int8)}
    count = norm.stats.count
    assert norm(empty)["values"].tolist() == [[[0.0, 0.0]] * 3]
    assert norm.stats.count == count  # nothing occupied: no update


@pytest.mark.parametrize("stats", ["running", "ewm"])
@pytest.mark.parametrize("shape", [(4,), (40,), (3, 2)])
@pytest.mark.parametrize("clip", [None, 1.0])
def test_single_observation_fast_paths_equal_a_batch_of_one_bit_for_bit(
    stats: StatsKind, shape: tuple[int, ...], clip: float | None
) -> None:
    space = Box(-np.inf, np.inf, shape)
    fast = ObservationNormalizer(space, stats=stats, halflife=5.0, clip=clip)
    slow = ObservationNormalizer(space, stats=stats, halflife=5.0, clip=clip)
    rng = np.random.default_rng(3)
    for i in range(60):
        x = (rng.normal(size=shape) * 10 + 1e4).astype(np.float32)
        update = i % 7 != 3
        got, want = fast._one(x, update), slow(x[None], update=update)[0]
        assert got.dtype == want.dtype == np.float64
        np.testing.assert_array_equal(got, want)
        if i % 10 == 0:  # reading the statistics mid-run gives the current values
            np.testing.assert_array_equal(fast.stats.mean, slow.stats.mean)
    np.testing.assert_array_equal(fast.stats.mean, slow.stats.mean)
    np.testing.assert_array_equal(fast.stats.var, slow.stats.var)
    assert fast.stats.count == slow.stats.count


@pytest.mark.parametrize("stats", ["running", "ewm"])
def test_statistics_stay_coherent_around_the_single_observation_path(stats: StatsKind) -> None:
    space = Box(-np.inf, np.inf, (3,))
    fast = ObservationNormalizer(space, stats=stats, halflife=4.0)
    slow = ObservationNormalizer(space, stats=stats, halflife=4.0)
    rng = np.random.default_rng(5)
    xs = rng.normal(size=(12, 3)) + 50.0
    for x in xs[:4]:
        fast._one(x, True)
        slow(x[None])
    # Direct use of the statistics object between single observations.
    batch = rng.normal(size=(5, 3))
    fast.stats.update(batch)
    slow.stats.update(batch)
    for x in xs[4:8]:
        np.testing.assert_array_equal(fast._one(x, True), slow(x[None])[0])
    restored = pickle.loads(pickle.dumps(fast))
    state = fast.state_dict()
    for x in xs[8:]:
        np.testing.assert_array_equal(fast._one(x, True), slow(x[None])[0])
    fresh = ObservationNormalizer(space, stats=stats, halflife=4.0)
    fresh.load_state_dict(state)
    for x in xs[8:]:
        np.testing.assert_array_equal(restored._one(x, True), fresh._one(x, True))
    np.testing.assert_array_equal(restored.stats.var, fast.stats.var)
    fast.stats.mean = np.full(3, 7.0)  # assigning replaces the values outright
    np.testing.assert_array_equal(fast.stats.mean, [7.0, 7.0, 7.0])
    np.testing.assert_array_equal(fast.stats.var, slow.stats.var)


def test_single_observation_other_shapes_and_inputs() -> None:
    scalar = ObservationNormalizer(Box(-np.inf, np.inf, ()))
    assert scalar._one(np.float32(3.0), True).shape == ()
    tree = ObservationNormalizer(NESTED)
    obs = NESTED.sample()
    out = tree._one(obs, True)
    assert out["b"][0] == obs["b"][0] and out["c"] is obs["c"]
    assert out["a"].tolist() == [0.0, 0.0]  # the first sample sets the mean
    listed = ObservationNormalizer(Box(-np.inf, np.inf, (2,)))
    np.testing.assert_array_equal(listed._one([1.0, 2.0], True), [0.0, 0.0])
    with pytest.raises(ValueError, match="shape"):
        listed._one(np.zeros(3), True)


def test_state_dict_nesting_and_round_trip() -> None:
    norm = ObservationNormalizer(NESTED)
    batch = {
        "a": np.array([[0.5, -0.5], [0.1, 0.2]], np.float32),
        "b": (np.array([0, 2]), {"values": np.ones((2, 3, 2)), "mask": np.ones((2, 3), np.int8)}),
        "c": np.zeros((2, 2), np.int8),
    }
    norm(batch)
    state = norm.state_dict()
    assert set(state) == {"a", "b", "c"} and state["c"] is None
    assert isinstance(state["b"], list) and state["b"][0] is None
    other = ObservationNormalizer(NESTED)
    other.load_state_dict(state)
    np.testing.assert_array_equal(other.stats["a"].mean, norm.stats["a"].mean)
    assert other.stats["b"][1].count == norm.stats["b"][1].count
    np.testing.assert_allclose(other(batch, update=False)["a"], norm(batch, update=False)["a"])


@pytest.mark.parametrize(
    ("space", "kwargs", "error"),
    [
        (Box(0.0, 1.0), {"stats": "mean"}, ValueError),
        (Box(0.0, 1.0), {"clip": 0.0}, ValueError),
        (Box(0.0, 1.0), {"clip": -2.0}, ValueError),
        (Box(0.0, 1.0), {"stats": "ewm", "halflife": 0.0}, ValueError),
        (Box(0.0, 1.0), {"epsilon": -1e-8}, ValueError),
        (Discrete(3), {}, TypeError),
        (Dict({"s": Sequence(Box(0.0, 1.0)), "d": Discrete(2)}), {}, TypeError),
    ],
)
def test_rejects_bad_arguments(space: Any, kwargs: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        ObservationNormalizer(space, **kwargs)

"""RunningMeanStd and ExponentialMovingStats: the numerical rules, state and reprs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sekai.utils
from sekai.utils import ExponentialMovingStats, RunningMeanStd


def test_exported_from_sekai_utils_in_spec_order() -> None:
    assert sekai.utils.__all__ == [
        "np_random", "make_seed_sequence", "RunningMeanStd", "ExponentialMovingStats",
        "get_action_mask", "supports_action_mask", "action_mask_space", "flatten_action_mask",
        "Progress",  # not in the spec: added after its names
    ]  # fmt: skip


def test_running_initial_state_and_repr() -> None:
    rms = RunningMeanStd(shape=(2,))
    assert rms.mean.tolist() == [0.0, 0.0] and rms.var.tolist() == [1.0, 1.0]
    assert rms.mean.dtype == rms.var.dtype == np.float64
    assert rms.count == 1e-4
    assert repr(rms) == "RunningMeanStd(shape=(2,), count=0.0001)"
    rms.update(np.ones((3, 2)))
    assert repr(rms) == "RunningMeanStd(shape=(2,), count=3)"


def test_running_first_batch_sets_the_mean_and_keeps_prior_variance_weight() -> None:
    rms = RunningMeanStd()
    rms.update(np.array([1e4 + 3.0]))
    assert float(rms.mean) == 1e4 + 3.0
    assert float(rms.var) == pytest.approx(1e-4 / (1 + 1e-4), rel=1e-12)
    batch = np.array([1e4, 1e4 + 2.0, 1e4 + 4.0])
    fresh = RunningMeanStd()
    fresh.update(batch)
    assert float(fresh.mean) == pytest.approx(1e4 + 2.0, rel=1e-15)
    # var = (1 * eps + batch.var() * 3) / (3 + eps): no mean**2 * eps / count term.
    assert float(fresh.var) == pytest.approx((1e-4 + batch.var() * 3) / (3 + 1e-4), rel=1e-12)
    assert abs(float(fresh.var) - batch.var()) < 1e-3


def test_running_chan_update_matches_the_formula_and_pooled_data() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.normal(5.0, 2.0, (50, 3)), rng.normal(-1.0, 0.5, (20, 3))
    rms = RunningMeanStd((3,))
    rms.update(a)
    mean, var, count = rms.mean.copy(), rms.var.copy(), rms.count
    rms.update(b)
    delta = b.mean(0) - mean
    total = count + 20
    m2 = var * count + b.var(0) * 20 + delta**2 * count * 20 / total
    np.testing.assert_allclose(rms.mean, mean + delta * 20 / total, rtol=1e-12)
    np.testing.assert_allclose(rms.var, m2 / total, rtol=1e-12)
    assert rms.count == total
    pooled = np.concatenate([a, b])
    np.testing.assert_allclose(rms.mean, pooled.mean(0), rtol=1e-6)
    np.testing.assert_allclose(rms.var, pooled.var(0), rtol=1e-4)


def test_running_one_at_a_time_equals_whole_batch() -> None:
    data = np.random.default_rng(1).normal(100.0, 3.0, (40, 2))
    one, whole = RunningMeanStd((2,)), RunningMeanStd((2,))
    for row in data:
        one.update(row[None])
    whole.update(data)
    # Not bit-equal: one at a time, the prior's pseudo-count stays on the first sample.
    np.testing.assert_allclose(one.mean, whole.mean, rtol=1e-6)
    np.testing.assert_allclose(one.var, whole.var, rtol=1e-4)
    assert one.count == pytest.approx(whole.count)


def test_running_ignores_empty_batches_and_nonpositive_counts() -> None:
    rms = RunningMeanStd((2,))
    rms.update(np.zeros((0, 2)))
    rms.update_from_moments(np.ones(2), np.ones(2), 0)
    rms.update_from_moments(np.ones(2), np.ones(2), -3)
    assert rms.count == 1e-4 and rms.mean.tolist() == [0.0, 0.0]


def test_running_std_normalize_and_state_dict_round_trip() -> None:
    rms = RunningMeanStd((2,))
    rms.update(np.array([[1.0, 10.0], [3.0, 30.0]]))
    np.testing.assert_allclose(rms.std, np.sqrt(rms.var))
    x = np.array([2.0, 5.0], np.float32)
    out = rms.normalize(x)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, (x - rms.mean) / np.sqrt(rms.var + 1e-8))
    state = rms.state_dict()
    assert set(state) == {"mean", "var", "count"} and type(state["count"]) is float
    state["mean"][0] = 99.0  # a copy
    assert rms.mean[0] == 2.0
    other = RunningMeanStd((2,))
    other.load_state_dict(rms.state_dict())
    assert other.state_dict()["count"] == rms.count
    np.testing.assert_array_equal(other.var, rms.var)
    fresh = RunningMeanStd((2,))
    fresh.load_state_dict(RunningMeanStd((2,)).state_dict())
    fresh.update(np.array([[7.0, 8.0]]))
    assert fresh.mean.tolist() == [7.0, 8.0]  # the next batch still sets the mean


@pytest.mark.parametrize("batch", [np.zeros(3), np.zeros((2, 3)), np.float64(1.0)])
def test_running_rejects_wrong_batch_shapes(batch: np.ndarray) -> None:
    with pytest.raises(ValueError, match="batch of shape"):
        RunningMeanStd((2,)).update(batch)


def ewm_stream(halflife: float, data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    stats = ExponentialMovingStats(halflife=halflife)
    means, variances = [], []
    for x in data:
        stats.update(np.array([x]))
        means.append(float(stats.mean))
        variances.append(float(stats.var))
    return np.array(means), np.array(variances)


@pytest.mark.parametrize("halflife", [1.0, 7.5, 300.0])
def test_ewm_equals_pandas_adjusted_mean_and_biased_var(halflife: float) -> None:
    data = np.random.default_rng(2).normal(1e4, 5.0, 400).cumsum() / 10
    means, variances = ewm_stream(halflife, data)
    ewm = pd.Series(data).ewm(halflife=halflife, adjust=True)
    np.testing.assert_allclose(means, ewm.mean().to_numpy(), rtol=1e-12)
    expected = ewm.var(bias=True).to_numpy()
    np.testing.assert_allclose(variances[1:], expected[1:], rtol=1e-7)
    assert variances[0] == 0.0 and expected[0] == 0.0
    unbiased = ewm.var(bias=False).to_numpy()
    assert not np.allclose(variances[1:], unbiased[1:], rtol=1e-3)


def test_ewm_batches_count_as_samples_arriving_together() -> None:
    stats = ExponentialMovingStats(halflife=4.0)
    stats.update(np.array([1.0, 2.0, 3.0]))
    assert stats.count == 3.0 and stats.weight == 3.0
    assert float(stats.mean) == 2.0 and float(stats.var) == pytest.approx(2 / 3)
    stats.update(np.array([10.0, 12.0]))
    decay = 0.5 ** (1 / 4)
    weight = 3 * decay**2 + 2
    w = 2 / weight
    assert stats.weight == pytest.approx(weight)
    assert float(stats.mean) == pytest.approx(2.0 + w * 9.0)
    assert float(stats.var) == pytest.approx((1 - w) * 2 / 3 + w * 1.0 + w * (1 - w) * 81.0)
    # Equal to a pandas ewm whose samples share a timestamp-free weighting: compare with
    # the same samples weighted by hand.
    weights = np.array([decay**2] * 3 + [1.0] * 2)
    values = np.array([1.0, 2.0, 3.0, 10.0, 12.0])
    mean = np.average(values, weights=weights)
    assert float(stats.mean) == pytest.approx(mean)
    assert float(stats.var) == pytest.approx(np.average((values - mean) ** 2, weights=weights))


def test_ewm_state_repr_and_validation() -> None:
    stats = ExponentialMovingStats(shape=(), halflife=10)
    assert repr(stats) == "ExponentialMovingStats(shape=(), halflife=10, count=0)"
    assert stats.decay == 0.5 ** (1 / 10)
    assert float(stats.mean) == 0.0 and float(stats.var) == 1.0 and stats.weight == 0.0
    stats.update(np.zeros(0))
    assert stats.count == 0
    stats.update(np.array([1.0, 5.0]))
    state = stats.state_dict()
    assert set(state) == {"mean", "var", "count", "halflife", "weight"}
    other = ExponentialMovingStats(halflife=3)
    other.load_state_dict(state)
    assert other.halflife == 10 and other.weight == state["weight"]
    partial = {"mean": np.array(1.0), "var": np.array(2.0), "count": 4.0}
    other.load_state_dict(partial)
    assert other.halflife == 10 and other.weight == 4.0
    np.testing.assert_allclose(stats.std, np.sqrt(stats.var))
    np.testing.assert_allclose(stats.normalize(3.0), (3.0 - 3.0) / np.sqrt(4.0 + 1e-8))
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="halflife"):
            ExponentialMovingStats(halflife=bad)

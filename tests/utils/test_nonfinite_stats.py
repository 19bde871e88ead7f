"""NaN and inf samples: raised by default, or skipped, by the statistics and normalisers."""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import sekai
from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Dict, Discrete, MaskedBox, Tuple
from sekai.testing import assert_trees_equal
from sekai.utils.normalization import ObservationNormalizer, StatsKind
from sekai.utils.running_stats import ExponentialMovingStats, RunningMeanStd
from sekai.vector import SyncVecEnv
from sekai.vector.wrappers import VecNormalizeObservation, VecNormalizeReward
from sekai.wrappers import NormalizeObservation, NormalizeReward

NAN, INF = float("nan"), float("inf")
Stats = RunningMeanStd | ExponentialMovingStats
STATS_CLASSES = [RunningMeanStd, ExponentialMovingStats]
ADVICE = "nonfinite='skip'"


def make_stats(cls: type[Stats], shape: tuple[int, ...] = (), **kwargs: Any) -> Stats:
    if cls is ExponentialMovingStats:
        return ExponentialMovingStats(shape, halflife=3.0, **kwargs)
    return RunningMeanStd(shape, **kwargs)


def assert_same_state(got: Any, want: Any) -> None:
    """Equal statistics states, bit for bit (NaN matching NaN)."""
    assert_trees_equal(got.state_dict(), want.state_dict())


class Scripted(Env[NDArray[np.float64], int]):
    """Plays back ``observations`` (the first on reset) and ``rewards`` (one per step).

    Never terminates, except at the (1-based) step numbers in ``ends``.
    """

    def __init__(
        self,
        observations: Any,
        rewards: Sequence[float] | None = None,
        ends: Sequence[int] = (),
    ) -> None:
        self.observations = np.asarray(observations, dtype=np.float64)
        self.observation_space = Box(-np.inf, np.inf, self.observations.shape[1:], np.float64)
        self.action_space = Discrete(2)
        self.rewards = [0.0] * len(self.observations) if rewards is None else list(rewards)
        self.ends = set(ends)
        self.t = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(self.observations[0].copy(), {})

    def step(self, action: Any) -> Any:
        self.t += 1
        obs = self.observations[min(self.t, len(self.observations) - 1)].copy()
        return StepResult(obs, self.rewards[self.t - 1], self.t in self.ends, False, {})


def play(env: Any, steps: int) -> list[Any]:
    """The reset observation and then ``steps`` step results."""
    return [env.reset(seed=0).observation] + [env.step(0) for _ in range(steps)]


# -- the keyword -------------------------------------------------------------------------------

FACTORIES: list[Callable[..., Any]] = [
    lambda **kw: RunningMeanStd(**kw),
    lambda **kw: ExponentialMovingStats(**kw),
    lambda **kw: ObservationNormalizer(Box(-1.0, 1.0, (2,)), **kw),
    lambda **kw: NormalizeObservation(Scripted([[0.0]]), **kw),
    lambda **kw: NormalizeReward(Scripted([[0.0]]), **kw),
    lambda **kw: VecNormalizeObservation(SyncVecEnv([lambda: Scripted([[0.0]])]), **kw),
    lambda **kw: VecNormalizeReward(SyncVecEnv([lambda: Scripted([[0.0]])]), **kw),
]
NAMES = [
    "RunningMeanStd",
    "ExponentialMovingStats",
    "ObservationNormalizer",
    "NormalizeObservation",
    "NormalizeReward",
    "VecNormalizeObservation",
    "VecNormalizeReward",
]


@pytest.mark.parametrize(("factory", "name"), list(zip(FACTORIES, NAMES, strict=True)), ids=NAMES)
def test_nonfinite_keyword_defaults_to_raise_and_is_validated(
    factory: Callable[..., Any], name: str
) -> None:
    assert factory().nonfinite == "raise"
    assert factory(nonfinite="skip").nonfinite == "skip"
    assert factory(nonfinite="raise").nonfinite == "raise"
    with pytest.raises(ValueError, match=rf"^{name}: nonfinite must be 'raise' or 'skip', got"):
        factory(nonfinite="ignore")
    for bad in (None, 1, True, b"skip"):
        with pytest.raises(TypeError, match=rf"^{name}: nonfinite must be 'raise' or 'skip'"):
            factory(nonfinite=bad)


# -- RunningMeanStd and ExponentialMovingStats --------------------------------------------------


@pytest.mark.parametrize("cls", STATS_CLASSES)
@pytest.mark.parametrize("bad", [NAN, INF, -INF])
def test_update_raises_by_default_and_leaves_the_statistics(cls: type[Stats], bad: float) -> None:
    stats = make_stats(cls, (2,))
    stats.update(np.array([[1.0, 2.0], [3.0, 5.0]]))
    before = make_stats(cls, (2,))
    before.load_state_dict(stats.state_dict())
    batch = np.array([[1.0, bad], [4.0, 4.0], [bad, bad]])
    with pytest.raises(ValueError) as info:
        stats.update(batch)
    message = str(info.value)
    assert message.startswith(f"{cls.__name__}: 3 of the 6 values in this update are not finite")
    assert ADVICE in message
    assert_same_state(stats, before)
    with pytest.raises(ValueError, match=r": 1 of the 2 values in this update is not finite"):
        stats.update(np.array([[bad, 0.0]]))


@pytest.mark.filterwarnings("error")  # skipping NaN/inf emits no warning
@pytest.mark.parametrize("cls", STATS_CLASSES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_skip_equals_the_finite_samples_alone_bit_for_bit(
    cls: type[Stats], shape: tuple[int, ...]
) -> None:
    rng = np.random.default_rng(0)
    skipping, reference = make_stats(cls, shape, nonfinite="skip"), make_stats(cls, shape)
    for step in range(6):
        batch = rng.normal(10.0, 3.0, (5, *shape))
        flat = batch.reshape(5, -1)
        flat[1, -1] = NAN  # one value spoils its whole sample
        if step % 2:
            flat[3, 0] = INF
            flat[4, :] = -INF
        keep = np.isfinite(flat).all(axis=1)
        skipping.update(batch)
        reference.update(batch[keep])
        assert_same_state(skipping, reference)
    prior = 1e-4 if cls is RunningMeanStd else 0.0
    assert reference.count == pytest.approx(30 - 3 * 1 - 3 * 3 + prior)


@pytest.mark.parametrize("cls", STATS_CLASSES)
def test_skip_with_nothing_finite_leaves_the_statistics(cls: type[Stats]) -> None:
    stats = make_stats(cls, (2,), nonfinite="skip")
    fresh = make_stats(cls, (2,))
    stats.update(np.array([[NAN, 1.0], [2.0, INF]]))
    assert_same_state(stats, fresh)
    stats.update(np.array([[7.0, 8.0]]))  # still the first batch: it sets the mean
    assert stats.mean.tolist() == [7.0, 8.0]
    stats.update(np.full((3, 2), NAN))
    stats.update(np.array([[NAN, 0.0]]))
    assert stats.mean.tolist() == [7.0, 8.0] and stats.count == pytest.approx(fresh.count + 1)


@pytest.mark.parametrize("cls", STATS_CLASSES)
def test_batches_of_one_with_nonfinite_samples(cls: type[Stats]) -> None:
    rng = np.random.default_rng(1)
    skipping, reference = make_stats(cls, (3,), nonfinite="skip"), make_stats(cls, (3,))
    for i in range(30):
        x = rng.normal(size=3) + 100.0
        if i % 4 == 1:
            x[i % 3] = (NAN, INF, -INF)[i % 3]
        else:
            reference.update(x[None])
        skipping.update(x[None])
    assert_same_state(skipping, reference)


@pytest.mark.parametrize("cls", STATS_CLASSES)
def test_update_from_moments_checks_mean_variance_and_count(cls: type[Stats]) -> None:
    strict, skipping = make_stats(cls, (2,)), make_stats(cls, (2,), nonfinite="skip")
    for stats in (strict, skipping):
        stats.update_from_moments(np.array([1.0, 2.0]), np.array([0.5, 0.5]), 4)
    snapshot = make_stats(cls, (2,))
    snapshot.load_state_dict(strict.state_dict())
    cases: list[tuple[Any, Any]] = [
        (np.array([NAN, 1.0]), np.array([1.0, 1.0])),
        (np.array([1.0, 1.0]), np.array([1.0, INF])),
        (np.array([INF, 1.0]), INF),
        (np.array([1.0, 1.0]), NAN),
        (np.array([NAN, 1.0]), 0.0),
    ]
    for mean, var in cases:
        with pytest.raises(ValueError, match=rf"^{cls.__name__}: \d of the 2 values") as info:
            strict.update_from_moments(mean, var, 3)
        assert ADVICE in str(info.value)
        skipping.update_from_moments(mean, var, 3)
        assert_same_state(strict, snapshot)
        assert_same_state(skipping, snapshot)
    for stats in (strict, skipping):
        for count in (NAN, INF):
            with pytest.raises(ValueError, match="batch_count must be finite"):
                stats.update_from_moments(np.ones(2), np.ones(2), count)
        # A count <= 0 is a no-op before anything is looked at.
        stats.update_from_moments(np.full(2, NAN), NAN, 0)
        stats.update_from_moments(np.full(2, NAN), NAN, -INF)
        assert_same_state(stats, snapshot)


@pytest.mark.parametrize("cls", STATS_CLASSES)
def test_setting_survives_pickling_and_state_dicts(cls: type[Stats]) -> None:
    stats = make_stats(cls, (2,), nonfinite="skip")
    stats.update(np.array([[1.0, 2.0], [3.0, 1.0]]))
    restored = pickle.loads(pickle.dumps(stats))
    assert restored.nonfinite == "skip"
    restored.update(np.array([[NAN, 0.0]]))
    assert_same_state(restored, stats)
    strict = make_stats(cls, (2,))
    strict.load_state_dict(restored.state_dict())  # a state dict carries no setting
    assert strict.nonfinite == "raise"
    restored.load_state_dict(make_stats(cls, (2,)).state_dict())
    assert restored.nonfinite == "skip"
    # An object pickled before the setting existed unpickles with the default.
    old = cls.__new__(cls)
    old.__dict__.update({k: v for k, v in vars(stats).items() if k != "nonfinite"})
    assert old.nonfinite == "raise"
    with pytest.raises(ValueError, match=f"^{cls.__name__}: "):
        old.update(np.array([[NAN, 0.0]]))


# -- ObservationNormalizer ---------------------------------------------------------------------


@pytest.mark.parametrize("stats", ["running", "ewm"])
def test_normalizer_raise_names_the_leaf_and_keeps_the_statistics(stats: StatsKind) -> None:
    space = Dict({"a": Box(-1.0, 1.0, (2,)), "b": Tuple([Discrete(2), Box(-1.0, 1.0, (3,))])})
    norm = ObservationNormalizer(space, stats=stats)
    good = {"a": np.zeros((2, 2)), "b": (np.zeros(2, int), np.ones((2, 3)))}
    norm(good)
    state = norm.state_dict()
    bad = {"a": np.zeros((2, 2)), "b": (np.zeros(2, int), np.array([[1.0, NAN, 1.0], [INF] * 3]))}
    with pytest.raises(ValueError) as info:
        norm(bad)
    message = str(info.value)
    assert message.startswith("ObservationNormalizer (observation['b'][1]): 4 of the 6 values")
    assert ADVICE in message
    for key in ("mean", "var", "count"):
        np.testing.assert_array_equal(norm.state_dict()["b"][1][key], state["b"][1][key])
    frozen = norm(bad, update=False)["b"][1]  # no update: nothing to refuse
    assert np.isnan(frozen[0, 1]) and np.isfinite(frozen[0, [0, 2]]).all()
    root = ObservationNormalizer(Box(-1.0, 1.0, (2,)))
    with pytest.raises(ValueError, match=r"^ObservationNormalizer: 1 of the 2 values"):
        root(np.array([[NAN, 0.0]]))


@pytest.mark.filterwarnings("error")  # skipping NaN/inf emits no warning
@pytest.mark.parametrize("stats", ["running", "ewm"])
@pytest.mark.parametrize("clip", [None, 2.0])
def test_normalizer_skip_drops_rows_and_normalises_them_anyway(
    stats: StatsKind, clip: float | None
) -> None:
    space = Box(-np.inf, np.inf, (3,))
    skipping = ObservationNormalizer(space, stats=stats, halflife=4.0, clip=clip, nonfinite="skip")
    reference = ObservationNormalizer(space, stats=stats, halflife=4.0, clip=clip)
    rng = np.random.default_rng(2)
    for step in range(8):
        batch = rng.normal(5.0, 2.0, (4, 3))
        batch[1, 2] = NAN
        if step % 3 == 2:
            batch[:] = INF  # nothing left: no update at all (an EWM does not count the call)
        keep = np.isfinite(batch).all(axis=1)
        out = skipping(batch)
        if keep.any():
            want = reference(batch[keep])
            np.testing.assert_array_equal(out[keep], want)
        assert_same_state(skipping.stats, reference.stats)
        expected = reference.stats.normalize(batch, 1e-8)
        if clip is not None:
            expected = np.clip(expected, -clip, clip)
        np.testing.assert_array_equal(out[~keep], expected[~keep])
    assert skipping.stats.count == reference.stats.count
    if stats == "ewm":
        assert reference.stats.count == 6  # the calls that had a finite row


def test_normalizer_masked_box_checks_occupied_slots_only() -> None:
    space = MaskedBox(-10.0, 10.0, (2,), max_size=3)
    values = np.array([[[1.0, 2.0], [NAN, NAN], [3.0, INF]], [[5.0, 4.0], [0.0, 1.0], [NAN, 0]]])
    mask = np.array([[1, 0, 1], [1, 1, 0]], np.int8)
    strict = ObservationNormalizer(space)
    with pytest.raises(ValueError, match=r"^ObservationNormalizer: 1 of the 8 values"):
        strict({"values": values, "mask": mask})
    skipping = ObservationNormalizer(space, nonfinite="skip")
    out = skipping({"values": values, "mask": mask})
    reference = RunningMeanStd((2,))
    reference.update(np.array([[1.0, 2.0], [5.0, 4.0], [0.0, 1.0]]))
    assert_same_state(skipping.stats, reference)
    assert out["values"][0, 1].tolist() == [0.0, 0.0]  # an empty slot is 0.0 as ever
    assert out["values"][0, 2, 1] == INF
    # NaN in empty slots only is no sample at all.
    unoccupied = {"values": values, "mask": np.array([[1, 0, 0], [1, 1, 0]], np.int8)}
    strict(unoccupied)
    assert strict.stats.count == pytest.approx(3.0001)


@pytest.mark.filterwarnings("error")  # skipping NaN/inf emits no warning
@pytest.mark.parametrize("stats", ["running", "ewm"])
@pytest.mark.parametrize("shape", [(4,), (20,), (2, 3), ()])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_single_observation_fast_paths_skip_like_the_batch_path(
    stats: StatsKind, shape: tuple[int, ...], dtype: type[np.floating[Any]]
) -> None:
    space = Box(-np.inf, np.inf, shape, dtype)
    fast = ObservationNormalizer(space, stats=stats, halflife=5.0, nonfinite="skip")
    batch = ObservationNormalizer(space, stats=stats, halflife=5.0, nonfinite="skip")
    finite_only = ObservationNormalizer(space, stats=stats, halflife=5.0)
    strict = ObservationNormalizer(space, stats=stats, halflife=5.0)
    rng = np.random.default_rng(4)
    for i in range(40):
        x = np.asarray(rng.normal(size=shape) * 3 + 50.0, dtype=dtype)
        spoilt = i in (0, 7, 8, 21)
        if spoilt:
            x.reshape(-1)[i % x.size] = (NAN, INF, -INF, NAN)[i % 4]
            with pytest.raises(ValueError, match="not finite"):
                strict._one(x, True)
        got = fast._one(x, True)
        np.testing.assert_array_equal(got, batch(x[None])[0])
        if spoilt:
            np.testing.assert_array_equal(got, finite_only.stats.normalize(x))
            assert not np.isfinite(got).all()
        else:
            np.testing.assert_array_equal(got, finite_only._one(x, True))
            strict._one(x, True)
        assert_same_state(fast.stats, finite_only.stats)
        assert_same_state(strict.stats, finite_only.stats)
    assert_same_state(batch.stats, finite_only.stats)


@pytest.mark.parametrize("stats", ["running", "ewm"])
def test_single_observation_fast_path_accepts_huge_finite_samples(stats: StatsKind) -> None:
    space = Box(-np.inf, np.inf, (4,))
    fast = ObservationNormalizer(space, stats=stats, halflife=5.0)
    slow = ObservationNormalizer(space, stats=stats, halflife=5.0)
    xs = [np.full(4, 1.0), np.full(4, 2.0), np.array([1e308, 1e308, -1.0, 0.0]), np.ones(4)]
    for x in xs:  # the first sum overflows, yet every value is finite
        with np.errstate(over="ignore", invalid="ignore"):
            np.testing.assert_array_equal(fast._one(x, True), slow(x[None])[0])
    assert_same_state(fast.stats, slow.stats)


@pytest.mark.parametrize("shape", [(4,), (20,), (2, 3)])
def test_single_observation_fast_paths_with_integer_observations(shape: tuple[int, ...]) -> None:
    space = Box(0, 255, shape, np.uint8)
    fast, slow = ObservationNormalizer(space), ObservationNormalizer(space)
    for x in np.random.default_rng(6).integers(0, 256, (10, *shape), dtype=np.uint8):
        np.testing.assert_array_equal(fast._one(x, True), slow(x[None])[0])
    assert_same_state(fast.stats, slow.stats)


def test_normalizer_setting_survives_pickling() -> None:
    norm = ObservationNormalizer(Box(-np.inf, np.inf, (2,)), stats="ewm", nonfinite="skip")
    norm(np.ones((2, 2)))
    restored = pickle.loads(pickle.dumps(norm))
    assert restored.nonfinite == "skip" and restored.stats.nonfinite == "skip"
    restored(np.array([[NAN, 1.0]]))
    assert_same_state(restored.stats, norm.stats)


# -- NormalizeObservation / VecNormalizeObservation --------------------------------------------

ROWS = [[1.0, 2.0], [3.0, 1.0], [NAN, 0.0], [4.0, 4.0], [INF, -INF], [2.0, 7.0], [5.0, 1.0]]
FINITE_ROWS = [row for row in ROWS if math.isfinite(sum(row))]


@pytest.mark.parametrize("stats", ["running", "ewm"])
def test_normalize_observation_raises_by_default(stats: StatsKind) -> None:
    wrapped = NormalizeObservation(Scripted(ROWS), stats=stats)
    wrapped.reset(seed=0)
    wrapped.step(0)
    state = wrapped.state_dict()
    with pytest.raises(ValueError) as info:
        wrapped.step(0)
    assert str(info.value).startswith("NormalizeObservation: 1 of the 2 values in this update")
    assert ADVICE in str(info.value)
    for key in state:
        np.testing.assert_array_equal(wrapped.state_dict()[key], state[key])


@pytest.mark.filterwarnings("error")  # skipping NaN/inf emits no warning
@pytest.mark.parametrize("stats", ["running", "ewm"])
def test_normalize_observation_skip_equals_the_finite_observations_alone(
    stats: StatsKind,
) -> None:
    wrapped = NormalizeObservation(Scripted(ROWS), stats=stats, clip=3.0, nonfinite="skip")
    assert wrapped.nonfinite == "skip"
    reference = NormalizeObservation(Scripted(FINITE_ROWS), stats=stats, clip=3.0)
    outs = play(wrapped, len(ROWS) - 1)
    wants = play(reference, len(FINITE_ROWS) - 1)
    got = [outs[0]] + [r.observation for r in outs[1:]]
    want = [wants[0]] + [r.observation for r in wants[1:]]
    finite = [i for i, row in enumerate(ROWS) if math.isfinite(sum(row))]
    for i, w in zip(finite, want, strict=True):
        np.testing.assert_array_equal(got[i], w)
    assert_same_state(wrapped.obs_rms, reference.obs_rms)
    assert np.isnan(got[2][0]) and abs(got[2][1]) <= 3.0
    assert got[4].tolist() == [3.0, -3.0]  # ±inf clipped like any other value
    restored = pickle.loads(pickle.dumps(wrapped))
    assert restored.nonfinite == "skip"
    restored.observation(np.array([NAN, NAN]))
    assert_same_state(restored.obs_rms, reference.obs_rms)


def vec(rows_per_env: list[list[list[float]]]) -> Any:
    return SyncVecEnv([lambda rows=rows: Scripted(rows) for rows in rows_per_env])


VEC_ROWS = [
    [[1.0, 2.0], [3.0, 1.0], [NAN, 0.0], [4.0, 4.0], [INF, 1.0]],
    [[0.0, 5.0], [2.0, INF], [1.0, 1.0], [6.0, 2.0], [NAN, 1.0]],
]


@pytest.mark.filterwarnings("error")  # skipping NaN/inf emits no warning
@pytest.mark.parametrize("stats", ["running", "ewm"])
def test_vec_normalize_observation_raise_and_skip(stats: StatsKind) -> None:
    strict = VecNormalizeObservation(vec(VEC_ROWS), stats=stats)
    strict.reset(seed=0)
    count = strict.obs_rms.count
    with pytest.raises(ValueError) as info:
        strict.step(np.zeros(2, int))
    assert str(info.value).startswith("VecNormalizeObservation: 1 of the 4 values")
    assert ADVICE in str(info.value) and strict.obs_rms.count == count

    skipping = VecNormalizeObservation(vec(VEC_ROWS), stats=stats, nonfinite="skip")
    assert skipping.nonfinite == "skip"
    reference = ObservationNormalizer(Scripted(VEC_ROWS[0]).observation_space, stats=stats)
    for t in range(5):
        if t == 0:
            out = skipping.reset(seed=0).observations
        else:
            out = skipping.step(np.zeros(2, int)).observations
        batch = np.array([VEC_ROWS[0][t], VEC_ROWS[1][t]])
        keep = np.isfinite(batch).all(axis=1)
        if keep.any():
            np.testing.assert_array_equal(out[keep], reference(batch[keep]))
        np.testing.assert_array_equal(out[~keep], reference.stats.normalize(batch[~keep]))
        assert_same_state(skipping.obs_rms, reference.stats)
    assert skipping.obs_rms.count == pytest.approx(4 if stats == "ewm" else 6.0001)


# -- NormalizeReward / VecNormalizeReward ------------------------------------------------------

REWARDS = [1.0, 2.0, NAN, 3.0, 1.0, INF, -INF, 2.0, 4.0]


def test_normalize_reward_raises_by_default_and_keeps_its_state() -> None:
    wrapped = NormalizeReward(Scripted([[0.0]], REWARDS), gamma=0.5)
    wrapped.reset(seed=0)
    wrapped.step(0)
    wrapped.step(0)
    returns, state = wrapped._returns, wrapped.return_rms.state_dict()
    with pytest.raises(ValueError) as info:
        wrapped.step(0)
    message = str(info.value)
    assert message.startswith("NormalizeReward (discounted return): 1 of the 1 values")
    assert ADVICE in message
    assert wrapped._returns == returns
    assert_same_state(wrapped.return_rms, _with_state(state))


def _with_state(state: dict[str, Any]) -> RunningMeanStd:
    stats = RunningMeanStd()
    stats.load_state_dict(state)
    return stats


@pytest.mark.filterwarnings("error")  # skipping NaN/inf emits no warning
def test_normalize_reward_skip_drops_the_return_and_restarts_it() -> None:
    wrapped = NormalizeReward(Scripted([[0.0]], REWARDS, ends=[5]), gamma=0.5, nonfinite="skip")
    assert wrapped.nonfinite == "skip"
    reference = RunningMeanStd()
    wrapped.reset(seed=0)
    ret = 0.0
    for t, reward in enumerate(REWARDS, start=1):
        got = wrapped.step(0).reward
        ret = ret * 0.5 + reward
        if math.isfinite(ret):
            reference.update(np.array([ret]))
            assert got == reward / math.sqrt(float(reference.var) + 1e-8)
        else:
            ret = 0.0  # dropped: the return starts again
            assert got == reward / math.sqrt(float(reference.var) + 1e-8) or math.isnan(got)
            assert not math.isfinite(got)
        if t == 5:
            ret = 0.0
        assert wrapped._returns == ret
        assert_same_state(wrapped.return_rms, reference)
    restored = pickle.loads(pickle.dumps(wrapped))
    assert restored.nonfinite == "skip" and restored.return_rms.nonfinite == "skip"


@pytest.mark.filterwarnings("error")  # skipping NaN/inf emits no warning
def test_vec_normalize_reward_raise_and_skip_per_sub_env() -> None:
    rewards = [[1.0, NAN, 2.0, 3.0, 1.0], [2.0, 2.0, INF, 1.0, 5.0]]

    def make(**kwargs: Any) -> Any:
        fns = [lambda rs=rs: Scripted([[0.0]], rs) for rs in rewards]
        return VecNormalizeReward(SyncVecEnv(fns), gamma=0.5, **kwargs)

    strict = make()
    strict.reset(seed=0)
    strict.step(np.zeros(2, int))
    returns, count = strict._returns.copy(), strict.return_rms.count
    with pytest.raises(ValueError) as info:
        strict.step(np.zeros(2, int))
    assert str(info.value).startswith("VecNormalizeReward (discounted returns): 1 of the 2")
    assert ADVICE in str(info.value)
    np.testing.assert_array_equal(strict._returns, returns)
    assert strict.return_rms.count == count

    skipping = make(nonfinite="skip")
    assert skipping.nonfinite == "skip"
    skipping.reset(seed=0)
    reference = RunningMeanStd()
    ret = np.zeros(2)
    for t in range(5):
        got = skipping.step(np.zeros(2, int)).rewards
        step_rewards = np.array([rewards[0][t], rewards[1][t]])
        ret = ret * 0.5 + step_rewards
        keep = np.isfinite(ret)
        reference.update(ret[keep])
        ret[~keep] = 0.0
        want = step_rewards / np.sqrt(reference.var + 1e-8)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(skipping._returns, ret)
        assert_same_state(skipping.return_rms, reference)
    assert reference.count == pytest.approx(8.0001)


def test_single_and_vector_reward_normalisers_agree_when_skipping() -> None:
    single = NormalizeReward(Scripted([[0.0]], REWARDS), gamma=0.9, nonfinite="skip")
    vector = VecNormalizeReward(
        SyncVecEnv([lambda: Scripted([[0.0]], REWARDS)]), gamma=0.9, nonfinite="skip"
    )
    single.reset(seed=0)
    vector.reset(seed=0)
    for _ in REWARDS:
        got, want = vector.step(np.zeros(1, int)).rewards[0], single.step(0).reward
        assert got == want or (math.isnan(got) and math.isnan(want))
    assert_same_state(vector.return_rms, single.return_rms)


def test_sekai_top_level_wrappers_take_the_keyword() -> None:
    assert sekai.NormalizeObservation is NormalizeObservation
    env = sekai.NormalizeReward(sekai.make("CartPole-v1"), nonfinite="skip")
    assert env.nonfinite == "skip"

"""Tests for sekai.finance.sampling."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sekai.finance import EpisodeSampler, FixedStart, RandomStart, SequentialStart, Time
from sekai.finance.sampling import as_sampler, first_start, resolve_start, sample_start


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def test_random_start():
    sampler = RandomStart()
    draws = [sampler.sample(rng(1), 7, 5) for _ in range(3)]
    assert draws == [int(rng(1).integers(0, 7))] * 3
    g = rng(2)
    values = {sampler.sample(g, 4, 10) for _ in range(200)}
    assert values == {0, 1, 2, 3} and all(type(v) is int for v in values)
    assert repr(sampler) == "RandomStart()" and sampler.spawn() is sampler
    with pytest.raises(ValueError):
        sampler.sample(g, 0, 1)


def test_base_defaults():
    class Half(EpisodeSampler):
        def sample(self, rng, n_starts, episode_length):
            return n_starts // 2

    s = Half()
    s.reset()
    assert s.spawn() is s and s.sample(rng(), 10, 1) == 5
    with pytest.raises(TypeError):
        EpisodeSampler()  # type: ignore[abstract]


def test_sequential_start_visits_each_window_once_per_epoch():
    s = SequentialStart()
    seen = []
    while s.epoch == 0:
        seen.append(s.sample(rng(), 10, 3))
    assert seen == [0, 3, 6, 9]
    assert s.sample(rng(), 10, 3) == 0 and s.epoch == 1


def test_sequential_start_stride_and_offset():
    s = SequentialStart(start=2, stride=4)
    assert [s.sample(rng(), 11, 100) for _ in range(5)] == [2, 6, 10, 2, 6]
    assert s.epoch == 1
    assert repr(s) == "SequentialStart(start=2, stride=4)"
    assert repr(SequentialStart()) == "SequentialStart(start=0, stride=None)"


def test_sequential_start_stale_position_and_reset():
    s = SequentialStart(start=1, stride=5)
    assert [s.sample(rng(), 20, 1) for _ in range(3)] == [1, 6, 11]
    assert s.sample(rng(), 8, 1) == 1  # position 16 is beyond the shrunken range
    s.reset()
    assert s.epoch == 0 and s.sample(rng(), 20, 1) == 1
    with pytest.raises(ValueError, match="start=1"):
        s.sample(rng(), 1, 1)


def test_sequential_spawn_is_a_fresh_copy():
    parent = SequentialStart(start=3, stride=2)
    parent.sample(rng(), 10, 1)
    child = parent.spawn()
    assert child is not parent and isinstance(child, SequentialStart)
    assert [child.sample(rng(), 10, 1) for _ in range(2)] == [3, 5]
    assert parent.sample(rng(), 10, 1) == 5  # the parent kept its own position
    other = parent.spawn()
    assert other.sample(rng(), 10, 1) == 3


def test_seed_page_split_example():
    """SequentialStart(start=21 i, stride=84) across 4 lanes covers every window once."""
    T, lookback, length = 179, 10, 21
    n_starts = T - (lookback + length + 1) + 1
    firsts = []
    for i in range(4):
        s = SequentialStart(start=21 * i, stride=21 * 4)
        for _ in range(2):
            start = sample_start(
                s, rng(), n_starts=n_starts, episode_length=length, lookback=lookback
            )
            firsts.append(start + lookback)
    assert sorted(firsts) == [10, 31, 52, 73, 94, 115, 136, 157]


def test_fixed_start():
    s = FixedStart(4)
    assert s.sample(rng(), 5, 1) == 4 and repr(s) == "FixedStart(4)" and s.spawn() is s
    with pytest.raises(ValueError, match="FixedStart"):
        s.sample(rng(), 4, 1)


@pytest.mark.parametrize(
    ("factory", "error"),
    [
        (lambda: FixedStart(-1), ValueError),
        (lambda: FixedStart(1.5), TypeError),
        (lambda: FixedStart(-1.0), ValueError),
        (lambda: FixedStart(True), TypeError),
        (lambda: SequentialStart(start=-1), ValueError),
        (lambda: SequentialStart(stride=0), ValueError),
        (lambda: SequentialStart(stride=2.5), TypeError),
        (lambda: SequentialStart(stride=0.0), ValueError),
        (lambda: SequentialStart(start="0"), TypeError),
    ],
)
def test_constructor_errors(factory, error):
    with pytest.raises(error):
        factory()


def test_whole_float_positions_are_ints():
    assert FixedStart(1.0).start == 1 and type(FixedStart(1.0).start) is int
    sequential = SequentialStart(start=2.0, stride=np.float32(3.0))
    assert (sequential.start, sequential.stride) == (2, 3)


def test_as_sampler():
    s = SequentialStart()
    assert as_sampler(s) is s
    assert isinstance(as_sampler("random"), RandomStart)
    assert isinstance(as_sampler("sequential"), SequentialStart)
    fixed = as_sampler(np.int64(3))
    assert isinstance(fixed, FixedStart) and fixed.start == 3
    for whole in (3.0, np.float32(3.0)):
        fixed = as_sampler(whole)
        assert isinstance(fixed, FixedStart) and fixed.start == 3 and type(fixed.start) is int
    for bad in ("other", 1j, -1):
        with pytest.raises(ValueError):
            as_sampler(bad)
    for bad in (True, None, 1.5, float("nan")):
        with pytest.raises(TypeError):
            as_sampler(bad)


def test_first_start():
    assert first_start(10, 0) == 0 and first_start(10, 4) == 0 and first_start(10, 15) == 5


def test_sample_start_offsets_by_the_warmup():
    assert (
        sample_start(FixedStart(0), rng(), n_starts=10, episode_length=2, lookback=3, warmup=5) == 2
    )
    s = SequentialStart()
    starts = [
        sample_start(s, rng(), n_starts=10, episode_length=3, lookback=3, warmup=5)
        for _ in range(3)
    ]
    assert starts == [2, 5, 8]
    g1, g2 = rng(7), rng(7)
    a = sample_start(RandomStart(), g1, n_starts=10, episode_length=1, lookback=1, warmup=4)
    assert a == 3 + int(g2.integers(0, 7))


def test_sample_start_errors():
    with pytest.raises(ValueError, match="warm-up"):
        sample_start(RandomStart(), rng(), n_starts=3, episode_length=1, lookback=1, warmup=5)
    with pytest.raises(ValueError, match=r"after the warm-up \(row 2\)") as info:
        sample_start(FixedStart(8), rng(), n_starts=10, episode_length=1, lookback=1, warmup=3)
    assert isinstance(info.value.__cause__, ValueError)

    class Broken(EpisodeSampler):
        def sample(self, rng, n_starts, episode_length):
            return n_starts

    with pytest.raises(ValueError, match="outside"):
        sample_start(Broken(), rng(), n_starts=4, episode_length=1, lookback=1)


def test_resolve_start_rows_and_times():
    stamps = np.arange("2020-01-01", "2020-01-21", dtype="datetime64[D]")
    kw = {"timestamps": stamps, "lookback": 5, "n_starts": 10}
    assert resolve_start(5, **kw) == 0
    assert resolve_start(14, **kw) == 9
    assert resolve_start(-6, **kw) == 9
    assert resolve_start("2020-01-08", **kw) == 2
    assert resolve_start(np.datetime64("2020-01-08T06"), **kw) == 3
    assert resolve_start(Time("2020-01-06"), **kw) == 0
    with pytest.raises(ValueError, match=r"\[5, 14\]"):
        resolve_start(4, **kw)
    with pytest.raises(ValueError):
        resolve_start("2020-01-16", **kw)
    with pytest.raises(ValueError):
        resolve_start(3.0, **kw)
    with pytest.raises(TypeError):
        resolve_start(True, **kw)
    assert resolve_start(8, warmup=8, **kw) == 3
    with pytest.raises(ValueError, match="warmup=8"):
        resolve_start(7, warmup=8, **kw)


def test_resolve_start_numeric_axis_hint():
    years = np.arange(1990, 2020)
    kw = {"timestamps": years, "lookback": 3, "n_starts": 20}
    with pytest.raises(ValueError, match=r"Time\(2000\)"):
        resolve_start(2000, **kw)
    assert resolve_start(Time(2000), **kw) == 7
    assert resolve_start(1999.5, **kw) == 7
    with pytest.raises(ValueError) as info:
        resolve_start(100, **kw)
    assert "Time(" not in str(info.value)


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_starts=st.integers(1, 50),
    length=st.integers(1, 10),
    stride=st.none() | st.integers(1, 7),
)
def test_samplers_deterministic_and_in_range(seed, n_starts, length, stride):
    a, b = rng(seed), rng(seed)
    r = RandomStart()
    assert [r.sample(a, n_starts, length) for _ in range(5)] == [
        r.sample(b, n_starts, length) for _ in range(5)
    ]
    s = SequentialStart(stride=stride)
    twin = copy.deepcopy(s)
    values = [s.sample(a, n_starts, length) for _ in range(12)]
    assert values == [twin.sample(b, n_starts, length) for _ in range(12)]
    assert all(0 <= v < n_starts for v in values)
    spawned = [s.spawn() for _ in range(3)]
    runs = [[c.sample(a, n_starts, length) for _ in range(4)] for c in spawned]
    assert runs[0] == runs[1] == runs[2]  # independent fresh copies


def test_samplers_pickle():
    s = SequentialStart(start=1, stride=3)
    s.sample(rng(), 10, 1)
    back = pickle.loads(pickle.dumps(s))
    assert back.sample(rng(), 10, 1) == 4 and back.epoch == 0

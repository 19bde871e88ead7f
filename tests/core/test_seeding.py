"""np_random and make_seed_sequence."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sekai.utils.seeding import child_seeds, make_seed_sequence, np_random


def test_make_seed_sequence_exact() -> None:
    assert make_seed_sequence(0, 3) == [3757552657, 673228719, 3241444873]


@given(st.integers(0, 2**64), st.integers(0, 20))
def test_make_seed_sequence_deterministic_and_distinct(base: int, n: int) -> None:
    seeds = make_seed_sequence(base, n)
    assert seeds == make_seed_sequence(base, n)
    assert len(set(seeds)) == n
    assert all(isinstance(s, int) and 0 <= s < 2**32 for s in seeds)


def test_np_random_int_generator_and_entropy() -> None:
    rng, seed = np_random(5)
    assert seed == 5
    assert rng.random() == np.random.default_rng(5).random()
    gen = np.random.default_rng(1)
    assert np_random(gen) == (gen, -1)
    _, entropy = np_random(None)
    assert isinstance(entropy, int) and entropy > 2**64


@pytest.mark.parametrize("bad", ["5", [1], True])
def test_np_random_rejects_non_int(bad: object) -> None:
    with pytest.raises(TypeError, match="seed"):
        np_random(bad)


@pytest.mark.parametrize("bad", [1.5, np.float64(3.25), float("nan"), float("inf")])
def test_np_random_rejects_a_float_with_a_fraction(bad: object) -> None:
    with pytest.raises(TypeError, match="seed must be an int"):
        np_random(bad)


@pytest.mark.parametrize("whole", [2.0, np.float64(2.0), np.float32(2.0)])
def test_np_random_takes_a_whole_float_as_its_int(whole: object) -> None:
    rng, seed = np_random(whole)
    assert seed == 2 and type(seed) is int
    assert rng.random() == np.random.default_rng(2).random()


def test_make_seed_sequence_checks_its_ints() -> None:
    assert make_seed_sequence(0.0, 3.0) == make_seed_sequence(0, 3)
    with pytest.raises(TypeError, match="make_seed_sequence base_seed must be an int"):
        make_seed_sequence(0.5, 3)
    with pytest.raises(TypeError, match="make_seed_sequence n must be an int"):
        make_seed_sequence(0, True)
    with pytest.raises(ValueError, match="make_seed_sequence base_seed must be at least 0"):
        make_seed_sequence(-1, 3)


def test_np_random_rejects_negative() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        np_random(-1)
    with pytest.raises(ValueError, match="non-negative"):
        np_random(-1.0)


def test_child_seeds_uses_seed_or_draws() -> None:
    rng = np.random.default_rng(0)
    assert child_seeds(rng, 9, 2) == make_seed_sequence(9, 2)
    drawn = int(np.random.default_rng(0).integers(2**63))
    assert child_seeds(np.random.default_rng(0), -1, 2) == make_seed_sequence(drawn, 2)

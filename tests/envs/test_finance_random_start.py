"""``random_start`` on the finance envs with learnable settings: a constructor setting for
every episode (autoresets included), and a reset option that decides it for one reset, on the
single env and, per sub-env, on its native vector env."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sekai

# Each env: its -v0 id and how a reset's starting account reads off the single env and off
# each sub-env of its native vector env (as a 2-D array, one row per sub-env).
START: dict[str, tuple[Any, Any]] = {
    "OptimalExecution-v0": (
        lambda env: np.array([env.inventory]),
        lambda vec: vec.inventory[:, None],
    ),
    "MarketMaking-v0": (lambda env: np.array([env.inventory]), lambda vec: vec.inventory[:, None]),
    "Trading-v0": (lambda env: np.array([env.position]), lambda vec: vec.position[:, None]),
    "Portfolio-v0": (lambda env: np.asarray(env.weights), lambda vec: vec.weights),
}
IDS = sorted(START)


def _flat(env_id: str) -> np.ndarray:
    """The account a reset starts from without ``random_start``."""
    env = sekai.make(env_id)
    env.reset(seed=0)
    return START[env_id][0](env.unwrapped)


def _single(env_id: str, seed: int, options: Any = None, **kwargs: Any) -> np.ndarray:
    env = sekai.make(env_id, **kwargs)
    env.reset(seed=seed, options=options)
    return START[env_id][0](env.unwrapped)


@pytest.mark.parametrize("env_id", IDS)
def test_the_reset_option_starts_one_episode_at_random(env_id: str) -> None:
    flat = _flat(env_id)
    starts = [_single(env_id, seed, {"random_start": True}) for seed in range(8)]
    assert any(not np.array_equal(start, flat) for start in starts)
    for seed, start in enumerate(starts):  # the same draws as the constructor setting
        np.testing.assert_array_equal(start, _single(env_id, seed, random_start=True))
        np.testing.assert_array_equal(_single(env_id, seed, {"random_start": False}), flat)


@pytest.mark.parametrize("env_id", IDS)
def test_the_reset_option_overrides_the_constructor_setting(env_id: str) -> None:
    flat = _flat(env_id)
    for seed in range(4):
        start = _single(env_id, seed, {"random_start": False}, random_start=True)
        np.testing.assert_array_equal(start, flat)
    env = sekai.make(env_id, random_start=True)
    env.reset(seed=0, options={"random_start": False})
    env.reset(seed=0)  # the option held for one reset only
    np.testing.assert_array_equal(
        START[env_id][0](env.unwrapped), _single(env_id, 0, None, random_start=True)
    )


@pytest.mark.parametrize("env_id", IDS)
def test_native_sub_envs_take_their_own_option(env_id: str) -> None:
    flat = _flat(env_id)
    read = START[env_id][1]
    vec = sekai.make_vec(env_id, 12)
    vec.reset(seed=3, options=[{"random_start": k % 2 == 0} for k in range(12)])
    rows = read(vec)
    for k in range(1, 12, 2):
        np.testing.assert_array_equal(rows[k], flat)
    assert any(not np.array_equal(rows[k], flat) for k in range(0, 12, 2))
    always = sekai.make_vec(env_id, 12, random_start=True)
    always.reset(seed=3, options=[{"random_start": False} if k == 5 else None for k in range(12)])
    rows = read(always)
    np.testing.assert_array_equal(rows[5], flat)
    assert any(not np.array_equal(rows[k], flat) for k in range(12) if k != 5)


@pytest.mark.parametrize("env_id", IDS)
def test_one_sub_env_draws_what_the_single_env_draws(env_id: str) -> None:
    for options in ({"random_start": True}, {"random_start": False}, None):
        for kwargs in ({}, {"random_start": True}):
            vec = sekai.make_vec(env_id, 1, **kwargs)
            vec.reset(seed=11, options=[options])
            single = _single(env_id, 11, options, **kwargs)
            np.testing.assert_array_equal(START[env_id][1](vec)[0], single)


@pytest.mark.parametrize("env_id", IDS)
def test_autoresets_follow_the_constructor_setting(env_id: str) -> None:
    flat = _flat(env_id)
    vec = sekai.make_vec(env_id, 16, random_start=True, max_episode_steps=2)
    vec.reset(seed=5, options={"random_start": False})
    np.testing.assert_array_equal(START[env_id][1](vec), np.stack([flat] * 16))
    vec.action_space.seed(0)
    for _ in range(2):  # the second step ends every episode and starts the next at random
        result = vec.step(vec.batch_action_space.sample())
    assert result.truncated.all() or result.terminated.all()
    rows = START[env_id][1](vec)
    assert any(not np.array_equal(row, flat) for row in rows)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("value", [1, "yes", None])
def test_the_option_must_be_a_bool(env_id: str, value: Any) -> None:
    with pytest.raises(TypeError, match=r"options\['random_start'\] must be a bool"):
        sekai.make(env_id).reset(seed=0, options={"random_start": value})
    with pytest.raises(TypeError, match=r"options\['random_start'\] must be a bool"):
        sekai.make_vec(env_id, 2).reset(seed=0, options={"random_start": value})

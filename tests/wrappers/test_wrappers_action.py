"""ClipAction, RescaleAction, StickyAction, ActionRepeat and DelayAction."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from _wrapper_toy_envs import CountEnv, MaskedBoxEnv, run

import sekai
from sekai.spaces import Box, Discrete
from sekai.utils.checker import check_env
from sekai.utils.seeding import make_seed_sequence, np_random
from sekai.wrappers import (
    ActionRepeat,
    AutoReset,
    ClipAction,
    DelayAction,
    RescaleAction,
    StickyAction,
)


def box_env(low: Any = -2.0, high: Any = 2.0) -> CountEnv:
    return CountEnv(length=50, action_space=Box(low, high, (3,), np.float32))


# -- ClipAction ---------------------------------------------------------------------------------


def test_clip_action_clips_into_bounds_and_keeps_space() -> None:
    env = box_env()
    wrapped = ClipAction(env)
    wrapped.reset(seed=0)
    wrapped.step(np.array([-5.0, 0.5, 9.0], np.float32))
    np.testing.assert_array_equal(env.actions[-1], [-2.0, 0.5, 2.0])
    assert wrapped.action_space is env.action_space
    action = np.array([7.0, 0.0, -7.0])
    assert wrapped.reverse_action(action) is action
    run(wrapped.async_step(np.array([3.0, 3.0, 3.0], np.float32)))
    np.testing.assert_array_equal(env.actions[-1], [2.0, 2.0, 2.0])
    assert env.async_calls == 1


def test_clip_action_needs_a_box() -> None:
    with pytest.raises(TypeError, match="Box"):
        ClipAction(CountEnv())


def test_clip_action_check_env() -> None:
    assert check_env(ClipAction(sekai.make("Pendulum-v1"))) == []


# -- RescaleAction ------------------------------------------------------------------------------


def test_rescale_action_maps_linearly_and_clips() -> None:
    env = CountEnv(action_space=Box(np.array([0.0, -4.0]), np.array([10.0, 4.0]), (2,)))
    wrapped = RescaleAction(env, -1.0, 1.0)
    assert wrapped.action_space == Box(-1.0, 1.0, (2,), np.float32)
    wrapped.reset()
    for action, expected in [([-1, -1], [0, -4]), ([1, 1], [10, 4]), ([0, 0.5], [5, 2])]:
        wrapped.step(np.array(action, np.float32))
        np.testing.assert_allclose(env.actions[-1], expected, rtol=1e-6)
        assert env.actions[-1].dtype == np.float32
        assert env.action_space.contains(env.actions[-1])
    wrapped.step(np.array([3.0, -3.0], np.float32))  # outside [-1, 1]: clipped to the env's bounds
    np.testing.assert_array_equal(env.actions[-1], [10.0, -4.0])
    np.testing.assert_allclose(wrapped.reverse_action(np.array([5.0, 2.0])), [0.0, 0.5])
    np.testing.assert_array_equal(wrapped.reverse_action(np.array([99.0, -99.0])), [1.0, -1.0])


def test_rescale_action_broadcasts_per_component_targets() -> None:
    env = CountEnv(action_space=Box(0.0, 1.0, (2,), np.float64))
    wrapped = RescaleAction(env, [0.0, -2.0], [1.0, 2.0])
    assert wrapped.action_space == Box(
        np.array([0.0, -2.0]), np.array([1.0, 2.0]), dtype=np.float64
    )
    wrapped.reset()
    wrapped.step(np.array([0.25, 0.0]))
    np.testing.assert_allclose(env.actions[-1], [0.25, 0.5])


def test_rescale_action_sets_masked_components_to_the_env_zero() -> None:
    env = MaskedBoxEnv()  # low [1, 1, -3], high 3: zero() == [1, 1, 0]
    wrapped = RescaleAction(env, -1.0, 1.0)
    wrapped.reset()
    wrapped.step(np.array([0.0, 0.0, 0.0], np.float32))
    np.testing.assert_allclose(env.actions[-1], [2.0, 1.0, 0.0])  # component 1 masked
    env.mask = np.array([1, 1, 0])
    wrapped.step(np.array([1.0, 1.0, 1.0], np.float32))
    np.testing.assert_allclose(env.actions[-1], [3.0, 3.0, 0.0])
    env.mask = np.array([[1, 0]])  # does not broadcast to (3,): ignored
    wrapped.step(np.array([1.0, 1.0, 1.0], np.float32))
    np.testing.assert_allclose(env.actions[-1], [3.0, 3.0, 3.0])
    env.mask = None
    run(wrapped.async_step(np.array([-1.0, -1.0, -1.0], np.float32)))
    np.testing.assert_allclose(env.actions[-1], [1.0, 1.0, -3.0])
    np.testing.assert_allclose(wrapped.reverse_action(np.array([1.0, 1.0, 0.0])), [-1.0, -1.0, 0.0])


@pytest.mark.parametrize(
    ("space", "lo", "hi", "error"),
    [
        (Discrete(2), -1, 1, TypeError),
        (Box(-np.inf, 1.0, (2,)), -1, 1, ValueError),
        (Box(-1.0, 1.0, (2,)), 1, 1, ValueError),
        (Box(-1.0, 1.0, (2,)), [0, 2], [1, 1], ValueError),
        (Box(-1.0, 1.0, (2,)), -np.inf, 1, ValueError),
        (Box(-1.0, 1.0, (2,)), [0, 0, 0], 1, ValueError),
    ],
)
def test_rescale_action_rejects_bad_arguments(
    space: Any, lo: Any, hi: Any, error: type[Exception]
) -> None:
    with pytest.raises(error):
        RescaleAction(CountEnv(action_space=space), lo, hi)


def test_rescale_action_check_env() -> None:
    assert check_env(RescaleAction(sekai.make("Pendulum-v1"), -1.0, 1.0)) == []
    assert check_env(RescaleAction(MaskedBoxEnv(), 0.0, 1.0)) == []


# -- StickyAction -------------------------------------------------------------------------------


def sticky_draws(rng: np.random.Generator, n: int) -> list[float]:
    return [float(rng.random()) for _ in range(n)]


def test_sticky_action_repeats_with_its_own_seeded_generator() -> None:
    env = CountEnv(length=1000)
    wrapped = StickyAction(env, 0.5)
    wrapped.reset(seed=3)
    for a in range(40):
        wrapped.step(a % 3)
    draws = sticky_draws(np_random(make_seed_sequence(3, 2)[1])[0], 39)
    expected, last = [0], 0
    for a, u in zip(range(1, 40), draws, strict=True):
        last = last if u < 0.5 else a % 3
        expected.append(last)
    assert env.actions == expected
    assert env.actions != [a % 3 for a in range(40)]


def test_sticky_action_reset_clears_previous_and_none_keeps_stream() -> None:
    env = CountEnv(length=1000)
    wrapped = StickyAction(env, 0.9)
    wrapped.reset(seed=0)
    wrapped.step(2)
    wrapped.reset()
    wrapped.step(1)  # no previous action after a reset: never sticky
    assert env.actions == [2, 1]
    a, b = StickyAction(CountEnv(length=1000), 0.5), StickyAction(CountEnv(length=1000), 0.5)
    a.reset(seed=5)
    b.reset(seed=5)
    for w in (a, b):
        w.reset()
        for i in range(30):
            w.step(i % 3)
    assert a.env.actions == b.env.actions  # type: ignore[attr-defined]


def test_sticky_action_generator_seed_spawns_without_drawing() -> None:
    gen = np.random.default_rng(11)
    state = gen.bit_generator.state
    wrapped = StickyAction(CountEnv(length=1000), 0.5)
    wrapped.reset(seed=gen)
    assert gen.bit_generator.state == state  # not drawn from
    expected = np.random.Generator(np.random.PCG64(np.random.SeedSequence(11).spawn(1)[0]))
    for i in range(30):
        wrapped.step(i % 3)
    draws = sticky_draws(expected, 29)
    acts = wrapped.env.actions  # type: ignore[attr-defined]
    for i, u in enumerate(draws, start=1):
        assert (acts[i] == acts[i - 1]) or u >= 0.5


def test_sticky_action_stores_a_copy_of_the_action() -> None:
    env = CountEnv(length=1000, action_space=Box(-1.0, 1.0, (2,)))
    wrapped = StickyAction(env, 0.99)
    wrapped.reset(seed=1)
    buffer = np.array([0.5, 0.5], np.float32)
    wrapped.step(buffer)
    buffer[:] = -1.0  # the caller reuses its buffer
    wrapped.step(buffer)
    np.testing.assert_array_equal(env.actions[1], [0.5, 0.5])


def test_sticky_action_async_path_matches_sync() -> None:
    sync_env, async_env = CountEnv(length=1000), CountEnv(length=1000)
    sync, asyn = StickyAction(sync_env, 0.5), StickyAction(async_env, 0.5)
    sync.reset(seed=9)

    async def go() -> None:
        await asyn.async_reset(seed=9)
        for i in range(30):
            await asyn.async_step(i % 3)

    run(go())
    for i in range(30):
        sync.step(i % 3)
    assert sync_env.actions == async_env.actions
    assert async_env.async_calls == 31


@pytest.mark.parametrize("p", [-0.1, 1.0, 1.5])
def test_sticky_action_rejects_bad_probability(p: float) -> None:
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        StickyAction(CountEnv(), p)


def test_sticky_action_check_env() -> None:
    assert check_env(StickyAction(sekai.make("CartPole-v1"), 0.25)) == []


# -- ActionRepeat -------------------------------------------------------------------------------


def test_action_repeat_sums_rewards_and_stops_on_done() -> None:
    env = CountEnv(length=5)
    wrapped = ActionRepeat(env, 3)
    wrapped.reset()
    r = wrapped.step(1)
    assert env.actions == [1, 1, 1]
    assert r.reward == 6.0 and type(r.reward) is float
    assert r.info == {"t": 3, "action_repeats": 3}
    np.testing.assert_array_equal(r.observation, [3, -3])
    r = wrapped.step(2)  # ends after 2 more steps
    assert r.terminated and r.info["action_repeats"] == 2 and r.reward == 9.0
    wrapped.reset()
    r = run(wrapped.async_step(0))
    assert r.info["action_repeats"] == 3 and env.async_calls == 3


def test_action_repeat_validation_and_check_env() -> None:
    with pytest.raises(ValueError):
        ActionRepeat(CountEnv(), 0)
    with pytest.raises(TypeError, match="repeat must be an int"):
        ActionRepeat(CountEnv(), 2.5)  # type: ignore[arg-type]
    assert ActionRepeat(CountEnv(), 2.0).repeat == 2  # type: ignore[arg-type]
    assert check_env(ActionRepeat(sekai.make("CartPole-v1"), 4)) == []


# -- DelayAction --------------------------------------------------------------------------------


def test_delay_action_queues_and_sends_noop() -> None:
    env = CountEnv(length=100)
    wrapped = DelayAction(env, 2, noop=0)
    wrapped.reset()
    for a in (1, 2, 1, 2):
        wrapped.step(a)
    assert env.actions == [0, 0, 1, 2]
    assert wrapped.pending_actions == [1, 2]
    wrapped.reset()
    assert wrapped.pending_actions == []
    wrapped.step(2)
    assert env.actions[-1] == 0
    assert wrapped.delay == 2 and wrapped.noop == 0


def test_delay_action_box_default_noop_and_copies() -> None:
    env = CountEnv(length=100, action_space=Box(1.0, 2.0, (2,)))
    wrapped = DelayAction(env, 1)
    np.testing.assert_array_equal(wrapped.noop, [1.0, 1.0])  # zero() clipped into the bounds
    wrapped.reset()
    buffer = np.array([1.5, 1.5], np.float32)
    wrapped.step(buffer)
    buffer[:] = 2.0
    wrapped.step(buffer)
    np.testing.assert_array_equal(env.actions[1], [1.5, 1.5])


def test_delay_action_zero_delay_passes_through_and_async() -> None:
    env = CountEnv(length=100)
    wrapped = DelayAction(env, 0, noop=0)
    wrapped.reset()
    wrapped.step(2)
    assert env.actions == [2]
    delayed = DelayAction(CountEnv(length=100), 1, noop=0)

    async def go() -> list[Any]:
        await delayed.async_reset()
        for a in (1, 2):
            await delayed.async_step(a)
        return delayed.env.actions  # type: ignore[attr-defined, no-any-return]

    assert run(go()) == [0, 1]


@pytest.mark.parametrize(
    ("delay", "kwargs", "error"),
    [(-1, {"noop": 0}, ValueError), (1, {}, ValueError), (1, {"noop": 7}, ValueError)],
)
def test_delay_action_rejects_bad_arguments(
    delay: int, kwargs: dict[str, Any], error: type[Exception]
) -> None:
    with pytest.raises(error):
        DelayAction(CountEnv(), delay, **kwargs)


def test_delay_action_check_env() -> None:
    assert check_env(DelayAction(sekai.make("CartPole-v1"), 3, noop=0)) == []


# -- AutoReset ordering -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wrapper", "kwargs"),
    [(StickyAction, {"repeat_action_probability": 0.1}), (DelayAction, {"delay": 1, "noop": 0})],
)
def test_episode_state_wrappers_warn_outside_autoreset(
    wrapper: Any, kwargs: dict[str, Any]
) -> None:
    with pytest.warns(UserWarning, match="Make AutoReset the outermost wrapper"):
        wrapper(AutoReset(CountEnv()), **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AutoReset(wrapper(CountEnv(), **kwargs))

"""Observation wrappers: flatten, frame stack, transform, rescale, dtype, filter, time, delay,
action masks and sequence padding."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from _wrapper_toy_envs import (
    CountEnv,
    DictEnv,
    MaskedBoxEnv,
    MaskedDiscreteEnv,
    MaskedMultiDiscreteEnv,
    SequenceEnv,
    run,
)

import sekai
from sekai.registry import EnvSpec
from sekai.spaces import Box, Dict, Discrete, MaskedBox, MultiBinary, MultiDiscrete, Sequence, Tuple
from sekai.utils.checker import check_env
from sekai.wrappers import (
    ActionMaskObservation,
    AutoReset,
    DelayObservation,
    DtypeObservation,
    FilterObservation,
    FlattenObservation,
    FrameStackObservation,
    PadSequenceObservation,
    RescaleObservation,
    TimeAwareObservation,
    TimeLimit,
    TransformObservation,
)

# -- FlattenObservation -------------------------------------------------------------------------


def test_flatten_observation_dict() -> None:
    wrapped = FlattenObservation(DictEnv())
    assert wrapped.observation_space == Box(
        np.array([-10.0, -10.0] + [0.0] * 7), np.array([10.0, 10.0] + [1.0] * 7), (9,)
    )
    wrapped.reset()
    obs = wrapped.step(0).observation
    assert obs.dtype == np.float32
    np.testing.assert_array_equal(obs, [1.0, 0.5, 0, 1, 0, 0, 0, 0, 0])
    assert check_env(wrapped) == []


def test_flatten_observation_rejects_sequences() -> None:
    with pytest.raises(NotImplementedError):
        FlattenObservation(SequenceEnv())


# -- FrameStackObservation ----------------------------------------------------------------------


def test_frame_stack_reset_padding_and_order() -> None:
    wrapped = FrameStackObservation(CountEnv(), 3)
    assert wrapped.observation_space == Box(-100.0, 100.0, (3, 2), np.float32)
    np.testing.assert_array_equal(wrapped.reset().observation, [[0, 0]] * 3)
    wrapped.step(0)
    obs = wrapped.step(0).observation
    np.testing.assert_array_equal(obs, [[0, 0], [1, -1], [2, -2]])
    np.testing.assert_array_equal(wrapped.step(0).observation, [[1, -1], [2, -2], [3, -3]])


def test_frame_stack_zeros_padding_dict_and_discrete() -> None:
    env = DictEnv()
    wrapped = FrameStackObservation(env, 2, padding="zeros")
    assert wrapped.observation_space == Dict(
        {"pos": Box(-10.0, 10.0, (2, 2), np.float32), "n": MultiDiscrete([7, 7])}
    )
    wrapped.reset()
    obs = wrapped.step(0).observation
    np.testing.assert_array_equal(obs["pos"], [[0, 0], [1, 0.5]])
    np.testing.assert_array_equal(obs["n"], [0, 1])
    zeros = FrameStackObservation(CountEnv(), 3, padding="zeros")
    zeros.reset()
    np.testing.assert_array_equal(zeros.step(0).observation, [[0, 0], [0, 0], [1, -1]])
    discrete = FrameStackObservation(sekai.make("CartPole-v1"), 2)
    assert discrete.observation_space.shape == (2, 4)
    assert check_env(wrapped) == []
    assert check_env(discrete) == []


def test_frame_stack_async_and_validation() -> None:
    env = CountEnv()
    wrapped = FrameStackObservation(env, 2)

    async def go() -> Any:
        await wrapped.async_reset()
        return (await wrapped.async_step(0)).observation

    np.testing.assert_array_equal(run(go()), [[0, 0], [1, -1]])
    assert env.async_calls == 2
    with pytest.raises(ValueError):
        FrameStackObservation(CountEnv(), 0)
    with pytest.raises(ValueError):
        FrameStackObservation(CountEnv(), 2, padding="same")  # type: ignore[arg-type]

    class Odd(CountEnv):
        def __init__(self) -> None:
            super().__init__()
            self.observation_space = sekai.Space()  # type: ignore[abstract]

    with pytest.raises(TypeError):
        FrameStackObservation(Odd(), 2)


# -- TransformObservation -----------------------------------------------------------------------


def test_transform_observation_func_space_and_deprecated_fn() -> None:
    space = Box(-200.0, 200.0, (2,), np.float32)
    wrapped = TransformObservation(CountEnv(), lambda o: o * 2, space)
    assert wrapped.observation_space is space
    wrapped.reset()
    np.testing.assert_array_equal(wrapped.step(0).observation, [2, -2])
    assert check_env(wrapped) == []
    with pytest.warns(DeprecationWarning, match=r"TransformObservation\(fn=\.\.\.\) is deprecated"):
        old = TransformObservation(CountEnv(), fn=lambda o: o + 1)
    assert old.func(np.zeros(2))[0] == 1
    with pytest.raises(TypeError, match="both func and fn"):
        TransformObservation(CountEnv(), lambda o: o, fn=lambda o: o)
    with pytest.raises(TypeError, match="missing required argument: 'func'"):
        TransformObservation(CountEnv())


# -- RescaleObservation -------------------------------------------------------------------------


def test_rescale_observation_maps_bounds_and_constant_dimension() -> None:
    env = CountEnv()
    env.observation_space = Box(np.array([0.0, -100.0]), np.array([100.0, -100.0]))
    wrapped = RescaleObservation(env, -1.0, 1.0)
    assert wrapped.observation_space == Box(-1.0, 1.0, (2,), np.float32)
    wrapped.reset()
    np.testing.assert_allclose(wrapped.step(0).observation, [-0.98, -1.0])  # low == high
    obs = wrapped.step(0).observation
    assert obs.dtype == np.float32
    np.testing.assert_allclose(obs, [-0.96, -1.0])


def test_rescale_observation_integer_box_gives_float32_and_clips() -> None:
    env = CountEnv()
    env.observation_space = Box(0, 4, (2,), np.int64)
    wrapped = RescaleObservation(env, 0.0, [1.0, 2.0])
    assert wrapped.observation_space == Box(0.0, np.array([1.0, 2.0]), (2,), np.float32)
    wrapped.reset()
    obs = wrapped.step(0).observation  # [1, -1]: -1 is below low, clipped to 0
    assert obs.dtype == np.float32
    np.testing.assert_allclose(obs, [0.25, 0.0])


@pytest.mark.parametrize(
    ("space", "lo", "hi", "error"),
    [
        (Discrete(3), 0, 1, TypeError),
        (Box(-np.inf, 0.0, (2,)), 0, 1, ValueError),
        (Box(0.0, 1.0, (2,)), 1, 0, ValueError),
        (Box(0.0, 1.0, (2,)), 0, [1, 0], ValueError),
    ],
)
def test_rescale_observation_rejects_bad_arguments(
    space: Any, lo: Any, hi: Any, error: type[Exception]
) -> None:
    env = CountEnv()
    env.observation_space = space
    with pytest.raises(error):
        RescaleObservation(env, lo, hi)


def test_rescale_observation_check_env() -> None:
    assert check_env(RescaleObservation(sekai.make("Pendulum-v1"), 0.0, 1.0)) == []


# -- DtypeObservation ---------------------------------------------------------------------------


def test_dtype_observation() -> None:
    wrapped = DtypeObservation(CountEnv(), np.float64)
    assert wrapped.observation_space == Box(-100.0, 100.0, (2,), np.float64)
    wrapped.reset()
    assert wrapped.step(0).observation.dtype == np.float64
    assert check_env(wrapped) == []
    as_int = DtypeObservation(CountEnv(), np.int32)
    assert as_int.observation_space == Box(-100, 100, (2,), np.int32)
    with pytest.raises(TypeError):
        DtypeObservation(DictEnv(), np.float64)


# -- FilterObservation --------------------------------------------------------------------------


def test_filter_observation_keeps_given_keys_in_order() -> None:
    env = DictEnv()
    env.observation_space = Dict(
        {"a": Discrete(2), "pos": env.observation_space["pos"], "n": Discrete(7)}
    )
    wrapped = FilterObservation(env, ["n", "pos"])
    assert wrapped.keys == ("n", "pos")
    assert list(wrapped.observation_space.keys()) == ["n", "pos"]  # type: ignore[attr-defined]
    wrapped.reset()
    obs = wrapped.step(0).observation
    assert list(obs) == ["n", "pos"] and obs["n"] == 1
    assert check_env(FilterObservation(DictEnv(), ["pos"])) == []


@pytest.mark.parametrize(
    ("keys", "error"),
    [(["nope"], KeyError), ([], ValueError), ("pos", TypeError), (["pos", "pos"], ValueError)],
)
def test_filter_observation_rejects_bad_keys(keys: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        FilterObservation(DictEnv(), keys)


def test_filter_observation_needs_a_dict() -> None:
    with pytest.raises(TypeError):
        FilterObservation(CountEnv(), ["x"])


# -- TimeAwareObservation -----------------------------------------------------------------------


def test_time_aware_space_from_inner_time_limit() -> None:
    wrapped = TimeAwareObservation(sekai.make("CartPole-v1"))
    assert wrapped.max_episode_steps == 500
    assert repr(wrapped.observation_space) == (
        "Box([-4.8, -inf, -0.41887903, -inf, 0.0], [4.8, inf, 0.41887903, inf, 1.0], (5,), float32)"
    )
    assert check_env(wrapped) == []


def test_time_aware_normalised_feature_and_reset() -> None:
    wrapped = TimeAwareObservation(CountEnv(length=10), 4)
    assert wrapped.reset().observation[-1] == 0.0
    feats = [float(wrapped.step(0).observation[-1]) for _ in range(6)]
    assert feats == [0.25, 0.5, 0.75, 1.0, 1.0, 1.0]
    assert wrapped.reset().observation[-1] == 0.0
    assert wrapped.observation_space.contains(wrapped.step(0).observation)


def test_time_aware_raw_time_limit_sources_and_errors() -> None:
    raw = TimeAwareObservation(CountEnv(length=10), normalize_time=False)
    assert raw.observation_space == Box(
        np.array([-100.0, -100.0, 0.0]), np.array([100.0, 100.0, np.inf]), (3,), np.float32
    )
    raw.reset()
    raw.step(0)
    assert raw.step(0).observation[-1] == 2.0
    with pytest.raises(ValueError, match="limit"):
        TimeAwareObservation(CountEnv())
    env = CountEnv()
    env.spec = EnvSpec("Count-v0", max_episode_steps=8)
    assert TimeAwareObservation(env).max_episode_steps == 8
    assert TimeAwareObservation(TimeLimit(env, 3)).max_episode_steps == 3  # nearest TimeLimit
    assert TimeAwareObservation(TimeLimit(env, 3), 20).max_episode_steps == 20  # argument wins


def test_time_aware_dict_and_async() -> None:
    inner = CountEnv(length=10)
    wrapped = TimeAwareObservation(TimeLimit(DictEnv(), 4), dict_key="clock")
    assert wrapped.observation_space["clock"] == Box(0.0, 1.0, (1,), np.float32)  # type: ignore[index]
    wrapped.reset()
    obs = wrapped.step(0).observation
    assert obs["clock"].dtype == np.float32 and obs["clock"].tolist() == [0.25]
    assert check_env(wrapped) == []
    asyn = TimeAwareObservation(inner, 5)

    async def go() -> Any:
        await asyn.async_reset()
        await asyn.async_step(0)
        return (await asyn.async_step(0)).observation

    assert run(go())[-1] == pytest.approx(0.4)
    assert inner.async_calls == 3


def test_time_aware_rejects_unsupported_spaces() -> None:
    with pytest.raises(KeyError):
        TimeAwareObservation(DictEnv(), 5, dict_key="pos")
    env = CountEnv()
    env.observation_space = Box(0.0, 1.0, (2, 2))
    with pytest.raises(TypeError):
        TimeAwareObservation(env, 5)
    env.observation_space = MaskedBox(0.0, 1.0, (2,), max_size=3)
    with pytest.raises(TypeError):
        TimeAwareObservation(env, 5)
    with pytest.raises(ValueError):
        TimeAwareObservation(CountEnv(), 0)


# -- DelayObservation ---------------------------------------------------------------------------


def test_delay_observation_zeros_padding() -> None:
    wrapped = DelayObservation(CountEnv(length=10), 2)
    obs = [wrapped.reset().observation] + [wrapped.step(0).observation for _ in range(4)]
    assert [o.tolist() for o in obs] == [[0, 0], [0, 0], [0, 0], [1, -1], [2, -2]]
    wrapped.reset()
    assert wrapped.step(0).observation.tolist() == [0, 0]


def test_delay_observation_reset_padding_dict_zero_delay_and_async() -> None:
    env = CountEnv(length=10)
    env.observation_space = Box(1.0, 100.0, (2,))  # zero_sample would be [1, 1]
    padded = DelayObservation(env, 1, padding="reset")
    assert padded.reset().observation.tolist() == [0, 0]
    assert padded.step(0).observation.tolist() == [0, 0]
    assert padded.step(0).observation.tolist() == [1, -1]
    direct = DelayObservation(CountEnv(), 0)
    direct.reset()
    assert direct.step(0).observation.tolist() == [1, -1]
    dict_delay = DelayObservation(DictEnv(), 1)
    first = dict_delay.reset().observation
    assert first["n"] == 0 and first["pos"].tolist() == [0, 0]
    assert check_env(dict_delay) == []
    inner = CountEnv()
    asyn = DelayObservation(inner, 1)

    async def go() -> Any:
        await asyn.async_reset()
        await asyn.async_step(0)
        return (await asyn.async_step(0)).observation

    assert run(go()).tolist() == [1, -1]
    assert inner.async_calls == 3


def test_delay_observation_validation() -> None:
    with pytest.raises(ValueError):
        DelayObservation(CountEnv(), -1)
    with pytest.raises(ValueError):
        DelayObservation(CountEnv(), 1, padding="first")  # type: ignore[arg-type]


# -- ActionMaskObservation ----------------------------------------------------------------------


def test_action_mask_observation_wraps_non_dict() -> None:
    env = MaskedDiscreteEnv()
    wrapped = ActionMaskObservation(env)
    assert wrapped.observation_space == Dict(
        {"observation": env.observation_space, "action_mask": MultiBinary(3)}
    )
    first = wrapped.reset().observation
    assert first["action_mask"].dtype == np.int8
    assert first["action_mask"].tolist() == [1, 1, 1]
    assert wrapped.step(0).observation["action_mask"].tolist() == [1, 0, 1]  # read fresh
    assert check_env(wrapped) == []


def test_action_mask_observation_dict_multidiscrete_box() -> None:
    class MaskedDict(DictEnv):
        def action_mask(self) -> Any:
            return np.array([0, 1], np.int8)

    wrapped = ActionMaskObservation(MaskedDict(), key="legal")
    assert list(wrapped.observation_space.keys()) == ["pos", "n", "legal"]  # type: ignore[attr-defined]
    assert wrapped.reset().observation["legal"].tolist() == [0, 1]
    md = ActionMaskObservation(MaskedMultiDiscreteEnv())
    assert md.observation_space["action_mask"] == MultiBinary(5)  # type: ignore[index]
    assert md.reset().observation["action_mask"].tolist() == [1, 0, 0, 1, 1]
    box = ActionMaskObservation(MaskedBoxEnv())
    assert box.reset().observation["action_mask"].tolist() == [1, 0, 1]
    assert check_env(md) == [] and check_env(box) == []


def test_action_mask_observation_none_mask_and_errors() -> None:
    class NoneMask(CountEnv):
        def action_mask(self) -> None:
            return None

    assert ActionMaskObservation(NoneMask()).reset().observation["action_mask"].tolist() == [1] * 3
    with pytest.raises(TypeError):
        ActionMaskObservation(CountEnv())

    class MaskedDict(DictEnv):
        def action_mask(self) -> Any:
            return np.array([1, 1], np.int8)

    with pytest.raises(KeyError):
        ActionMaskObservation(MaskedDict(), key="pos")


# -- PadSequenceObservation ---------------------------------------------------------------------


def test_pad_sequence_in_dict() -> None:
    wrapped = PadSequenceObservation(SequenceEnv())
    space = wrapped.observation_space
    assert space["items"] == MaskedBox(0.0, 10.0, (2,), max_size=4, dtype=np.float32)  # type: ignore[index]
    assert space["x"] == Box(-1.0, 1.0, (1,), np.float32)  # type: ignore[index]
    wrapped.reset()
    wrapped.step(0)
    obs = wrapped.step(0).observation  # t = 2: two items
    assert obs["items"]["mask"].tolist() == [1, 1, 0, 0]
    assert obs["items"]["values"].tolist() == [[0, 2], [1, 2], [0, 0], [0, 0]]
    assert check_env(wrapped) == []
    assert check_env(PadSequenceObservation(SequenceEnv(stack=True))) == []


@pytest.mark.parametrize(
    ("truncate", "expected"), [("tail", [[2, 4], [3, 4]]), ("head", [[0, 4], [1, 4]])]
)
def test_pad_sequence_truncation(truncate: Any, expected: list[list[int]]) -> None:
    wrapped = PadSequenceObservation(SequenceEnv(), 2, truncate=truncate)
    wrapped.reset()
    for _ in range(3):
        wrapped.step(0)
    obs = wrapped.step(0).observation  # t = 4: four items
    assert obs["items"]["values"].tolist() == expected
    assert obs["items"]["mask"].tolist() == [1, 1]


def test_pad_sequence_error_mode_top_level_and_tuple() -> None:
    strict = PadSequenceObservation(SequenceEnv(), 2, truncate="error")
    strict.reset()
    strict.step(0)
    strict.step(0)
    with pytest.raises(ValueError, match="max_length"):
        strict.step(0)
    env = CountEnv()
    env.observation_space = Tuple(
        [Sequence(Box(0.0, 1.0, ()), max_length=2), MaskedBox(0.0, 1.0, (), max_size=2)]
    )
    wrapped = PadSequenceObservation(env)
    assert wrapped.observation_space == Tuple(
        [MaskedBox(0.0, 1.0, (), max_size=2), MaskedBox(0.0, 1.0, (), max_size=2)]
    )
    out = wrapped.observation((tuple(np.array([0.5], np.float32)), {"x": 1}))
    assert out[0]["mask"].tolist() == [1, 0] and out[1] == {"x": 1}


@pytest.mark.parametrize(
    ("space", "kwargs", "error"),
    [
        (Box(0.0, 1.0, (2,)), {}, TypeError),
        (Sequence(Discrete(3), max_length=2), {}, TypeError),
        (Sequence(Box(0.0, 1.0, ())), {}, ValueError),
        (Sequence(Box(0.0, 1.0, ()), max_length=2), {"max_length": 0}, ValueError),
        (Sequence(Box(0.0, 1.0, ()), max_length=2), {"truncate": "middle"}, ValueError),
    ],
)
def test_pad_sequence_rejects_bad_arguments(
    space: Any, kwargs: dict[str, Any], error: type[Exception]
) -> None:
    env = CountEnv()
    env.observation_space = space
    with pytest.raises(error):
        PadSequenceObservation(env, **kwargs)


def test_pad_sequence_top_level_with_explicit_length() -> None:
    env = CountEnv()
    env.observation_space = Sequence(Box(0.0, 1.0, (2,)))
    wrapped = PadSequenceObservation(env, 3)
    assert wrapped.observation_space == MaskedBox(0.0, 1.0, (2,), max_size=3)
    out = wrapped.observation(())
    assert out["mask"].tolist() == [0, 0, 0] and out["values"].shape == (3, 2)


# -- AutoReset ordering -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wrapper", "args"),
    [(TimeAwareObservation, (5,)), (FrameStackObservation, (2,)), (DelayObservation, (1,))],
)
def test_episode_state_wrappers_warn_outside_autoreset(wrapper: Any, args: tuple[Any, ...]) -> None:
    with pytest.warns(UserWarning, match="outermost"):
        wrapper(AutoReset(CountEnv()), *args)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AutoReset(wrapper(CountEnv(), *args))

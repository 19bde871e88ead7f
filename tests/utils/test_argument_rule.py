"""Constructor arguments: a wrong value of the right kind is a ValueError, others TypeError."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.envs.classic_control import MountainCarEnv, PendulumEnv
from sekai.rendering.canvas import Canvas
from sekai.spaces import Box, Discrete, MaskedBox, MultiBinary, MultiDiscrete, Sequence
from sekai.spaces.utils import batch_space
from sekai.stats import InMemoryTracker
from sekai.utils.running_stats import ExponentialMovingStats, RunningMeanStd
from sekai.vector.wrappers import VecNormalizeReward, VecRecordEpisodeStatistics
from sekai.wrappers import (
    ActionRepeat,
    ClipReward,
    FrameStackObservation,
    NormalizeObservation,
    NormalizeReward,
    RecordEpisodeStatistics,
    RescaleAction,
    RescaleObservation,
    StickyAction,
    TimeLimit,
)


def _cartpole() -> Any:
    return sekai.make("CartPole-v1")


def _pendulum() -> Any:
    return sekai.make("Pendulum-v1")


def _vec() -> Any:
    return sekai.make_vec("CartPole-v1", num_envs=2)


CASES: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    ("Discrete(2.5)", lambda: Discrete(2.5), ValueError, "Discrete n must be an int"),
    ("Discrete('2')", lambda: Discrete("2"), TypeError, "Discrete n must be an int"),
    ("Discrete(True)", lambda: Discrete(True), TypeError, "Discrete n"),
    ("Discrete start=0.5", lambda: Discrete(2, start=0.5), ValueError, "Discrete start"),
    ("Box shape 2.5", lambda: Box(0, 1, shape=(2.5,)), ValueError, "Box shape"),
    ("Box shape 'a'", lambda: Box(0, 1, shape=("a",)), TypeError, "Box shape"),
    ("MultiDiscrete([2.5])", lambda: MultiDiscrete([2.5]), ValueError, "MultiDiscrete nvec"),
    ("MultiDiscrete(['a'])", lambda: MultiDiscrete(["a"]), TypeError, "MultiDiscrete nvec"),
    ("MultiBinary(2.0)", lambda: MultiBinary(2.0), ValueError, "MultiBinary n"),
    ("MultiBinary('2')", lambda: MultiBinary("2"), TypeError, "MultiBinary n"),
    (
        "Sequence max_length 2.5",
        lambda: Sequence(Discrete(2), max_length=2.5),
        ValueError,
        "Sequence max_length",
    ),
    (
        "Sequence max_length 'x'",
        lambda: Sequence(Discrete(2), max_length="x"),
        TypeError,
        "Sequence max_length",
    ),
    ("MaskedBox max_size 1.5", lambda: MaskedBox(0, 1, max_size=1.5), ValueError, "max_size"),
    ("MaskedBox max_size None", lambda: MaskedBox(0, 1, max_size=None), TypeError, "max_size"),
    ("batch_space n 2.0", lambda: batch_space(Discrete(2), 2.0), ValueError, "batch_space n"),
    (
        "TimeLimit 2.5",
        lambda: TimeLimit(_cartpole(), max_episode_steps=2.5),
        ValueError,
        "TimeLimit: max_episode_steps",
    ),
    (
        "TimeLimit 'x'",
        lambda: TimeLimit(_cartpole(), max_episode_steps="x"),
        TypeError,
        "TimeLimit: max_episode_steps",
    ),
    (
        "RecordEpisodeStatistics 2.5",
        lambda: RecordEpisodeStatistics(_cartpole(), deque_size=2.5),
        ValueError,
        "RecordEpisodeStatistics: deque_size",
    ),
    (
        "FrameStackObservation 2.5",
        lambda: FrameStackObservation(_cartpole(), 2.5),
        ValueError,
        "FrameStackObservation: num_stack",
    ),
    ("ActionRepeat 2.0", lambda: ActionRepeat(_cartpole(), 2.0), ValueError, "repeat"),
    (
        "StickyAction '0.1'",
        lambda: StickyAction(_cartpole(), "0.1"),
        TypeError,
        "StickyAction: repeat_action_probability",
    ),
    (
        "StickyAction 1.0",
        lambda: StickyAction(_cartpole(), 1.0),
        ValueError,
        "StickyAction: repeat_action_probability",
    ),
    (
        "NormalizeReward gamma 'x'",
        lambda: NormalizeReward(_cartpole(), gamma="x"),
        TypeError,
        "NormalizeReward: gamma must be a real number",
    ),
    (
        "NormalizeReward gamma nan",
        lambda: NormalizeReward(_cartpole(), gamma=float("nan")),
        ValueError,
        "NormalizeReward: gamma",
    ),
    (
        "NormalizeReward epsilon None",
        lambda: NormalizeReward(_cartpole(), epsilon=None),
        TypeError,
        "NormalizeReward: epsilon",
    ),
    (
        "NormalizeObservation clip 'x'",
        lambda: NormalizeObservation(_cartpole(), clip="x"),
        TypeError,
        "ObservationNormalizer: clip",
    ),
    (
        "NormalizeObservation epsilon -1",
        lambda: NormalizeObservation(_cartpole(), epsilon=-1.0),
        ValueError,
        "ObservationNormalizer: epsilon",
    ),
    (
        "RescaleAction 'a'",
        lambda: RescaleAction(_pendulum(), "a", 1.0),
        TypeError,
        "RescaleAction: min_action must be an array",
    ),
    (
        "RescaleAction max None",
        lambda: RescaleAction(_pendulum(), -1.0, None),
        TypeError,
        "RescaleAction: max_action",
    ),
    (
        "RescaleObservation 'a'",
        lambda: RescaleObservation(_pendulum(), "a", 1.0),
        TypeError,
        "RescaleObservation: min_obs",
    ),
    ("ClipReward 'a'", lambda: ClipReward(_cartpole(), "a", 1.0), TypeError, "min_reward"),
    (
        "ClipReward nan",
        lambda: ClipReward(_cartpole(), 0.0, float("nan")),
        ValueError,
        "max_reward",
    ),
    (
        "VecRecordEpisodeStatistics 2.5",
        lambda: VecRecordEpisodeStatistics(_vec(), deque_size=2.5),
        ValueError,
        "VecRecordEpisodeStatistics: deque_size",
    ),
    (
        "VecNormalizeReward gamma 'x'",
        lambda: VecNormalizeReward(_vec(), gamma="x"),
        TypeError,
        "VecNormalizeReward: gamma",
    ),
    (
        "VecNormalizeReward gamma 2",
        lambda: VecNormalizeReward(_vec(), gamma=2.0),
        ValueError,
        "VecNormalizeReward: gamma",
    ),
    (
        "make_vec num_envs 2.5",
        lambda: sekai.make_vec("CartPole-v1", num_envs=2.5),
        ValueError,
        "make_vec: num_envs",
    ),
    (
        "make_vec num_envs '2'",
        lambda: sekai.make_vec("CartPole-v1", num_envs="2"),
        TypeError,
        "make_vec: num_envs",
    ),
    (
        "make max_episode_steps 2.5",
        lambda: sekai.make("CartPole-v1", max_episode_steps=2.5),
        ValueError,
        "max_episode_steps",
    ),
    (
        "EnvSpec max_episode_steps 2.5",
        lambda: sekai.EnvSpec("Probe-v0", max_episode_steps=2.5),
        ValueError,
        "max_episode_steps",
    ),
    (
        "RunningMeanStd epsilon 'x'",
        lambda: RunningMeanStd(epsilon="x"),
        TypeError,
        "RunningMeanStd: epsilon",
    ),
    (
        "RunningMeanStd epsilon -1",
        lambda: RunningMeanStd(epsilon=-1.0),
        ValueError,
        "RunningMeanStd: epsilon",
    ),
    (
        "RunningMeanStd shape 2.5",
        lambda: RunningMeanStd(shape=(2.5,)),
        ValueError,
        "RunningMeanStd: shape",
    ),
    (
        "RunningMeanStd shape 3",
        lambda: RunningMeanStd(shape=3),
        TypeError,
        "RunningMeanStd: shape",
    ),
    (
        "ExponentialMovingStats halflife 'x'",
        lambda: ExponentialMovingStats(halflife="x"),
        TypeError,
        "ExponentialMovingStats: halflife",
    ),
    (
        "ExponentialMovingStats halflife 0",
        lambda: ExponentialMovingStats(halflife=0.0),
        ValueError,
        "ExponentialMovingStats: halflife",
    ),
    (
        "InMemoryTracker 2.5",
        lambda: InMemoryTracker(max_episodes=2.5),
        ValueError,
        "InMemoryTracker: max_episodes",
    ),
    (
        "InMemoryTracker 'x'",
        lambda: InMemoryTracker(max_episodes="x"),
        TypeError,
        "InMemoryTracker: max_episodes",
    ),
    ("PendulumEnv g 'x'", lambda: PendulumEnv(g="x"), TypeError, "g must be a real number"),
    ("PendulumEnv g nan", lambda: PendulumEnv(g=float("nan")), ValueError, "g must be"),
    (
        "MountainCarEnv goal_velocity [1]",
        lambda: MountainCarEnv(goal_velocity=[1.0]),
        ValueError,
        "goal_velocity",
    ),
    ("Canvas width 2.5", lambda: Canvas(2.5, 3), ValueError, "Canvas width"),
    ("Canvas height 'x'", lambda: Canvas(3, "x"), TypeError, "Canvas height"),
]


@pytest.mark.parametrize(("label", "call", "error", "fragment"), CASES, ids=[c[0] for c in CASES])
def test_argument_rule(
    label: str, call: Callable[[], Any], error: type[Exception], fragment: str
) -> None:
    with pytest.raises(error, match=fragment) as info:
        call()
    assert type(info.value) is error, label


def test_numpy_ints_are_ints() -> None:
    assert InMemoryTracker(max_episodes=np.int64(3)).episodes.maxlen == 3
    assert RunningMeanStd(shape=(np.int32(2),)).shape == (2,)

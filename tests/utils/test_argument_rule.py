"""Constructor arguments: a wrong value of the right kind is a ValueError, others TypeError.

Where an int is needed, a float with a fraction is of the wrong kind (TypeError) and a whole
float is taken as its int.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.envs.classic_control import MountainCarEnv, PendulumEnv
from sekai.envs.finance import (
    LimitOrderBookEnv,
    MarketEnv,
    MarketMakingEnv,
    OptimalExecutionEnv,
    PortfolioEnv,
    TradingEnv,
)
from sekai.finance.sampling import SequentialStart
from sekai.finance.simulators import simulate_gbm
from sekai.finance.universe import SlotMap
from sekai.rendering.canvas import Canvas
from sekai.spaces import Box, Discrete, MaskedBox, MultiBinary, MultiDiscrete, Sequence
from sekai.spaces.utils import batch_space
from sekai.stats import InMemoryTracker
from sekai.utils.running_stats import ExponentialMovingStats, RunningMeanStd
from sekai.utils.seeding import make_seed_sequence, np_random
from sekai.vector import ProcVecEnv
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


def _gbm(n_steps: Any) -> Any:
    return simulate_gbm(np.random.default_rng(0), n_steps)


CASES: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    (
        "Discrete(2.5)",
        lambda: Discrete(2.5),
        TypeError,
        r"Discrete n must be an int, got float 2\.5",
    ),
    ("Discrete(nan)", lambda: Discrete(float("nan")), TypeError, "Discrete n must be an int"),
    ("Discrete(inf)", lambda: Discrete(np.inf), TypeError, "Discrete n must be an int"),
    ("Discrete(0.0)", lambda: Discrete(0.0), ValueError, "Discrete n must be positive, got 0"),
    ("Discrete([2])", lambda: Discrete([2]), ValueError, r"Discrete n must be an int \(a scalar\)"),
    ("Discrete('2')", lambda: Discrete("2"), TypeError, "Discrete n must be an int"),
    ("Discrete(True)", lambda: Discrete(True), TypeError, "Discrete n"),
    ("Discrete start=0.5", lambda: Discrete(2, start=0.5), TypeError, "Discrete start"),
    ("Box shape 2.5", lambda: Box(0, 1, shape=(2.5,)), TypeError, "Box shape"),
    ("Box shape -1.0", lambda: Box(0, 1, shape=(-1.0,)), ValueError, "Box shape"),
    ("Box shape 'a'", lambda: Box(0, 1, shape=("a",)), TypeError, "Box shape"),
    ("MultiDiscrete([2.5])", lambda: MultiDiscrete([2.5]), TypeError, "MultiDiscrete nvec"),
    (
        "MultiDiscrete(np.array([2.0, 0.5]))",
        lambda: MultiDiscrete(np.array([2.0, 0.5])),
        TypeError,
        "MultiDiscrete nvec must hold ints, got .* at index 1",
    ),
    ("MultiDiscrete([0.0])", lambda: MultiDiscrete([0.0]), ValueError, "must be positive"),
    (
        "MultiDiscrete start [0.5]",
        lambda: MultiDiscrete([2], start=[0.5]),
        TypeError,
        "MultiDiscrete start",
    ),
    ("MultiDiscrete(['a'])", lambda: MultiDiscrete(["a"]), TypeError, "MultiDiscrete nvec"),
    ("MultiBinary(2.5)", lambda: MultiBinary(2.5), TypeError, "MultiBinary n"),
    ("MultiBinary((2, 0.5))", lambda: MultiBinary((2, 0.5)), TypeError, "MultiBinary n"),
    ("MultiBinary(-1.0)", lambda: MultiBinary(-1.0), ValueError, "MultiBinary n"),
    ("MultiBinary('2')", lambda: MultiBinary("2"), TypeError, "MultiBinary n"),
    (
        "Sequence max_length 2.5",
        lambda: Sequence(Discrete(2), max_length=2.5),
        TypeError,
        "Sequence max_length",
    ),
    (
        "Sequence max_length 'x'",
        lambda: Sequence(Discrete(2), max_length="x"),
        TypeError,
        "Sequence max_length",
    ),
    ("MaskedBox max_size 1.5", lambda: MaskedBox(0, 1, max_size=1.5), TypeError, "max_size"),
    ("MaskedBox max_size None", lambda: MaskedBox(0, 1, max_size=None), TypeError, "max_size"),
    ("batch_space n 2.5", lambda: batch_space(Discrete(2), 2.5), TypeError, "batch_space n"),
    (
        "TimeLimit 2.5",
        lambda: TimeLimit(_cartpole(), max_episode_steps=2.5),
        TypeError,
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
        TypeError,
        "RecordEpisodeStatistics: deque_size",
    ),
    (
        "FrameStackObservation 2.5",
        lambda: FrameStackObservation(_cartpole(), num_stack=2.5),
        TypeError,
        "FrameStackObservation: num_stack",
    ),
    ("ActionRepeat 2.5", lambda: ActionRepeat(_cartpole(), 2.5), TypeError, "repeat"),
    ("ActionRepeat 0.0", lambda: ActionRepeat(_cartpole(), 0.0), ValueError, "repeat"),
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
        TypeError,
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
        TypeError,
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
        TypeError,
        "max_episode_steps",
    ),
    (
        "EnvSpec max_episode_steps 2.5",
        lambda: sekai.EnvSpec("Probe-v0", max_episode_steps=2.5),
        TypeError,
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
        TypeError,
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
        TypeError,
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
    ("Canvas width 2.5", lambda: Canvas(2.5, 3), TypeError, "Canvas width"),
    ("Canvas height 'x'", lambda: Canvas(3, "x"), TypeError, "Canvas height"),
    ("make_vec num_envs 0", lambda: sekai.make_vec("CartPole-v1", 0), ValueError, "num_envs"),
    ("make_vec num_envs nan", lambda: sekai.make_vec("CartPole-v1", np.nan), TypeError, "num_envs"),
    (
        "ProcVecEnv num_workers 1.5",
        lambda: ProcVecEnv([_cartpole] * 2, num_workers=1.5),
        TypeError,
        r"num_workers must be an int, got float 1\.5",
    ),
    (
        "ProcVecEnv num_workers 0",
        lambda: ProcVecEnv([_cartpole] * 2, num_workers=0),
        ValueError,
        "num_workers must be at least 1",
    ),
    (
        "check_env n_steps 2.5",
        lambda: sekai.check_env(_cartpole(), n_steps=2.5),
        TypeError,
        r"check_env n_steps must be an int, got float 2\.5",
    ),
    (
        "check_env n_steps 0.0",
        lambda: sekai.check_env(_cartpole(), n_steps=0.0),
        ValueError,
        "check_env n_steps must be a positive int, got 0",
    ),
    ("reset seed 2.5", lambda: _cartpole().reset(seed=2.5), TypeError, "seed must be an int"),
    ("reset seed -1.0", lambda: _cartpole().reset(seed=-1.0), ValueError, "non-negative"),
    ("vector seed 2.5", lambda: _vec().reset(seed=2.5), TypeError, "seed must be an int"),
    (
        "make_seed_sequence n 2.5",
        lambda: make_seed_sequence(0, 2.5),
        TypeError,
        "make_seed_sequence n",
    ),
    (
        "TradingEnv episode_length 2.5",
        lambda: TradingEnv(episode_length=2.5),
        TypeError,
        r"episode_length must be an int, got float 2\.5",
    ),
    (
        "TradingEnv lookback 0.0",
        lambda: TradingEnv(lookback=0.0),
        ValueError,
        "lookback must be at least 1, got 0",
    ),
    ("TradingEnv sampler 1.5", lambda: TradingEnv(sampler=1.5), TypeError, "sampler"),
    ("PortfolioEnv n_assets 2.5", lambda: PortfolioEnv(n_assets=2.5), TypeError, "n_assets"),
    ("MarketEnv max_assets 2.5", lambda: MarketEnv(max_assets=2.5), TypeError, "max_assets"),
    ("MarketMakingEnv n_steps 2.5", lambda: MarketMakingEnv(n_steps=2.5), TypeError, "n_steps"),
    (
        "MarketMakingEnv max_inventory inf",
        lambda: MarketMakingEnv(max_inventory=np.inf),
        TypeError,
        "max_inventory",
    ),
    (
        "OptimalExecutionEnv n_steps 2.5",
        lambda: OptimalExecutionEnv(n_steps=2.5),
        TypeError,
        "n_steps",
    ),
    ("LimitOrderBookEnv levels 2.5", lambda: LimitOrderBookEnv(levels=2.5), TypeError, "levels"),
    (
        "LimitOrderBookEnv mid_price 100.5",
        lambda: LimitOrderBookEnv(mid_price=100.5),
        TypeError,
        "mid_price",
    ),
    ("SequentialStart start 0.5", lambda: SequentialStart(start=0.5), TypeError, "start"),
    ("SlotMap max_slots 2.5", lambda: SlotMap(2.5), TypeError, "max_slots"),
    ("simulate_gbm n_steps 2.5", lambda: _gbm(2.5), TypeError, "n_steps"),
    (
        "MaskedBox.pack slots [0.5]",
        lambda: MaskedBox(0, 1, max_size=2).pack([0.5], slots=[0.5]),
        TypeError,
        "MaskedBox.pack slots must hold ints",
    ),
    (
        "Sequence mask length 1.5",
        lambda: Sequence(Discrete(2), max_length=3).sample(mask=(1.5, None)),
        TypeError,
        "Sequence mask length",
    ),
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


#: Whole floats where an int is needed: (label, build, read the stored value, expected int).
WHOLE: list[tuple[str, Callable[[], Any], Callable[[Any], Any], Any]] = [
    ("Discrete(3.0)", lambda: Discrete(3.0), lambda s: s.n, 3),
    ("Discrete(np.float32(3.0))", lambda: Discrete(np.float32(3.0)), lambda s: s.n, 3),
    ("Discrete start -1.0", lambda: Discrete(2, start=-1.0), lambda s: s.start, -1),
    (
        "MultiDiscrete([2.0, 3.0])",
        lambda: MultiDiscrete([2.0, 3.0]),
        lambda s: s.nvec.tolist(),
        [2, 3],
    ),
    (
        "MultiDiscrete(np.array([[2.0], [4.0]]))",
        lambda: MultiDiscrete(np.array([[2.0], [4.0]])),
        lambda s: s.nvec.tolist(),
        [[2], [4]],
    ),
    ("MultiBinary(2.0)", lambda: MultiBinary(2.0), lambda s: s.n, (2,)),
    ("MultiBinary((2.0, 3))", lambda: MultiBinary((2.0, 3)), lambda s: s.n, (2, 3)),
    ("Box shape (2.0,)", lambda: Box(0, 1, shape=(2.0,)), lambda s: s.shape, (2,)),
    (
        "Sequence max_length 3.0",
        lambda: Sequence(Discrete(2), max_length=3.0),
        lambda s: s.max_length,
        3,
    ),
    ("MaskedBox max_size 2.0", lambda: MaskedBox(0, 1, max_size=2.0), lambda s: s.max_size, 2),
    ("batch_space n 2.0", lambda: batch_space(Discrete(2), 2.0), lambda s: s.shape, (2,)),
    ("RunningMeanStd shape (2.0,)", lambda: RunningMeanStd(shape=(2.0,)), lambda s: s.shape, (2,)),
    (
        "TimeLimit 5.0",
        lambda: TimeLimit(_cartpole(), max_episode_steps=5.0),
        lambda w: w.max_episode_steps,
        5,
    ),
    (
        "FrameStackObservation 3.0",
        lambda: FrameStackObservation(_cartpole(), num_stack=3.0),
        lambda w: w.num_stack,
        3,
    ),
    ("ActionRepeat 2.0", lambda: ActionRepeat(_cartpole(), 2.0), lambda w: w.repeat, 2),
    ("make_vec num_envs 2.0", lambda: sekai.make_vec("CartPole-v1", 2.0), lambda v: v.num_envs, 2),
    ("check_env n_steps 3.0", lambda: sekai.check_env(_cartpole(), n_steps=3.0), lambda r: r, []),
    (
        "TradingEnv episode_length 20.0",
        lambda: TradingEnv(episode_length=20.0),
        lambda e: e.episode_length,
        20,
    ),
    ("SequentialStart start 2.0", lambda: SequentialStart(start=2.0), lambda s: s.start, 2),
    ("np_random seed 3.0", lambda: np_random(3.0), lambda r: r[1], 3),
    ("make_seed_sequence 0.0, 2.0", lambda: make_seed_sequence(0.0, 2.0), len, 2),
]


@pytest.mark.parametrize(("label", "build", "read", "expected"), WHOLE, ids=[w[0] for w in WHOLE])
def test_a_whole_float_is_taken_as_its_int(
    label: str, build: Callable[[], Any], read: Callable[[Any], Any], expected: Any
) -> None:
    value = read(build())
    assert value == expected, label
    if isinstance(expected, int):
        assert type(value) is int, label


def test_a_whole_float_seed_is_the_int_seed() -> None:
    env = _cartpole()
    first = env.reset(seed=3.0).observation
    assert np.array_equal(first, env.reset(seed=3).observation)
    assert make_seed_sequence(7.0, 3) == make_seed_sequence(7, 3)

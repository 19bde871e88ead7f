"""The top-level package: exports, deprecations, entry points."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

import sekai
import sekai.sekai

SPEC_ALL = """__version__,
Env, Wrapper, ObservationWrapper, RewardWrapper, ActionWrapper, MultiAgentEnv,
StepResult, ResetResult, MAStepResult, MAResetResult,
Space, Box, Discrete, MultiDiscrete, MultiBinary, Dict, Tuple, Sequence, MaskedBox, space_utils,
register, deregister, make, make_vec, spec, all_specs, register_namespace, pprint_registry,
EnvSpec, WrapperSpec,
VecEnv, SyncVecEnv, AsyncVecEnv, ProcVecEnv, NativeVecEnv, VecStepResult, VecResetResult,
stack_infos, VecWrapper, VecObservationWrapper, VecRewardWrapper, VecActionWrapper,
VecRecordEpisodeStatistics, VecNormalizeObservation, VecNormalizeReward,
VecTransformObservation, VecTransformReward,
EpisodeStats, StatsTracker, InMemoryTracker, LoggingTracker,
TimeLimit, AutoReset, RecordEpisodeStatistics, ClipAction, RescaleAction, FlattenObservation,
NormalizeObservation, NormalizeReward, FrameStackObservation, TransformObservation,
TransformReward, OrderEnforcing, ClipReward, RescaleObservation, DtypeObservation,
FilterObservation, TimeAwareObservation, DelayObservation, StickyAction, ActionRepeat,
DelayAction, ActionMaskObservation, PadSequenceObservation,
envs, finance, compat, wrappers, spaces, vector, rendering, stats, utils, error,
SekaiError, EnvNotFound, EnvAlreadyRegistered, InvalidAction, InvalidObservation,
ResetRequired, AsyncCallPending, SpaceMismatch, VecEnvWorkerError, VecEnvClosed, LookAheadError,
np_random, make_seed_sequence, check_env, RunningMeanStd, ExponentialMovingStats, get_action_mask"""


def test_all_follows_the_spec_order() -> None:
    names = [name.strip() for name in SPEC_ALL.replace("\n", " ").split(",")]
    assert sekai.__all__ == names


def test_every_exported_name_exists() -> None:
    for name in sekai.__all__:
        assert hasattr(sekai, name), name
    assert len(set(sekai.__all__)) == len(sekai.__all__)
    assert sekai.space_utils is sekai.spaces.utils
    assert sekai.__version__ == sekai._version.__version__


def test_backend_mismatch_deprecated_at_top_level() -> None:
    assert "BackendMismatch" not in sekai.__all__
    with pytest.warns(DeprecationWarning, match=r"sekai\.BackendMismatch is deprecated") as rec:
        cls = sekai.BackendMismatch
    assert "removed in sekai 0.3" in str(rec[0].message)
    assert issubclass(cls, sekai.SekaiError)
    with pytest.raises(AttributeError):
        sekai.NotAThing  # noqa: B018


def test_convenience_module() -> None:
    assert sekai.sekai.make is sekai.make
    assert sekai.sekai.__version__ == sekai.__version__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert sekai.sekai.BackendMismatch is sekai.BackendMismatch
    with pytest.raises(AttributeError):
        sekai.sekai.NotAThing  # noqa: B018


def test_builtin_registrations_in_order() -> None:
    ids = [s.id for s in sekai.all_specs()]
    assert ids[:5] == [
        "CartPole-v1",
        "MountainCar-v0",
        "MountainCarContinuous-v0",
        "Pendulum-v1",
        "Acrobot-v1",
    ]
    table = {
        "CartPole-v1": ("cartpole:CartPoleEnv", 500, 475.0),
        "MountainCar-v0": ("mountain_car:MountainCarEnv", 200, -110.0),
        "MountainCarContinuous-v0": (
            "continuous_mountain_car:ContinuousMountainCarEnv",
            999,
            90.0,
        ),
        "Pendulum-v1": ("pendulum:PendulumEnv", 200, None),
        "Acrobot-v1": ("acrobot:AcrobotEnv", 500, -100.0),
    }
    for env_id, (entry, limit, threshold) in table.items():
        spec = sekai.spec(env_id)
        assert spec.entry_point == f"sekai.envs.classic_control.{entry}"
        assert (spec.max_episode_steps, spec.reward_threshold) == (limit, threshold)
        assert spec.kwargs == {} and spec.additional_wrappers == ()
        assert not spec.nondeterministic


def test_python_dash_m_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "sekai", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"sekai {sekai.__version__}"


def test_finance_registrations_follow_the_classic_ones_in_order() -> None:
    ids = [s.id for s in sekai.all_specs()][5:12]
    assert ids == [
        "Trading-v0",
        "Portfolio-v0",
        "MarketMaking-v0",
        "MarketMaking-v1",
        "OptimalExecution-v0",
        "Market-v0",
        "LimitOrderBook-v0",
    ]
    vector = {
        "Trading-v0",
        "Portfolio-v0",
        "MarketMaking-v0",
        "MarketMaking-v1",
        "OptimalExecution-v0",
        "Market-v0",
    }
    for env_id in ids:
        spec = sekai.spec(env_id)
        assert spec.max_episode_steps is None
        assert (spec.kwargs == {}) == env_id.endswith("-v0")  # -v1 ids switch options on
        assert (spec.vector_entry_point is not None) == (env_id in vector)
    assert sekai.spec("Market-v0").entry_point == "sekai.envs.finance.market_env:MarketEnv"
    assert sekai.spec("Market-v0").vector_entry_point == "sekai.envs.finance.vector:MarketVecEnv"
    assert sekai.spec("LimitOrderBook-v0").entry_point == (
        "sekai.envs.finance.lob_env:LimitOrderBookEnv"
    )
    assert "LimitOrderBookMarket" not in {s.entry_point.rsplit(":")[-1] for s in sekai.all_specs()}


def test_envs_all_is_the_spec_list() -> None:
    import sekai.envs
    import sekai.envs.finance

    assert sekai.envs.__all__ == [
        "AcrobotEnv",
        "CartPoleEnv",
        "ContinuousMountainCarEnv",
        "MountainCarEnv",
        "PendulumEnv",
        "LimitOrderBookEnv",
        "LimitOrderBookMarket",
        "MarketEnv",
        "MarketMakingEnv",
        "OptimalExecutionEnv",
        "PortfolioEnv",
        "TradingEnv",
    ]
    assert sekai.envs.finance.__all__ == [
        "LimitOrderBookEnv",
        "LimitOrderBookMarket",
        "MarketEnv",
        "MarketMakingEnv",
        "OptimalExecutionEnv",
        "PortfolioEnv",
        "TradingEnv",
        "TradingVecEnv",
        "PortfolioVecEnv",
        "MarketMakingVecEnv",
        "OptimalExecutionVecEnv",
        "TradingRenderer",
        "PortfolioRenderer",
        "MarketRenderer",
        "MarketMakingRenderer",
        "OptimalExecutionRenderer",
        "LimitOrderBookRenderer",
        "LimitOrderBookMarketRenderer",
        "default_market",
        "random_correlation",
        "sample_window",
        "simulate_gbm",
    ]

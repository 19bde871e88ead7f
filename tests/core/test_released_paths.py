"""Every public module path and name sekai has released still imports.

The expected lists are literal data, never read from the package: the spec's ``__all__``
lists, entry points, module paths and the names it places in them; the old paths kept as
re-exports; the ``__all__`` of the modules that became packages; and every public module path
in the history of the source. A restructure that drops one fails here.
"""

from __future__ import annotations

import importlib
import types
from typing import Any

import pytest

import sekai


def words(text: str) -> list[str]:
    """The whitespace-separated words of ``text``: how the long lists below are written."""
    return text.split()


# Optional dependencies: a module or name that needs a missing one is skipped, not failed.
OPTIONAL = frozenset(
    words(
        "gymnasium pettingzoo pandas pyarrow polars numba ray PIL imageio stable_baselines3 "
        "sb3_contrib torch pygame"
    )
)

# -- the spec's ``__all__`` lists --------------------------------------------------------------

SEKAI_ALL = words("""
__version__
Env Wrapper ObservationWrapper RewardWrapper ActionWrapper MultiAgentEnv
StepResult ResetResult MAStepResult MAResetResult
Space Box Discrete MultiDiscrete MultiBinary Dict Tuple Sequence MaskedBox space_utils
register deregister make make_vec spec all_specs register_namespace pprint_registry
EnvSpec WrapperSpec
VecEnv SyncVecEnv AsyncVecEnv ProcVecEnv NativeVecEnv VecStepResult VecResetResult
stack_infos VecWrapper VecObservationWrapper VecRewardWrapper VecActionWrapper
VecRecordEpisodeStatistics VecNormalizeObservation VecNormalizeReward
VecTransformObservation VecTransformReward
EpisodeStats StatsTracker InMemoryTracker LoggingTracker
TimeLimit AutoReset RecordEpisodeStatistics ClipAction RescaleAction FlattenObservation
NormalizeObservation NormalizeReward FrameStackObservation TransformObservation
TransformReward OrderEnforcing ClipReward RescaleObservation DtypeObservation
FilterObservation TimeAwareObservation DelayObservation StickyAction ActionRepeat
DelayAction ActionMaskObservation PadSequenceObservation
envs finance compat wrappers spaces vector rendering stats utils error
SekaiError EnvNotFound EnvAlreadyRegistered InvalidAction InvalidObservation
ResetRequired AsyncCallPending SpaceMismatch VecEnvWorkerError VecEnvClosed LookAheadError
np_random make_seed_sequence check_env RunningMeanStd ExponentialMovingStats get_action_mask
""")

SPEC_ALL: dict[str, list[str]] = {
    "sekai.core": words(
        """StepResult ResetResult Env Wrapper ObservationWrapper RewardWrapper
        ActionWrapper MultiAgentEnv MAStepResult MAResetResult"""
    ),
    "sekai.spaces": words(
        """Space Box Discrete MultiDiscrete MultiBinary Dict Tuple Sequence MaskedBox
        flatdim flatten unflatten flatten_space batch_space concatenate iterate
        space_from_jsonable register_space_type zero_sample"""
    ),
    "sekai.registry": words(
        """EnvSpec WrapperSpec EnvRegistry register deregister make make_vec spec
        all_specs register_namespace pprint_registry"""
    ),
    "sekai.wrappers": words(
        """TimeLimit AutoReset OrderEnforcing RecordEpisodeStatistics ClipAction
        RescaleAction StickyAction ActionRepeat DelayAction FlattenObservation
        NormalizeObservation FrameStackObservation TransformObservation RescaleObservation
        DtypeObservation FilterObservation TimeAwareObservation DelayObservation
        ActionMaskObservation PadSequenceObservation NormalizeReward TransformReward
        ClipReward"""
    ),
    "sekai.vector": words(
        """VecStepResult VecResetResult stack_infos VecEnv SyncVecEnv AsyncVecEnv
        ProcVecEnv NativeVecEnv shared VecWrapper VecObservationWrapper VecRewardWrapper
        VecActionWrapper VecRecordEpisodeStatistics VecNormalizeObservation VecNormalizeReward
        VecTransformObservation VecTransformReward"""
    ),
    "sekai.stats": words("EpisodeStats StatsTracker InMemoryTracker LoggingTracker"),
    "sekai.utils": words(
        """np_random make_seed_sequence RunningMeanStd ExponentialMovingStats
        get_action_mask supports_action_mask action_mask_space flatten_action_mask"""
    ),
    "sekai.compat": words(
        """to_gymnasium from_gymnasium to_pettingzoo from_pettingzoo
        space_to_gymnasium space_from_gymnasium SekaiToGymnasium GymnasiumToSekai
        GymnasiumRenderer SekaiToPettingZoo PettingZooToSekai"""
    ),
    "sekai.envs": words(
        """AcrobotEnv CartPoleEnv ContinuousMountainCarEnv MountainCarEnv PendulumEnv
        LimitOrderBookEnv LimitOrderBookMarket MarketEnv MarketMakingEnv OptimalExecutionEnv
        PortfolioEnv TradingEnv"""
    ),
    "sekai.envs.finance": words(
        """LimitOrderBookEnv LimitOrderBookMarket MarketEnv MarketMakingEnv
        OptimalExecutionEnv PortfolioEnv TradingEnv TradingVecEnv PortfolioVecEnv
        MarketMakingVecEnv OptimalExecutionVecEnv TradingRenderer PortfolioRenderer
        MarketRenderer MarketMakingRenderer OptimalExecutionRenderer LimitOrderBookRenderer
        LimitOrderBookMarketRenderer default_market random_correlation sample_window
        simulate_gbm"""
    ),
    "sekai.finance": words(
        """MarketData Time EpisodeSampler RandomStart SequentialStart FixedStart
        MarketModel Simulation GBM Heston MertonJumpDiffusion RegimeSwitching GARCH
        MeanReverting CointegratedPair BlockBootstrap Randomized ListingProcess CostModel
        NoCost ProportionalCost SpreadCost FixedCost SquareRootImpact CompositeCost
        AccountConfig Settlement RewardFunction StepOutcome LogReturn SimpleReturn
        ProfitAndLoss MeanVariance TurnoverPenalty DrawdownPenalty DifferentialSharpe
        PerformanceSummary PnLSummary performance_summary pnl_summary RecordPerformance
        SlotMap OrderBook Order Fill Side BACKGROUND ZeroIntelligenceFlow PriceChart
        OrderBookChart UniverseChart"""
    ),
    "sekai.rendering": words(
        """Renderer BaseRenderer RenderFrame RGBArray ANSIString Canvas rotate
        text_width RecordFrames save_gif save_video Dashboard Panel View Row Column Series
        Stat LineChart BarChart StackedArea Theme LIGHT DARK get_theme charts"""
    ),
}

# Submodules the spec says a package has (each an attribute and importable).
SPEC_SUBMODULES: dict[str, list[str]] = {
    "sekai": words("envs finance compat wrappers spaces vector rendering stats utils error"),
    "sekai.finance": words(
        """account costs data features lob metrics rendering rewards sampling
        simulators universe"""
    ),
    "sekai.utils": words("checker normalization pickle seeding running_stats masking"),
}

# -- the spec's entry points -------------------------------------------------------------------

# (id, entry_point, vector_entry_point) as the registry table lists them.
REGISTRY_TABLE: list[tuple[str, str, str | None]] = [
    ("CartPole-v1", "sekai.envs.classic_control.cartpole:CartPoleEnv", None),
    ("MountainCar-v0", "sekai.envs.classic_control.mountain_car:MountainCarEnv", None),
    (
        "MountainCarContinuous-v0",
        "sekai.envs.classic_control.continuous_mountain_car:ContinuousMountainCarEnv",
        None,
    ),
    ("Pendulum-v1", "sekai.envs.classic_control.pendulum:PendulumEnv", None),
    ("Acrobot-v1", "sekai.envs.classic_control.acrobot:AcrobotEnv", None),
    (
        "Trading-v0",
        "sekai.envs.finance.trading:TradingEnv",
        "sekai.envs.finance.vector:TradingVecEnv",
    ),
    (
        "Portfolio-v0",
        "sekai.envs.finance.portfolio:PortfolioEnv",
        "sekai.envs.finance.vector:PortfolioVecEnv",
    ),
    (
        "MarketMaking-v0",
        "sekai.envs.finance.market_making:MarketMakingEnv",
        "sekai.envs.finance.vector:MarketMakingVecEnv",
    ),
    (
        "OptimalExecution-v0",
        "sekai.envs.finance.optimal_execution:OptimalExecutionEnv",
        "sekai.envs.finance.vector:OptimalExecutionVecEnv",
    ),
    ("Market-v0", "sekai.envs.finance.market_env:MarketEnv", None),
    ("LimitOrderBook-v0", "sekai.envs.finance.lob_env:LimitOrderBookEnv", None),
]

# Vector entry points registered since the spec's table was written.
ADDED_VECTOR_ENTRY_POINTS = {"Market-v0": "sekai.envs.finance.vector:MarketVecEnv"}

# The command line (the ``sekai`` console script).
CLI_ENTRY_POINT = "sekai.cli:main"

# -- module paths the spec names and the names it places in them -------------------------------

SPEC_NAMES: dict[str, list[str]] = {
    "sekai.error": words(
        """SekaiError EnvNotFound EnvAlreadyRegistered InvalidAction
        InvalidObservation ResetRequired AsyncCallPending SpaceMismatch VecEnvWorkerError
        VecEnvClosed LookAheadError"""
    ),
    "sekai._types": words(
        """ObsType ActType WObsType WActType AgentID T SeedType InfoDict RewardType
        RNGType RenderFrame"""
    ),
    "sekai.sekai": SEKAI_ALL,
    "sekai.cli": ["main"],
    "sekai.core.env": ["Env"],
    "sekai.core.result": words("StepResult ResetResult MAStepResult MAResetResult"),
    "sekai.spaces.box": words("Box float_dtype"),
    "sekai.spaces.utils": words(
        """flatdim flatten unflatten flatten_space batch_space concatenate
        iterate zero_sample register_space_type space_from_jsonable"""
    ),
    "sekai.vector.result": words("VecStepResult VecResetResult stack_infos"),
    "sekai.vector.vec_env": words(
        """VecEnv GENERATOR_SEED_ERROR env_get_attr env_set_attr env_call
        build_envs close_envs needs_autoreset frozen_step merge_autoreset"""
    ),
    "sekai.vector.vec_wrapper": words(
        """VecWrapper VecObservationWrapper VecRewardWrapper
        VecActionWrapper"""
    ),
    "sekai.vector.wrappers": words(
        """VecRecordEpisodeStatistics VecNormalizeObservation
        VecNormalizeReward VecTransformObservation VecTransformReward"""
    ),
    "sekai.vector.native": words("NativeVecEnv shared"),
    "sekai.utils.seeding": words("np_random make_seed_sequence child_seeds"),
    "sekai.utils.pickle": ["CloudpickleWrapper"],
    "sekai.utils.running_stats": words("RunningMeanStd ExponentialMovingStats"),
    "sekai.utils.normalization": ["ObservationNormalizer"],
    "sekai.utils.masking": words(
        """supports_action_mask get_action_mask action_mask_space
        flatten_action_mask"""
    ),
    "sekai.utils.checker": ["check_env"],
    "sekai.envs.classic_control": words(
        """CartPoleEnv MountainCarEnv ContinuousMountainCarEnv
        PendulumEnv AcrobotEnv"""
    ),
    "sekai.envs.classic_control.rendering": words(
        """CartPoleRenderer MountainCarRenderer
        PendulumRenderer AcrobotRenderer"""
    ),
    "sekai.envs.finance._common": [],
    "sekai.envs.finance.market": words(
        """validate_prices random_correlation sample_window
        simulate_gbm"""
    ),
    "sekai.envs.finance.lob_env": words("SELL HOLD BUY LimitOrderBookEnv"),
    "sekai.envs.finance.vector": words(
        """TradingVecEnv PortfolioVecEnv MarketMakingVecEnv
        OptimalExecutionVecEnv"""
    ),
    "sekai.envs.finance.rendering": words(
        """TradingRenderer PortfolioRenderer MarketRenderer
        MarketMakingRenderer OptimalExecutionRenderer LimitOrderBookRenderer
        LimitOrderBookMarketRenderer"""
    ),
    "sekai.finance.data": words("Time MarketData row_of naive_datetime64"),
    "sekai.finance.sampling": words(
        """EpisodeSampler RandomStart SequentialStart FixedStart
        as_sampler first_start sample_start resolve_start"""
    ),
    "sekai.finance.simulators": words(
        """Simulation MarketModel GBM Heston MertonJumpDiffusion
        RegimeSwitching GARCH MeanReverting CointegratedPair BlockBootstrap Randomized
        ListingProcess"""
    ),
    "sekai.finance.costs": words(
        """CostModel NoCost ProportionalCost SpreadCost FixedCost
        SquareRootImpact CompositeCost as_cost_model"""
    ),
    "sekai.finance.account": words("AccountConfig project_weights Settlement settle turnover"),
    "sekai.finance.rewards": words(
        """StepOutcome RewardFunction LogReturn SimpleReturn ProfitAndLoss
        MeanVariance TurnoverPenalty DrawdownPenalty DifferentialSharpe"""
    ),
    "sekai.finance.metrics": words(
        """equity_curve returns_from_equity total_return
        annualized_return annualized_volatility sharpe_ratio sortino_ratio drawdown_series
        max_drawdown calmar_ratio value_at_risk conditional_value_at_risk hit_rate
        PerformanceSummary performance_summary PnLSummary pnl_summary
        RecordPerformance"""
    ),
    "sekai.finance.universe": ["SlotMap"],
    "sekai.finance.lob": words("Side BACKGROUND Order Fill OrderBook ZeroIntelligenceFlow"),
    "sekai.finance.features": words(
        """log_returns simple_returns momentum lag forward_fill
        rolling_mean rolling_std rolling_zscore ewm_mean ewm_std realized_volatility
        cross_sectional_zscore cross_sectional_rank asof_join check_causal"""
    ),
    "sekai.finance.rendering": words("PriceChart OrderBookChart UniverseChart"),
    "sekai.rendering.recorder": words("RecordFrames save_gif save_video"),
    "sekai.rendering.text": words("face Face Glyph text_width font_sizes"),
    "sekai.rendering.theme": words("Theme LIGHT DARK rgb mix luminance get_theme THEMES"),
    "sekai.rendering.charts": words(
        """MINUS Marker Swatch Box nice_step nice_ticks decimals_for
        format_number tick_labels value_range Plot legend legend_width triangle"""
    ),
    "sekai.rendering.dashboard": words(
        """Source Series Stat Panel Row Column View LineChart
        BarChart StackedArea shade_steps tick_count Dashboard"""
    ),
}

# -- old paths kept as re-exports: (old module, home module, names), the very same objects -----

KEPT_PATHS: list[tuple[str, str, list[str]]] = [
    ("sekai.utils.checker", "sekai.testing", ["check_env"]),
    (
        "sekai.utils.masking",
        "sekai.spaces.masking",
        words("action_mask_space flatten_action_mask get_action_mask supports_action_mask"),
    ),
    (
        "sekai.utils",
        "sekai.spaces.masking",
        words("action_mask_space flatten_action_mask get_action_mask supports_action_mask"),
    ),
    (
        "sekai.utils.normalization",
        "sekai.wrappers._normalizer",
        ["ObservationNormalizer", "StatsKind"],
    ),
    ("sekai.vector.vec_env", "sekai.core.result", ["merge_autoreset"]),
    ("sekai.rendering.dashboard", "sekai.rendering.plot", ["shade_steps"]),
    (
        "sekai.registry.gymnasium_registration",
        "sekai.compat.gymnasium_registration",
        words(
            """gymnasium_id make_gymnasium_env make_gymnasium_vector_env register_gymnasium
            register_when_gymnasium_loads"""
        ),
    ),
    (
        "sekai.compat.sb3",
        "sekai.compat.gymnasium_vector",
        words("GymnasiumVectorToSekai from_gymnasium_vector vector_infos_to_list"),
    ),
    ("sekai.rendering.dashboard", "sekai.rendering.ticks", ["tick_count"]),
    (
        "sekai.envs.finance._common",
        "sekai.envs.finance._checks",
        words("EPISODE_ENDED action_floats check_float check_int episode_ended"),
    ),
    ("sekai.envs.finance.market", "sekai.envs.finance.windowed.env", ["validate_prices"]),
    ("sekai.envs.finance.windowed.env", "sekai.envs.finance.windowed.config", ["cost_model_of"]),
    (
        "sekai.envs.finance.market",
        "sekai.finance.simulators",
        words("random_correlation sample_window simulate_gbm"),
    ),
    ("sekai.envs.finance.market_env", "sekai.envs.finance.market.env", ["MarketEnv"]),
    (
        "sekai.envs.finance.lob_env",
        "sekai.envs.finance.order_book.env",
        words("BUY HOLD SELL LimitOrderBookEnv LimitOrderBookMarket"),
    ),
    ("sekai.envs.finance.vector", "sekai.envs.finance.trading.vector", ["TradingVecEnv"]),
    ("sekai.envs.finance.vector", "sekai.envs.finance.portfolio.vector", ["PortfolioVecEnv"]),
    (
        "sekai.envs.finance.vector",
        "sekai.envs.finance.market_making.vector",
        ["MarketMakingVecEnv"],
    ),
    (
        "sekai.envs.finance.vector",
        "sekai.envs.finance.optimal_execution.vector",
        ["OptimalExecutionVecEnv"],
    ),
    ("sekai.envs.finance.vector", "sekai.envs.finance.market.vector", ["MarketVecEnv"]),
    ("sekai.envs.finance.rendering", "sekai.envs.finance.trading.viewer", ["TradingRenderer"]),
    (
        "sekai.envs.finance.rendering",
        "sekai.envs.finance.portfolio.viewer",
        ["PortfolioRenderer"],
    ),
    ("sekai.envs.finance.rendering", "sekai.envs.finance.market.viewer", ["MarketRenderer"]),
    (
        "sekai.envs.finance.rendering",
        "sekai.envs.finance.market_making.viewer",
        ["MarketMakingRenderer"],
    ),
    (
        "sekai.envs.finance.rendering",
        "sekai.envs.finance.optimal_execution.viewer",
        ["OptimalExecutionRenderer"],
    ),
    (
        "sekai.envs.finance.rendering",
        "sekai.envs.finance.order_book.viewer",
        words("LimitOrderBookRenderer LimitOrderBookMarketRenderer"),
    ),
    ("sekai.finance.lob.compiled_book", "sekai.finance.lob.compiled.book", ["CompiledBook"]),
    ("sekai.finance.lob.lobster_flow", "sekai.finance.lob.lobster.flow", ["HistoricalFlow"]),
    ("sekai.finance.lob.lobster_read", "sekai.finance.lob.lobster.read", ["read_lobster"]),
    (
        "sekai.finance.lob.lobster_replay",
        "sekai.finance.lob.lobster.replay",
        words("ANONYMOUS EMPTY_ASK EMPTY_BID LobsterEvent depth_rows replay"),
    ),
    (
        "sekai.finance.lob.lobster_simulate",
        "sekai.finance.lob.lobster.simulate",
        words("simulate_lobster write_lobster"),
    ),
    (
        "sekai.finance.lob.lobster",
        "sekai.finance.lob.lobster.data",
        words("LobsterData lobster_file_name"),
    ),
]

# gymnasium's wrapper module names under ``sekai.wrappers`` and the classes each gives.
WRAPPER_ALIASES: dict[str, list[str]] = {
    "autoreset": ["AutoReset"],
    "clip_action": ["ClipAction"],
    "filter_observation": ["FilterObservation"],
    "flatten_observation": ["FlattenObservation"],
    "frame_stack": ["FrameStackObservation"],
    "normalize": ["NormalizeObservation", "NormalizeReward"],
    "order_enforcing": ["OrderEnforcing"],
    "record_episode_statistics": ["RecordEpisodeStatistics"],
    "rescale_action": ["RescaleAction"],
    "time_aware_observation": ["TimeAwareObservation"],
    "time_limit": ["TimeLimit"],
    "stateful_action": ["ActionRepeat", "StickyAction"],
    "stateful_observation": words(
        """DelayObservation FrameStackObservation NormalizeObservation
        TimeAwareObservation"""
    ),
    "stateful_reward": ["NormalizeReward"],
    "transform_action": ["ClipAction", "RescaleAction"],
    "transform_observation": words(
        """DtypeObservation FilterObservation FlattenObservation
        RescaleObservation TransformObservation"""
    ),
    "transform_reward": ["ClipReward", "TransformReward"],
}

# -- modules that became packages: the ``__all__`` each had as a module --------------------------

FORMER_ALL: dict[str, list[str]] = {
    "sekai.envs.classic_control.acrobot": ["AcrobotEnv", "bound", "wrap"],
    "sekai.envs.classic_control.cartpole": ["CartPoleEnv"],
    "sekai.envs.classic_control.continuous_mountain_car": ["ContinuousMountainCarEnv"],
    "sekai.envs.classic_control.mountain_car": ["MountainCarEnv"],
    "sekai.envs.classic_control.pendulum": ["PendulumEnv", "angle_normalize"],
    "sekai.envs.finance.market_making": ["MarketMakingEnv"],
    "sekai.envs.finance.optimal_execution": ["OptimalExecutionEnv"],
    "sekai.envs.finance.portfolio": ["PortfolioEnv", "cash_weights"],
    "sekai.envs.finance.trading": ["TradingEnv"],
    # The module also listed the windowed base's internals (History, WindowedEnv,
    # load_history, ...), never public API: they live in sekai.envs.finance.windowed.
    "sekai.envs.finance.market": words(
        """default_market random_correlation sample_window
        simulate_gbm validate_prices"""
    ),
    "sekai.finance.data": words("MarketData Time naive_datetime64 row_of"),
    "sekai.finance.lob": words(
        """BACKGROUND MAX_EXPECTED_EVENTS Fill Order OrderBook Side
        ZeroIntelligenceFlow"""
    ),
    "sekai.finance.lob.lobster": words("LobsterData lobster_file_name"),
    "sekai.finance.metrics": words(
        """PerformanceSummary PnLSummary RecordPerformance
        annualized_return annualized_volatility calmar_ratio conditional_value_at_risk
        drawdown_series equity_curve hit_rate max_drawdown performance_summary pnl_summary
        returns_from_equity sharpe_ratio sortino_ratio total_return value_at_risk"""
    ),
    "sekai.finance.simulators": words(
        """GARCH GBM BlockBootstrap CointegratedPair Heston
        ListingProcess MarketModel MeanReverting MertonJumpDiffusion Randomized
        RegimeSwitching Simulation random_correlation sample_window simulate_gbm"""
    ),
    "sekai.testing": ["VECTOR_BACKENDS", "check_vector_backends"],
}

# -- every public module path in the history of the source ------------------------------------

HISTORY_MODULES = words("""
sekai sekai.cli sekai.compat sekai.compat.gymnasium sekai.compat.gymnasium_registration
sekai.compat.gymnasium_vector
sekai.compat.pettingzoo sekai.compat.sb3 sekai.core sekai.core.closing sekai.core.env
sekai.core.multi_agent sekai.core.options sekai.core.result sekai.core.rng sekai.core.spec
sekai.core.wrapper sekai.envs sekai.envs.classic_control sekai.envs.classic_control.acrobot
sekai.envs.classic_control.acrobot.env sekai.envs.classic_control.acrobot.vector
sekai.envs.classic_control.cartpole sekai.envs.classic_control.cartpole.env
sekai.envs.classic_control.cartpole.vector sekai.envs.classic_control.continuous_mountain_car
sekai.envs.classic_control.continuous_mountain_car.env
sekai.envs.classic_control.continuous_mountain_car.vector sekai.envs.classic_control.mountain_car
sekai.envs.classic_control.mountain_car.env sekai.envs.classic_control.mountain_car.vector
sekai.envs.classic_control.pendulum sekai.envs.classic_control.pendulum.env
sekai.envs.classic_control.pendulum.vector sekai.envs.classic_control.rendering sekai.envs.finance
sekai.envs.finance.dashboard sekai.envs.finance.lob_env sekai.envs.finance.market
sekai.envs.finance.market.env sekai.envs.finance.market.vector sekai.envs.finance.market.viewer
sekai.envs.finance.market_env sekai.envs.finance.market_making
sekai.envs.finance.market_making.env sekai.envs.finance.market_making.vector
sekai.envs.finance.market_making.viewer sekai.envs.finance.optimal_execution
sekai.envs.finance.optimal_execution.env sekai.envs.finance.optimal_execution.vector
sekai.envs.finance.optimal_execution.viewer sekai.envs.finance.order_book
sekai.envs.finance.order_book.compiled sekai.envs.finance.order_book.config
sekai.envs.finance.order_book.core
sekai.envs.finance.order_book.env sekai.envs.finance.order_book.kernels
sekai.envs.finance.order_book.viewer sekai.envs.finance.portfolio sekai.envs.finance.portfolio.env
sekai.envs.finance.portfolio.vector sekai.envs.finance.portfolio.viewer
sekai.envs.finance.rendering sekai.envs.finance.trading sekai.envs.finance.trading.env
sekai.envs.finance.trading.vector sekai.envs.finance.trading.viewer sekai.envs.finance.vector
sekai.envs.finance.windowed sekai.envs.finance.windowed.env sekai.envs.finance.windowed.vector
sekai.error sekai.finance sekai.finance.account sekai.finance.charts
sekai.finance.charts.order_book sekai.finance.charts.price sekai.finance.charts.report
sekai.finance.charts.universe sekai.finance.costs sekai.finance.data sekai.finance.data.files
sekai.finance.data.pandas_io sekai.finance.data.panel sekai.finance.data.timeaxis
sekai.finance.evaluation sekai.finance.evaluation.backtest sekai.finance.evaluation.holdings
sekai.finance.evaluation.reports sekai.finance.evaluation.walk_forward sekai.finance.features
sekai.finance.lob sekai.finance.lob.book sekai.finance.lob.compiled_book sekai.finance.lob.engine
sekai.finance.lob.lobster sekai.finance.lob.lobster_flow sekai.finance.lob.lobster_read
sekai.finance.lob.lobster_replay sekai.finance.lob.lobster_simulate sekai.finance.lob.zi_flow
sekai.finance.lob.compiled sekai.finance.lob.compiled.book sekai.finance.lob.compiled.book_rules
sekai.finance.lob.compiled.book_state sekai.finance.lob.compiled.compiling
sekai.finance.lob.compiled.lobster_flow sekai.finance.lob.compiled.lobster_read
sekai.finance.lob.compiled.lobster_replay sekai.finance.lob.compiled.zi_flow
sekai.finance.lob.lobster.data sekai.finance.lob.lobster.flow sekai.finance.lob.lobster.read
sekai.finance.lob.lobster.replay sekai.finance.lob.lobster.simulate sekai.finance.metrics
sekai.finance.metrics.recorder sekai.finance.metrics.series sekai.finance.metrics.summary
sekai.finance.rendering sekai.finance.rewards sekai.finance.sampling sekai.finance.simulators
sekai.finance.simulators.base sekai.finance.simulators.bootstrap
sekai.finance.simulators.composite sekai.finance.simulators.gbm sekai.finance.simulators.jumps
sekai.finance.simulators.mean_reversion sekai.finance.simulators.regimes
sekai.finance.simulators.volatility sekai.finance.universe sekai.registry
sekai.registry.gymnasium_registration sekai.registry.registry sekai.registry.spec sekai.rendering
sekai.rendering.box sekai.rendering.canvas sekai.rendering.charts sekai.rendering.coverage
sekai.rendering.dashboard sekai.rendering.dates sekai.rendering.history sekai.rendering.layout
sekai.rendering.panels sekai.rendering.plot sekai.rendering.recorder sekai.rendering.renderer
sekai.rendering.sources sekai.rendering.text sekai.rendering.theme sekai.rendering.ticks
sekai.sekai sekai.spaces sekai.spaces.box sekai.spaces.dict sekai.spaces.discrete
sekai.spaces.masked_box sekai.spaces.masking sekai.spaces.multi_binary sekai.spaces.multi_discrete
sekai.spaces.sequence sekai.spaces.space sekai.spaces.tuple sekai.spaces.utils sekai.stats
sekai.stats.collectors sekai.stats.tracker sekai.testing sekai.testing.conformance
sekai.testing.env_checker sekai.testing.native_matches sekai.testing.trees
sekai.testing.vector_backends sekai.utils sekai.utils.checker sekai.utils.extras
sekai.utils.masking sekai.utils.normalization sekai.utils.pickle sekai.utils.progress
sekai.utils.running_stats sekai.utils.seeding sekai.utils.validation sekai.vector
sekai.vector.async_vec_env sekai.vector.lazy_infos sekai.vector.native sekai.vector.partial_reset
sekai.vector.proc_vec_env sekai.vector.ray_vec_env sekai.vector.result sekai.vector.sync_vec_env
sekai.vector.template sekai.vector.vec_env sekai.vector.vec_wrapper sekai.vector.wrappers
sekai.wrappers sekai.wrappers.action sekai.wrappers.autoreset sekai.wrappers.clip_action
sekai.wrappers.common sekai.wrappers.filter_observation sekai.wrappers.flatten_observation
sekai.wrappers.frame_stack sekai.wrappers.normalization sekai.wrappers.normalize
sekai.wrappers.observation sekai.wrappers.order_enforcing sekai.wrappers.record_episode_statistics
sekai.wrappers.rescale_action sekai.wrappers.reward sekai.wrappers.stateful_action
sekai.wrappers.stateful_observation sekai.wrappers.stateful_reward
sekai.wrappers.time_aware_observation sekai.wrappers.time_limit sekai.wrappers.transform_action
sekai.wrappers.transform_observation sekai.wrappers.transform_reward
""")


# -- helpers ----------------------------------------------------------------------------------


def _needs_missing_optional(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or an exception it was raised from) is a missing optional dependency."""
    while exc is not None:
        if isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] in OPTIONAL:
            return True
        exc = exc.__cause__
    return False


def load(module: str) -> types.ModuleType:
    """``import module``; skipped when it needs a missing optional dependency."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if _needs_missing_optional(exc):
            pytest.skip(f"{module} needs an optional dependency: {exc}")
        raise


def resolve(module: str, name: str) -> Any:
    """``from module import name``, as a user writes it."""
    load(module)
    namespace: dict[str, Any] = {}
    try:
        exec(f"from {module} import {name}", namespace)
    except ImportError as exc:
        if _needs_missing_optional(exc):
            pytest.skip(f"{module}.{name} needs an optional dependency: {exc}")
        raise
    return namespace[name]


def resolve_entry_point(entry_point: str) -> Any:
    module, _, name = entry_point.partition(":")
    return resolve(module, name)


def _cases(table: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(module, name) for module, names in table.items() for name in names]


# -- tests ------------------------------------------------------------------------------------


def test_sekai_all_is_the_spec_list_in_order() -> None:
    assert sekai.__all__ == SEKAI_ALL


@pytest.mark.parametrize(("module", "name"), _cases(SPEC_ALL))
def test_spec_all_names_are_listed_and_import(module: str, name: str) -> None:
    assert name in load(module).__all__
    resolve(module, name)


@pytest.mark.parametrize(("package", "name"), _cases(SPEC_SUBMODULES))
def test_spec_submodules_are_attributes_and_import(package: str, name: str) -> None:
    submodule = load(f"{package}.{name}")
    assert getattr(load(package), name) is submodule


@pytest.mark.parametrize(
    ("env_id", "entry_point", "vector_entry_point"),
    REGISTRY_TABLE,
    ids=[row[0] for row in REGISTRY_TABLE],
)
def test_registry_entry_points_are_the_spec_paths_and_import(
    env_id: str, entry_point: str, vector_entry_point: str | None
) -> None:
    spec = sekai.spec(env_id)
    assert spec.entry_point == entry_point
    vector_entry_point = vector_entry_point or ADDED_VECTOR_ENTRY_POINTS.get(env_id)
    assert spec.vector_entry_point == vector_entry_point
    cls = resolve_entry_point(entry_point)
    assert cls is getattr(sekai.envs, entry_point.rpartition(":")[2])
    if vector_entry_point is not None:
        vector_cls = resolve_entry_point(vector_entry_point)
        assert issubclass(vector_cls, sekai.VecEnv)


def test_the_command_line_entry_point_imports() -> None:
    assert callable(resolve_entry_point(CLI_ENTRY_POINT))


@pytest.mark.parametrize("module", sorted(SPEC_NAMES))
def test_spec_module_paths_import(module: str) -> None:
    assert load(module).__name__ == module


@pytest.mark.parametrize(("module", "name"), _cases(SPEC_NAMES))
def test_spec_names_import_from_their_modules(module: str, name: str) -> None:
    resolve(module, name)


@pytest.mark.parametrize(
    ("old", "home", "names"), KEPT_PATHS, ids=[f"{old}<-{home}" for old, home, _ in KEPT_PATHS]
)
def test_kept_paths_give_the_very_same_objects(old: str, home: str, names: list[str]) -> None:
    for name in names:
        assert resolve(old, name) is getattr(load(home), name)


@pytest.mark.parametrize("alias", sorted(WRAPPER_ALIASES))
def test_gymnasium_wrapper_module_paths_give_the_sekai_wrappers(alias: str) -> None:
    for name in WRAPPER_ALIASES[alias]:
        assert resolve(f"sekai.wrappers.{alias}", name) is getattr(sekai.wrappers, name)


@pytest.mark.parametrize(("module", "name"), _cases(FORMER_ALL))
def test_names_of_modules_that_became_packages_still_import(module: str, name: str) -> None:
    resolve(module, name)


@pytest.mark.parametrize("module", HISTORY_MODULES)
def test_every_public_module_path_ever_released_imports(module: str) -> None:
    assert load(module).__name__ == module


def test_the_history_list_holds_only_public_paths() -> None:
    assert len(HISTORY_MODULES) == len(set(HISTORY_MODULES))
    for module in HISTORY_MODULES:
        assert not any(part.startswith("_") for part in module.split(".")), module

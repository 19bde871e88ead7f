"""The public surface of ``sekai.finance``."""

from __future__ import annotations

import types

import sekai.finance as finance

SPEC_ORDER = [
    "MarketData",
    "Time",
    "EpisodeSampler",
    "RandomStart",
    "SequentialStart",
    "FixedStart",
    "MarketModel",
    "Simulation",
    "GBM",
    "Heston",
    "MertonJumpDiffusion",
    "RegimeSwitching",
    "GARCH",
    "MeanReverting",
    "CointegratedPair",
    "BlockBootstrap",
    "Randomized",
    "ListingProcess",
    "CostModel",
    "NoCost",
    "ProportionalCost",
    "SpreadCost",
    "FixedCost",
    "SquareRootImpact",
    "CompositeCost",
    "AccountConfig",
    "Settlement",
    "RewardFunction",
    "StepOutcome",
    "LogReturn",
    "SimpleReturn",
    "ProfitAndLoss",
    "MeanVariance",
    "TurnoverPenalty",
    "DrawdownPenalty",
    "DifferentialSharpe",
    "PerformanceSummary",
    "PnLSummary",
    "performance_summary",
    "pnl_summary",
    "RecordPerformance",
    "SlotMap",
    "OrderBook",
    "Order",
    "Fill",
    "Side",
    "BACKGROUND",
    "ZeroIntelligenceFlow",
    "PriceChart",
    "OrderBookChart",
    "UniverseChart",
]
EVALUATION = ["Backtest", "WalkForward", "backtest", "walk_forward"]
SUBMODULES = [
    "account",
    "costs",
    "data",
    "evaluation",
    "features",
    "lob",
    "metrics",
    "rendering",
    "rewards",
    "sampling",
    "simulators",
    "universe",
]


def test_all_follows_the_spec_order_then_evaluation_then_the_submodules() -> None:
    assert finance.__all__ == SPEC_ORDER + EVALUATION + SUBMODULES
    for name in finance.__all__:
        assert hasattr(finance, name), name
    for name in SUBMODULES:
        assert isinstance(getattr(finance, name), types.ModuleType)

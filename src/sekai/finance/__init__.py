"""The finance toolkit: market data, episode samplers, simulators, costs, accounting, rewards."""

from __future__ import annotations

from sekai.finance import account, costs, data, rewards, sampling, simulators
from sekai.finance.account import AccountConfig, Settlement
from sekai.finance.costs import (
    CompositeCost,
    CostModel,
    FixedCost,
    NoCost,
    ProportionalCost,
    SpreadCost,
    SquareRootImpact,
)
from sekai.finance.data import MarketData, Time
from sekai.finance.rewards import (
    DifferentialSharpe,
    DrawdownPenalty,
    LogReturn,
    MeanVariance,
    ProfitAndLoss,
    RewardFunction,
    SimpleReturn,
    StepOutcome,
    TurnoverPenalty,
)
from sekai.finance.sampling import EpisodeSampler, FixedStart, RandomStart, SequentialStart
from sekai.finance.simulators import GBM, MarketModel, Simulation

__all__ = [
    "MarketData",
    "Time",
    "EpisodeSampler",
    "RandomStart",
    "SequentialStart",
    "FixedStart",
    "MarketModel",
    "Simulation",
    "GBM",
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
    "account",
    "costs",
    "data",
    "rewards",
    "sampling",
    "simulators",
]

"""Market models that simulate price paths, and the GBM helpers the finance envs use.

One module per model family: ``gbm``, ``volatility`` (Heston, GARCH), ``jumps``, ``regimes``,
``mean_reversion``, ``bootstrap`` and ``composite`` (models built on other models), on top of
``base`` (``Simulation``, ``MarketModel``).
"""

from __future__ import annotations

from sekai.finance.simulators.base import MarketModel, Simulation, sample_window
from sekai.finance.simulators.bootstrap import BlockBootstrap
from sekai.finance.simulators.composite import ListingProcess, Randomized
from sekai.finance.simulators.gbm import GBM, random_correlation, simulate_gbm
from sekai.finance.simulators.jumps import MertonJumpDiffusion
from sekai.finance.simulators.mean_reversion import CointegratedPair, MeanReverting
from sekai.finance.simulators.regimes import RegimeSwitching
from sekai.finance.simulators.volatility import GARCH, Heston

__all__ = [
    "GARCH",
    "GBM",
    "BlockBootstrap",
    "CointegratedPair",
    "Heston",
    "ListingProcess",
    "MarketModel",
    "MeanReverting",
    "MertonJumpDiffusion",
    "Randomized",
    "RegimeSwitching",
    "Simulation",
    "random_correlation",
    "sample_window",
    "simulate_gbm",
]

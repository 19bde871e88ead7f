"""``EnvDashboard``, the base of the finance envs' viewers, and the pieces they share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from sekai.error import ResetRequired
from sekai.finance.simulators import (
    GARCH,
    GBM,
    BlockBootstrap,
    CointegratedPair,
    Heston,
    ListingProcess,
    MarketModel,
    MeanReverting,
    MertonJumpDiffusion,
    Randomized,
    RegimeSwitching,
)
from sekai.rendering.charts import format_number
from sekai.rendering.dashboard import Dashboard

__all__ = ["EnvDashboard", "base_env", "market_subtitle", "model_name", "plural", "signed"]

_MODEL_NAMES: tuple[tuple[type[MarketModel], str], ...] = (
    (GBM, "geometric Brownian motion"),
    (Heston, "Heston"),
    (MertonJumpDiffusion, "Merton jump diffusion"),
    (RegimeSwitching, "regime switching"),
    (GARCH, "GARCH(1, 1)"),
    (MeanReverting, "mean reversion"),
    (CointegratedPair, "cointegrated pair"),
    (BlockBootstrap, "block bootstrap"),
    (Randomized, "randomised models"),
)


def base_env(env: Any) -> Any:
    """The env under any wrappers (``env.unwrapped``; the object itself without one)."""
    return getattr(env, "unwrapped", env)


def model_name(model: MarketModel | None) -> str:
    """The simulation's name as the subtitles show it (None: the env's own GBM)."""
    if model is None:
        return "geometric Brownian motion"
    if isinstance(model, ListingProcess):
        return f"{model_name(model.model)}, with listings"
    for kind, name in _MODEL_NAMES:
        if isinstance(model, kind):
            return name
    return type(model).__name__


def market_subtitle(env: Any) -> str:
    """``Historical data[ · YYYY-MM-DD]`` (the current decision's date), else
    ``Simulated: <model name>``."""
    base = base_env(env)
    if base.prices is None:
        return f"Simulated: {model_name(base.model)}"
    stamp = base.timestamp
    if isinstance(stamp, np.datetime64):
        return f"Historical data \u00b7 {np.datetime_as_string(stamp.astype('datetime64[D]'))}"
    return "Historical data"


def signed(decimals: int) -> Callable[[Any], str]:
    """A stat format: the number with ``decimals`` decimals and its sign."""
    return lambda value: format_number(value, decimals, sign=True)


def plural(noun: str) -> Callable[[Any], str]:
    """A stat format: the count followed by ``noun``, in the plural unless it is 1."""
    return lambda count: f"{count} {noun}" if count == 1 else f"{count} {noun}s"


class EnvDashboard(Dashboard):
    """A dashboard that draws one environment class only."""

    draws: ClassVar[type[Any]]
    needs_reset: ClassVar[bool] = False

    def check(self, env: Any) -> None:
        """``TypeError`` for another env class; ``ResetRequired`` before the first reset when
        the panels read episode-only state."""
        base = base_env(env)
        if not isinstance(base, self.draws):
            raise TypeError(
                f"{type(self).__name__} draws {self.draws.__name__}, got {type(base).__name__}."
            )
        if self.needs_reset:
            try:
                _ = base.timestamp  # a property that needs an episode
            except ResetRequired:
                raise ResetRequired(
                    f"{type(self).__name__}: call reset() on the env before rendering it."
                ) from None

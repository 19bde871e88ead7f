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
from sekai.rendering.dashboard import Dashboard, Stat
from sekai.rendering.theme import Theme

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
    """A dashboard that draws one environment class only.

    Subclasses give their stats (``_stat_list``) and, where they differ from the defaults,
    the panels laid out at build (``_panels``), the subtitle (``_caption``) and the time axis
    (``_axis``); the constructor takes the size, theme and window. A dashboard whose panels
    depend on the env gives ``_setup`` (what they depend on) and ``_layout`` (the panels for
    it): ``check`` lays them out again whenever the setup changes, kept in ``setup``.

    The env's episode log (``_log``, an ``EpisodeLog``) tells its episodes apart, and a first
    frame late in an episode draws the steps before it from the log: ``_stand_ins`` makes of
    its records what the sources read.
    """

    draws: ClassVar[type[Any]]
    needs_reset: ClassVar[bool] = False

    def __init__(
        self,
        *,
        width: int = 720,
        height: int = 450,
        theme: str | Theme = "light",
        window: int | None = None,
    ) -> None:
        super().__init__(
            *self._panels(),
            subtitle=self._caption(),
            stats=self._stat_list(),
            width=width,
            height=height,
            theme=theme,
            window=window,
            **self._axis(),
        )
        self.setup: Any = None

    def _panels(self) -> tuple[Any, ...]:
        """The panels laid out at build; none where ``check`` lays them out for each env."""
        return ()

    def _caption(self) -> str | Callable[[Any], str]:
        """The subtitle: ``market_subtitle`` unless a subclass says otherwise."""
        return market_subtitle

    def _stat_list(self) -> list[Stat]:
        """The stats of the header."""
        raise NotImplementedError

    def _axis(self) -> dict[str, Any]:
        """``step`` and ``horizon`` for ``Dashboard`` where they differ from its defaults."""
        return {}

    def _setup(self, env: Any) -> Any:
        """What the panels depend on for ``env``; None where they are fixed at build."""
        return None

    def _layout(self, setup: Any) -> Any:
        """The panels for ``setup`` (one layout item)."""
        raise NotImplementedError

    def _stand_ins(self, env: Any, entries: list[tuple[float, Any]]) -> list[Any]:
        """For each ``(step, record)`` of the env's log, what the sources read of ``env`` at
        that step, made of the record."""
        raise NotImplementedError

    def _episode(self, env: Any) -> Any:
        """The env's count of its episodes (None without a log)."""
        log = getattr(base_env(env), "_log", None)
        return None if log is None else log.episode

    def _earlier(self, env: Any, step: float) -> list[tuple[float, Any]]:
        """Stand-ins made of the env's log records before ``step``."""
        log = getattr(base_env(env), "_log", None)
        entries = [] if log is None else [entry for entry in log if entry[0] < step]
        if not entries:
            return []
        return list(zip([when for when, _ in entries], self._stand_ins(env, entries), strict=True))

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
        setup = self._setup(env)
        if setup is not None and setup != self.setup:
            self.setup = setup
            self.set_layout(self._layout(setup))

"""``WindowConfig``: the episode window, costs and account settings of a windowed env.

Trading-v0, Portfolio-v0 and Market-v0 (and their learnable variants) take these settings as
keyword arguments and check them once, here, before loading the market.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sekai.envs.finance._checks import check_float, check_int
from sekai.finance.costs import CostModel, as_cost_model
from sekai.finance.rewards import RewardFunction
from sekai.finance.sampling import as_sampler

__all__ = ["WindowConfig", "cost_model_of"]


def cost_model_of(transaction_cost: Any) -> CostModel:
    """``as_cost_model(transaction_cost)``, its errors naming the ``transaction_cost`` argument."""
    try:
        return as_cost_model(transaction_cost)
    except (TypeError, ValueError) as exc:
        raise type(exc)(
            f"transaction_cost must be a rate (a finite number >= 0) or a CostModel, "
            f"got {transaction_cost!r}: {exc}"
        ) from exc


@dataclass(frozen=True)
class WindowConfig:
    """The settings of a windowed env's episodes, checked once.

    An episode takes ``episode_length`` steps (int >= 1) on ``window = lookback +
    episode_length + 1`` price rows (``lookback`` >= 1); ``sampler`` (kept as an
    ``EpisodeSampler``) chooses its start in a history; a rebalance costs ``cost_model``,
    made from ``transaction_cost`` (a rate or a ``CostModel``); ``capital`` (> 0) is the
    equity in currency; ``dt`` (> 0) the years per step, None to take it from the market;
    ``reward`` the reward function, None for ``LogReturn()``.
    """

    episode_length: int
    lookback: int
    transaction_cost: Any
    dt: float | None
    reward: RewardFunction | None
    sampler: Any
    capital: float
    cost_model: CostModel = field(init=False)

    def __post_init__(self) -> None:
        dt = self.dt
        checked = {
            "episode_length": check_int(self.episode_length, "episode_length", low=1),
            "lookback": check_int(self.lookback, "lookback", low=1),
            "cost_model": cost_model_of(self.transaction_cost),
            "capital": check_float(self.capital, "capital", low=0.0, low_open=True),
            "dt": None if dt is None else check_float(dt, "dt", low=0.0, low_open=True),
            "sampler": as_sampler(self.sampler),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @property
    def window(self) -> int:
        """Price rows of an episode window, ``lookback + episode_length + 1``."""
        return self.lookback + self.episode_length + 1

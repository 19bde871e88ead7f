"""What a finance env holds: the weights an action targets and the trades it takes, by asset.

A reader is chosen from what the unwrapped env offers (duck typing, no env classes
imported): ``target_weights`` and ``slot_assets`` (a changing universe, ``Market-v0``),
``action_to_weights`` (a portfolio with cash, ``Portfolio-v0``) or ``positions`` and
``position`` (one asset, ``Trading-v0``). An env with none of them is backtested without
holdings (``holdings_of`` gives None).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["Holdings", "holdings_of"]

Array = NDArray[np.float64]


def _asset_ids(env: Any, count: int) -> list[str]:
    """The env's asset ids as strings: from its price data, else ``asset_0..``."""
    history = getattr(env, "history", None)
    data = getattr(history, "data", None)
    assets = getattr(data, "assets", None)
    if assets is not None and len(assets) == count:
        return [str(a) for a in assets]
    return [f"asset_{j}" for j in range(count)]


class Holdings(ABC):
    """Reads, before each step, the weights an action targets and the trades it takes.

    ``decide(action)`` returns ``(weights, trades)`` keyed by column name: ``weights`` the
    target held over the coming period (cash included where the env has a cash weight),
    ``trades`` the absolute traded weight per asset.
    """

    def __init__(self, env: Any) -> None:
        self.env = env

    @abstractmethod
    def decide(self, action: Any) -> tuple[dict[str, float], dict[str, float]]:
        """Target weights and absolute trades of ``action`` in the env's current state."""


class _SingleAsset(Holdings):
    """``Trading-v0``: a position in one asset chosen from ``env.positions``."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        (self.asset,) = _asset_ids(env, 1)

    def decide(self, action: Any) -> tuple[dict[str, float], dict[str, float]]:
        env = self.env
        target = float(env.positions[int(action)])
        name = self.asset
        return {name: target}, {name: abs(target - float(env.position))}


class _Portfolio(Holdings):
    """``Portfolio-v0``: weights over a fixed set of assets, cash last."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.assets = _asset_ids(env, int(env.n_assets))
        self.columns = (*self.assets, "cash")

    def decide(self, action: Any) -> tuple[dict[str, float], dict[str, float]]:
        env = self.env
        target: Array = env.action_to_weights(action)
        trades = np.abs(target[:-1] - env.weights[:-1])
        weights = dict(zip(self.columns, target.tolist(), strict=True))
        return weights, dict(zip(self.assets, trades.tolist(), strict=True))


class _Slots(Holdings):
    """``Market-v0``: weights by slot, each slot holding the asset ``slot_assets`` names;
    cash is what the slots leave of 1."""

    def decide(self, action: Any) -> tuple[dict[str, float], dict[str, float]]:
        env = self.env
        target: Array = env.target_weights(action)
        trades = np.abs(target - env.weights)
        weights: dict[str, float] = {}
        traded: dict[str, float] = {}
        for asset, weight, trade in zip(
            env.slot_assets, target.tolist(), trades.tolist(), strict=True
        ):
            if asset is None:
                continue
            name = str(asset)
            weights[name] = weight
            traded[name] = trade
        weights["cash"] = 1.0 - float(target.sum())
        return weights, traded


def holdings_of(env: Any) -> Holdings | None:
    """The reader for ``env`` (an unwrapped env), or None if it offers none."""
    if hasattr(env, "target_weights") and hasattr(env, "slot_assets"):
        return _Slots(env)
    if hasattr(env, "action_to_weights") and hasattr(env, "weights"):
        return _Portfolio(env)
    if hasattr(env, "positions") and hasattr(env, "position"):
        return _SingleAsset(env)
    return None

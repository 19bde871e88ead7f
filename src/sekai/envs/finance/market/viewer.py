"""``MarketRenderer``: the Market-v0 dashboard."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance.dashboard import EnvDashboard, base_env, plural
from sekai.envs.finance.market.env import MarketEnv
from sekai.finance.rendering import UniverseChart
from sekai.rendering.dashboard import BarChart, Column, LineChart, Row, Series, Stat

__all__ = ["MarketRenderer"]


def _stressed(env: Any) -> bool:
    regime = base_env(env).latent_state.get("regime", 0.0)
    return bool(regime > 0)


def _asset_name(base: MarketEnv, asset: Any) -> str:
    if asset is None:
        return ""
    return f"Asset {asset + 1}" if base.data is None else str(asset)


def _slot_names(env: Any) -> list[str]:
    base = base_env(env)
    return [_asset_name(base, asset) for asset in base.slot_assets]


def _tradable(env: Any) -> NDArray[np.bool_]:
    return base_env(env).tradable


def _gross(env: Any) -> float:
    return float(np.abs(base_env(env).weights).sum())


class MarketRenderer(EnvDashboard):
    """``MarketEnv``: equity (stressed regimes shaded), holdings across the universe over
    time, and the current holdings. Configured on first sight of an env (slot names, and
    regime shading when the simulation has a regime)."""

    draws = MarketEnv
    needs_reset = True

    def _stat_list(self) -> list[Stat]:
        return [
            Stat("Equity", "equity", "{:.4f}", delta="relative"),
            Stat("Gross exposure", _gross, "{:.1%}"),
            Stat("Tradable", lambda env: int(_tradable(env).sum()), plural("asset")),
        ]

    def _setup(self, env: Any) -> tuple[bool, tuple[str, ...]]:
        """Regime shading (whether the simulation has a regime) and the slot labels."""
        base = base_env(env)
        model = base.model
        regime = model is not None and "regime" in model.state_spec()
        fixed = base.max_assets >= base.n_total
        if fixed:
            labels = tuple(_slot_names(base))
        else:
            labels = tuple(f"Slot {i + 1}" for i in range(base.max_assets))
        return regime, labels

    def _layout(self, setup: tuple[bool, Sequence[str]]) -> Row:
        regime, labels = setup
        equity = LineChart(
            Series("equity", label="Equity", color="accent", fill=True),
            title="Equity",
            baseline=1.0,
            shade=_stressed if regime else None,
            shade_label="Stressed regime" if regime else None,
        )
        universe = UniverseChart("weights", available=_tradable, labels=_slot_names)
        holdings = BarChart("weights", labels=labels, available=_tradable, title="Holdings")
        return Row(Column(equity, universe), holdings, widths=(2.3, 1))

    def _stand_ins(self, env: Any, entries: list[tuple[float, Any]]) -> list[Any]:
        """The equity and weights of each step's info, its tradable slots and their assets,
        and the simulation's regime then."""
        base = base_env(env)
        regime = base._state.get("regime")
        stand_ins = []
        for step, (info, tradable, slots) in entries:
            state = {} if regime is None else {"regime": regime[base.lookback + int(step)].item()}
            stand_ins.append(
                SimpleNamespace(
                    elapsed_steps=int(step),
                    equity=info["equity"],
                    weights=info["weights"],
                    tradable=tradable,
                    slot_assets=slots,
                    latent_state=state,
                    max_assets=base.max_assets,
                    n_total=base.n_total,
                    data=base.data,
                )
            )
        return stand_ins

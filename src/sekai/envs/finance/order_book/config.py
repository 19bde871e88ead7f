"""``LimitOrderBookConfig``: the settings both LOB environments take, checked once."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sekai.envs.finance._checks import check_float, check_int
from sekai.finance.lob import ZeroIntelligenceFlow
from sekai.finance.lob.engine import Engine
from sekai.utils.validation import check_choice

__all__ = ["LimitOrderBookConfig"]


@dataclass(frozen=True, slots=True)
class LimitOrderBookConfig:
    """The book, the background flow, the trader's limits and the engine of a LOB env.

    ``flow`` (simulated order flow, default ``ZeroIntelligenceFlow()``) or ``data`` (replayed
    LOBSTER days, their session starts drawn by ``sampler``), not both. ``mid_price`` must
    leave room for ``levels`` and ``max_quote_offset`` ticks on either side; ``latency`` is
    checked against the decision interval by the env. Numbers are checked here, once, and
    kept as ints and floats.
    """

    flow: ZeroIntelligenceFlow | None = None
    mid_price: int = 10_000
    session_length: float = 300.0
    levels: int = 5
    max_quote_offset: int = 5
    order_size: int = 1
    max_inventory: int = 20
    inventory_penalty: float = 0.01
    max_trades: int = 16
    warmup: float = 20.0
    data: Any = None
    sampler: Any = None
    latency: float = 0.0
    engine: Engine = "auto"

    def __post_init__(self) -> None:
        setter = object.__setattr__
        levels = check_int(self.levels, "levels", low=1)
        offset = check_int(self.max_quote_offset, "max_quote_offset", low=1)
        setter(self, "levels", levels)
        setter(self, "max_quote_offset", offset)
        setter(self, "mid_price", check_int(self.mid_price, "mid_price", low=2 * (offset + levels)))
        setter(self, "order_size", check_int(self.order_size, "order_size", low=1))
        setter(self, "max_inventory", check_int(self.max_inventory, "max_inventory", low=1))
        setter(self, "max_trades", check_int(self.max_trades, "max_trades", low=1))
        setter(
            self,
            "session_length",
            check_float(self.session_length, "session_length", low=0.0, low_open=True),
        )
        setter(
            self,
            "inventory_penalty",
            check_float(self.inventory_penalty, "inventory_penalty", low=0.0),
        )
        setter(self, "warmup", check_float(self.warmup, "warmup", low=0.0))
        setter(self, "latency", check_float(self.latency, "latency", low=0.0))
        check_choice(self.engine, "engine", ("auto", "numba", "python"))
        if self.data is None and self.sampler is not None:
            raise ValueError(
                "sampler= picks the start times of replayed sessions; it needs data= "
                "(LobsterData or a list of them)."
            )
        if self.data is not None and self.flow is not None:
            raise ValueError(
                "pass flow= (simulated order flow) or data= (replayed LOBSTER messages), not both."
            )

    @classmethod
    def of(cls, config: Any, settings: Mapping[str, Any]) -> LimitOrderBookConfig:
        """``config`` (None: the defaults) with ``settings``, an env's keyword arguments.

        ``TypeError`` for a ``config`` of another kind or a keyword that is not a field.
        """
        if config is None:
            return cls(**settings)
        if not isinstance(config, cls):
            raise TypeError(
                f"config must be a LimitOrderBookConfig or None, got {type(config).__name__}."
            )
        return dataclasses.replace(config, **settings) if settings else config

"""Compile the LOB environments' numba engine in one step, before their first episode.

``warm_up`` runs every compiled function that a LOB environment calls on the numba engine
once, on a small book of its own: the book's changes and queries (``CompiledBook``), the
simulated flow, the replay, the steps of one trader or the decisions of several, with and
without latency, the views, and a copy by pickling. numba compiles them then, or loads them
from its disk cache, instead of during the first episode. While numba compiles, a progress
bar shows on a terminal, else one notice is logged (``sekai.finance.lob.compiled.compiling``).
Imported only with numba.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from functools import cache

import numpy as np

from sekai.envs.finance.order_book import kernels
from sekai.envs.finance.order_book.compiled import _CompiledCore, _tape_of
from sekai.envs.finance.order_book.config import LimitOrderBookConfig
from sekai.envs.finance.order_book.core import BUY, HOLD, LATE, NOW, SELL, _Trader
from sekai.finance.lob import Side
from sekai.finance.lob import compiled as compiled_lob

__all__ = ["HINT", "warm_up"]

HINT = "; `sekai check LimitOrderBook-v0` compiles it ahead of time"
"""The end of the notice logged when the engine compiles and no terminal shows progress."""


class _Rehearsal:
    """A small compiled core taken through every compiled call, one stage at a time."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)
        self.traders = [_Trader(0), _Trader(1)]
        config = LimitOrderBookConfig(session_length=10.0, warmup=1.0)
        self.core = _CompiledCore(config, start_step=1.0, n_traders=2)

    def stages(self, market: bool) -> list[tuple[int, Callable[[], None]]]:
        """The stages in the order they run, each with its share in percent of a compile.

        A trader's steps (``LimitOrderBookEnv``), or traders' decisions for the ``market``.
        """
        return [
            (15, self.book),
            (34, self.flow),
            (48, self.decisions if market else self.step),
            (1, self.views),
            (1, self.replay),
            (1, self.copy),
        ]

    def book(self) -> None:
        """``CompiledBook``'s changes and queries."""
        book = self.core.book
        book.time = 1.0
        book.last_price = 10_000
        book.last_price = 10_000.5
        resting = book.place(Side.BID, 9_999, 3)
        book.limit(Side.ASK, 10_001, 2)
        book.limit(Side.BID, 10_001, 1)
        book.market(Side.ASK, 1)
        book.reduce(resting, 1)
        book.cancel(resting)
        book.best_bid()
        book.depth(2)
        book.clear()

    def flow(self) -> None:
        """A session's start: the initial book and the simulated warm-up."""
        self.core.start(self.rng, self.traders)

    def step(self) -> None:
        """One trader's steps, deciding at once, after a latency and too late."""
        core, trader = self.core, self.traders[0]
        core.step_agent(self.rng, trader, (1, 1, BUY), (NOW, 1.0, 1.0))
        core.step_agent(self.rng, trader, (2, 1, SELL), (1.5, 2.0, 1.0))
        core.step_agent(self.rng, trader, (0, 0, HOLD), (LATE, 3.0, 1.0))

    def decisions(self) -> None:
        """Several traders' decisions, now and planned, and the flow between them."""
        core, (first, second) = self.core, self.traders
        core.reset_fills(self.traders)
        core.decide(first, 1, 1, BUY)
        planned = core.plan(second, 1, 2, SELL)
        core.advance(self.rng, 1.5)
        core.deliver(second, planned)
        core.advance(self.rng, 2.0)

    def views(self) -> None:
        """What a trader observes and the info."""
        core = self.core
        core.mid()
        core.observation(self.traders[0])
        core.info(self.traders[1], 1.0)

    def replay(self) -> None:
        """A replayed session's start on a tape."""
        core = self.core
        tape = _tape_of(None, -1, {})
        kernels.set_tape(core._desk, tape)
        compiled_lob.replay_seek(core._state, tape, np.zeros((0, 5), np.int64), 0, 0, 0.0, 0, False)

    def copy(self) -> None:
        """A copy by pickling, as vector environments make."""
        pickle.loads(pickle.dumps(self.core))


@cache
def warm_up(market: bool) -> None:
    """Compile, or load from numba's cache, the engine of ``LimitOrderBookEnv``, or of
    ``LimitOrderBookMarket`` for ``market``; once each per process."""
    with compiled_lob.reporting("the order-book engine", 100, HINT) as advance:
        rehearsal = _Rehearsal()
        for share, stage in rehearsal.stages(market):
            stage()
            advance(share)

"""The LOB environments' mechanics on the numba engine, with ``_LOBCore``'s results.

``_CompiledCore`` runs zero-intelligence flow or a ``HistoricalFlow``'s replay (the days are
prepared by ``HistoricalFlow`` itself, then replayed from a ``Tape``). Its book is
``sekai.finance.lob.compiled``'s and its traders' accounts are rows of an array that
``kernels`` change; after each call the env's ``_Trader`` records are brought up to date,
and ``book`` is a ``CompiledBook`` showing the compiled book as an ``OrderBook``. Imported
only with numba.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance.order_book import kernels
from sekai.envs.finance.order_book.config import LimitOrderBookConfig
from sekai.envs.finance.order_book.core import Plan, _LOBSettings, _Obs, _Trader
from sekai.finance.lob import MAX_EXPECTED_EVENTS, HistoricalFlow
from sekai.finance.lob import compiled as compiled_lob

__all__ = ["_CompiledCore"]


class _CompiledCore(_LOBSettings):
    """``_LOBCore``'s interface and results on the compiled book, for ``n_traders`` traders."""

    def __init__(self, config: LimitOrderBookConfig, start_step: float, n_traders: int) -> None:
        super().__init__(config, start_step)
        flow = self.flow
        self._params = np.array(
            [
                flow.limit_rate,
                flow.market_rate,
                flow.cancel_rate,
                flow.max_offset,
                flow.offset_decay,
                flow.mean_size,
            ],
            dtype=np.float64,
        )
        self._accounts = np.zeros((n_traders, 5), dtype=np.int64)
        self._trades = np.zeros((self.max_trades, 3), dtype=np.int64)
        self._ring = np.zeros(2, dtype=np.int64)
        replay = self.history is not None
        self._config = np.array(
            [self.order_size, self.max_inventory, self.levels, self.mid_price, replay],
            dtype=np.int64,
        )
        self._book_of: dict[int, NDArray[np.int64]] = {}
        self._tapes: dict[int, Any] = {}
        self._cursor = np.zeros(3, dtype=np.int64)
        self._traders: list[_Trader] = []
        self._rng = np.random.default_rng(0)
        self._state = compiled_lob.new_state(self._rng, self._params)
        self._desk = self._new_desk()
        self._clock = compiled_lob.clock_of(self._state)
        self._meta = self._state.meta
        self._flow_rate = 2 * flow.limit_rate + 2 * flow.market_rate
        self._floats = np.zeros(3, dtype=np.float64)
        self._ints = np.zeros(9, dtype=np.int64)
        book_end = 4 * self.levels
        self._ends = (book_end, book_end + 3 * self.max_trades)
        self._masks = [
            (np.arange(self.max_trades) < count).astype(np.int8)
            for count in range(self.max_trades + 1)
        ]
        self.book = compiled_lob.CompiledBook(self._state)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in ("_state", "_desk", "_clock", "_meta", "book"):
            del state[name]
        state["_tapes"] = {}
        state["_arrays"] = compiled_lob.export(self._state)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._state = compiled_lob.restore(self._rng, self.__dict__.pop("_arrays"))
        self._desk = self._new_desk()
        self._clock = compiled_lob.clock_of(self._state)
        self._meta = self._state.meta
        self.book = compiled_lob.CompiledBook(self._state)

    @property
    def trades(self) -> list[tuple[int, int, int]]:
        """The last ``max_trades`` trades, oldest first: ``(price, quantity, ±1)``."""
        count = int(self._ring[kernels.R_COUNT])
        first = int(self._ring[kernels.R_NEXT]) - count
        rows = self._trades.tolist()
        return [tuple(rows[(first + i) % self.max_trades]) for i in range(count)]  # type: ignore[misc]

    def _new_desk(self) -> Any:
        """The desk over the book, the current day's tape and the accounts."""
        return kernels.new_desk(
            self._state, self._tape(), self._accounts, self._trades, self._ring, self._config
        )

    def _tape(self) -> Any:
        """The tape of the current day (an empty one for simulated flow)."""
        day = -1 if self.history is None or self.history._day is None else self.day
        tape = self._tapes.get(day)
        if tape is None:
            tape = self._tapes[day] = _tape_of(self.history, day, self._book_of)
        return tape

    def _bind(self, rng: np.random.Generator) -> None:
        """Draw from ``rng`` from now on."""
        if rng is not self._rng:
            compiled_lob.set_rng(self._state, rng)
            self._rng = rng

    def _pull(self) -> None:
        """Copy the accounts into the traders' records; the book has changed."""
        self.book.touch()
        for trader, (inventory, cash, bid, ask, fills) in zip(
            self._traders, self._accounts.tolist(), strict=True
        ):
            trader.inventory = inventory
            trader.cash = cash
            trader.bid_id = bid or None
            trader.ask_id = ask or None
            trader.fills = fills

    def _run_to(self, until: float) -> None:
        """Run the flow (its span checked as ``ZeroIntelligenceFlow.advance`` does) or the
        replay to ``until``."""
        history = self.history
        if history is None:
            self.flow.check_span(float(self._clock[0]), until)
            kernels.advance(self._desk, until, 0, 0)
            return
        first, end = history._k, max(history._k, history.end_of(until))
        kernels.advance(self._desk, until, first, end)
        history._k = end

    # -- session ---------------------------------------------------------------------------

    def start(self, rng: np.random.Generator, traders: Sequence[_Trader]) -> None:
        """Lay the initial book (simulated and warmed up, or historical at a sampled start)."""
        self._bind(rng)
        self._traders = sorted(traders, key=lambda trader: trader.owner)
        if self.history is None:
            compiled_lob.flow_initialise(self._state, self.mid_price, 10, 3)
            if self.warmup > 0:
                self.flow.check_span(0.0, self.warmup)
                compiled_lob.flow_advance(self._state, self.warmup)
        else:
            day, time_ns = self.session_start(rng)
            prepared, k, checkpoint, last = self.history.locate(day, time_ns)
            tape = self._tape()
            kernels.set_tape(self._desk, tape)
            compiled_lob.replay_seek(
                self._state,
                tape,
                prepared.checkpoints[checkpoint],
                int(prepared.op_start[checkpoint * self.history.checkpoint_every]),
                int(prepared.op_start[k]),
                time_ns / _NS,
                last,
                self.history.halted,
            )
        self._meta[compiled_lob.M_N_FILLS] = 0
        self._accounts[:] = 0
        self._ring[:] = 0
        self.t0 = float(self._clock[0])
        self.elapsed = 0.0
        self.owners = {trader.owner: trader for trader in traders}
        self._pull()

    @property
    def halted(self) -> bool:
        """Whether replayed trading is halted (agents' market orders are not sent)."""
        return bool(self._meta[compiled_lob.M_HALTED])

    def advance(self, rng: np.random.Generator, clock: float | Fraction) -> None:
        """Run the flow until session time ``clock``, book its fills, forget filled quotes."""
        self._bind(rng)
        self.elapsed = float(clock)
        self._run_to(self.t0 + self.elapsed)
        self._pull()

    def mid(self) -> float:
        """The book mid, else ``last_price``, else ``mid_price``."""
        value, exact = kernels.mid(self._desk)
        return int(value) if exact else value

    def reset_fills(self, traders: Sequence[_Trader]) -> None:
        """Zero the fill counts of ``traders``."""
        for trader in traders:
            self._accounts[trader.owner, kernels.T_FILLS] = 0
        self._pull()

    # -- decisions -------------------------------------------------------------------------

    def decide(self, trader: _Trader, bid_level: int, ask_level: int, market: int) -> None:
        """Apply one decision now: the market order, then the bid and the ask quote."""
        kernels.decide(self._desk, trader.owner, bid_level, ask_level, market)
        self._pull()

    def plan(self, trader: _Trader, bid_level: int, ask_level: int, market: int) -> Plan:
        """Price a decision on the current book, to ``deliver`` after the latency."""
        bid, ask = kernels.plan(self._desk, trader.owner, bid_level, ask_level)
        return market, _quote(bid), _quote(ask)

    def deliver(self, trader: _Trader, plan: Plan) -> None:
        """Send a planned decision: limits are checked again, on the inventory it finds."""
        market, bid, ask = plan
        none = kernels.NONE
        kernels.deliver(
            self._desk,
            trader.owner,
            market,
            none if bid is None else bid,
            none if ask is None else ask,
        )
        self._pull()

    # -- views -----------------------------------------------------------------------------

    def observation(self, trader: _Trader) -> _Obs:
        """A fresh observation for ``trader``."""
        out = kernels.observe(self._desk, trader.owner, self.elapsed, self.session_length)
        return self._observation(out, int(self._ring[kernels.R_COUNT]))

    def _observation(self, out: NDArray[np.float32], count: int) -> _Obs:
        """The observation dict over ``kernels.observe``'s buffer, ``count`` trades shown."""
        book_end, trades_end = self._ends
        return {
            "book": out[:book_end].reshape(self.levels, 4),
            "trades": {
                "values": out[book_end:trades_end].reshape(self.max_trades, 3),
                "mask": self._masks[count].copy(),
            },
            "agent": out[trades_end:],
        }

    def info(self, trader: _Trader, dt: float) -> dict[str, Any]:
        """``timestamp, mid_price, spread, inventory, cash, wealth, fills, dt``."""
        bid = compiled_lob.best(self._state, 1)
        ask = compiled_lob.best(self._state, -1)
        spread = ask - bid if bid and ask else None
        return self.info_of(trader, dt, float(self._clock[0]), self.mid(), spread)

    def step_agent(
        self,
        rng: np.random.Generator,
        trader: _Trader,
        decision: tuple[int, int, int],
        times: tuple[float, float, float],
    ) -> tuple[_Obs, float, dict[str, Any]]:
        """``_LOBCore.step_agent`` in one compiled call."""
        arrival, elapsed, dt = times
        self._bind(rng)
        t0 = self.t0
        history = self.history
        cursor = self._cursor
        if history is None:
            now = float(self._clock[0])
            if (t0 + elapsed - now) * self._flow_rate > MAX_EXPECTED_EVENTS:
                if arrival >= 0:
                    self.flow.check_span(now, t0 + arrival)
                    self.flow.check_span(t0 + arrival, t0 + elapsed)
                else:
                    self.flow.check_span(now, t0 + elapsed)
        else:
            first = history._k
            middle = max(first, history.end_of(t0 + arrival)) if arrival >= 0 else first
            history._k = max(middle, history.end_of(t0 + elapsed))
            cursor[:] = first, middle, history._k
        cash_before, inventory_before = trader.cash, trader.inventory
        out = kernels.step(
            self._desk,
            trader.owner,
            *decision,
            arrival,
            elapsed,
            t0,
            self.session_length,
            cursor,
            self._floats,
            self._ints,
        )
        self.elapsed = elapsed
        self.book.touch()
        before, after, clock = self._floats.tolist()
        before_exact, after_exact, spread, count, inventory, cash, bid, ask, fills = (
            self._ints.tolist()
        )
        trader.inventory = inventory
        trader.cash = cash
        trader.fills = fills
        trader.bid_id = bid or None
        trader.ask_id = ask or None
        if before_exact:
            before = int(before)
        if after_exact:
            after = int(after)
        wealth_before = cash_before + inventory_before * before
        reward = (
            trader.wealth(after)
            - wealth_before
            - self.inventory_penalty * inventory * inventory * dt
        )
        info = self.info_of(trader, dt, clock, after, spread or None)
        return self._observation(out, count), reward, info


def _quote(price: int) -> int | None:
    return None if price == kernels.NONE else price


_NS = 1_000_000_000


def _tape_of(history: HistoricalFlow | None, day: int, book_of: dict[int, Any]) -> Any:
    """The tape of ``day`` as ``history`` prepared it (an empty tape for ``day < 0``).

    ``book_of[day]``, a slot per replay id, is made once and kept across episodes.
    """
    if history is None or day < 0:
        none = np.zeros(0, dtype=np.int64)
        one = np.zeros(1, dtype=np.int64)
        return compiled_lob.new_tape(
            none, none, none, none, none, np.zeros((0, 6), np.int64), one, none, one
        )
    prepared = history._prepared[day]
    ids = book_of.get(day)
    if ids is None:
        ids = book_of[day] = np.zeros(int(prepared.ops[:, 1].max(initial=0)) + 1, np.int64)

    def as64(column: NDArray[Any], dtype: type) -> NDArray[np.int64]:
        return np.array(column, dtype=dtype, order="C")  # a writable copy: one tape type

    return compiled_lob.new_tape(
        as64(prepared.time_ns, np.int64),
        as64(prepared.event, np.int64),
        as64(prepared.size, np.int64),
        as64(prepared.price, np.int64),
        as64(prepared.direction, np.int64),
        as64(prepared.ops, np.int64),
        as64(prepared.op_start, np.int64),
        as64(prepared.executed, np.int64),
        ids,
    )

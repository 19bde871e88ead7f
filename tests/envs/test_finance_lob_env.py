"""LimitOrderBookEnv and LimitOrderBookMarket: spaces, decision rules, accounting, clocks."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.envs.finance._checks import EPISODE_ENDED
from sekai.envs.finance.lob_env import (
    BUY,
    HOLD,
    SELL,
    LimitOrderBookEnv,
    LimitOrderBookMarket,
)
from sekai.error import InvalidAction, ResetRequired
from sekai.finance.lob import BACKGROUND, Fill, OrderBook, Side, ZeroIntelligenceFlow
from sekai.spaces import Box, Dict, MaskedBox, MultiDiscrete

pytestmark = pytest.mark.usefixtures("order_book_engine")  # every test on both engines

INFO_KEYS = ["timestamp", "mid_price", "spread", "inventory", "cash", "wealth", "fills", "dt"]

# Rates so low that no event ever happens; sizes are 1 without a draw. After a reset with
# mid_price=100 and no warm-up the book holds three 1-lot bids at each of 99..90 and three
# 1-lot asks at each of 101..110.
QUIET = ZeroIntelligenceFlow(limit_rate=1e-12, market_rate=1e-12, cancel_rate=0.0, mean_size=1.0)


class ScriptedFlow:
    """The quiet initial book; ``advance`` runs the queued events, then sets the time."""

    def __init__(self) -> None:
        self.events: list[Callable[[OrderBook], list[Fill]]] = []

    def initialise(self, book: OrderBook, rng: np.random.Generator, *, mid: int) -> None:
        QUIET.initialise(book, rng, mid=mid)

    def advance(self, book: OrderBook, rng: np.random.Generator, until: float) -> list[Fill]:
        fills = [fill for event in self.events for fill in event(book)]
        self.events.clear()
        book.time = until
        return fills


def act(bid: int, ask: int, market: int = HOLD) -> np.ndarray:
    return np.array([bid, ask, market], dtype=np.int64)


def quiet_env(**kwargs: Any) -> LimitOrderBookEnv:
    params: dict[str, Any] = {"flow": QUIET, "mid_price": 100, "warmup": 0.0, **kwargs}
    env = LimitOrderBookEnv(**params)
    env.reset(seed=0)
    return env


def cancel_background(book: OrderBook, side: Side, price: int | None = None) -> None:
    for order in book.orders_of(BACKGROUND):
        if order.side == side and (price is None or order.price == price):
            book.cancel(order.order_id)


def agent_obs(result: Any) -> list[float]:
    return result.observation["agent"].tolist()


# -- construction ----------------------------------------------------------------------------


def test_defaults_spaces_and_constants() -> None:
    env = LimitOrderBookEnv()
    assert LimitOrderBookEnv.metadata == {"render_fps": 10}
    assert LimitOrderBookEnv.AGENT == 0 and (SELL, HOLD, BUY) == (0, 1, 2)
    assert env.decision_interval == 1.0 and env.n_steps == 300 and env.elapsed_steps == 0
    core = env.core
    assert (core.max_inventory, core.inventory_penalty, core.session_length) == (20, 0.01, 300.0)
    assert env.action_space == MultiDiscrete([6, 6, 3])
    inf = float("inf")
    assert env.observation_space == Dict(
        {
            "book": Box(-inf, inf, (5, 4), np.float32),
            "trades": MaskedBox(-inf, inf, shape=(3,), max_size=16),
            "agent": Box(-inf, inf, (6,), np.float32),
        }
    )
    assert list(env.observation_space.spaces) == ["book", "trades", "agent"]
    custom = LimitOrderBookEnv(levels=3, max_quote_offset=2, max_trades=4, mid_price=10)
    assert custom.action_space == MultiDiscrete([3, 3, 3])
    assert custom.observation_space["book"] == Box(-inf, inf, (3, 4), np.float32)
    assert custom.observation_space["trades"] == MaskedBox(-inf, inf, shape=(3,), max_size=4)


@pytest.mark.parametrize(
    ("session_length", "decision_interval", "n_steps"),
    [(300.0, 1.0, 300), (10.0, 3.0, 4), (0.3, 0.1, 3), (1.0, 0.3, 4), (2.5, 2.5, 1), (1.0, 7.0, 1)],
)
def test_n_steps(session_length: float, decision_interval: float, n_steps: int) -> None:
    env = LimitOrderBookEnv(session_length=session_length, decision_interval=decision_interval)
    assert env.n_steps == n_steps


_INT_PARAMETERS = {
    "mid_price",
    "levels",
    "max_quote_offset",
    "order_size",
    "max_inventory",
    "max_trades",
}


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("mid_price", 19),
        ("mid_price", 19.0),
        ("mid_price", 100.5),
        ("levels", 0),
        ("levels", 0.0),
        ("levels", 2.5),
        ("max_trades", math.inf),
        ("max_quote_offset", 0),
        ("order_size", 0),
        ("order_size", True),
        ("max_inventory", 0),
        ("max_trades", 0),
        ("session_length", 0.0),
        ("session_length", math.inf),
        ("inventory_penalty", -0.1),
        ("inventory_penalty", math.nan),
        ("warmup", -1.0),
        ("decision_interval", 0.0),
        ("decision_interval", -1.0),
    ],
)
def test_invalid_parameters_name_themselves(name: str, value: Any) -> None:
    # the wrong kind (a bool, a string, None, a float with a fraction for an int parameter) is
    # a TypeError; a wrong value a ValueError
    fraction = name in _INT_PARAMETERS and not float(value).is_integer()
    error = TypeError if fraction or isinstance(value, (bool, str, type(None))) else ValueError
    with pytest.raises(error, match=name):
        LimitOrderBookEnv(**{name: value})
    with pytest.raises(error, match=name):
        LimitOrderBookMarket(
            **{"decision_intervals" if name == "decision_interval" else name: value}
        )


def test_boundary_parameters_are_accepted() -> None:
    env = LimitOrderBookEnv(mid_price=20, inventory_penalty=0.0, warmup=0.0)
    assert env.core.mid_price == 20
    LimitOrderBookMarket(1, jitter=0.999, mid_price=np.int64(20))


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n_agents": 0}, "n_agents"),
        ({"n_agents": 0.0}, "n_agents"),
        ({"jitter": 1.0}, "jitter"),
        ({"jitter": -0.1}, "jitter"),
        ({"decision_intervals": [1.0, 2.0, 3.0]}, "decision_intervals"),
        ({"decision_intervals": [1.0, 0.0]}, "decision_intervals"),
        ({"decision_intervals": [1.0, math.nan]}, "decision_intervals"),
    ],
)
def test_market_validation(kwargs: dict[str, Any], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        LimitOrderBookMarket(**kwargs)


def test_market_int_parameters_follow_the_int_rule() -> None:
    with pytest.raises(TypeError, match=r"n_agents must be an int, got float 2\.5"):
        LimitOrderBookMarket(n_agents=2.5)
    market = LimitOrderBookMarket(n_agents=2.0, levels=3.0)
    assert len(market.possible_agents) == 2 and market.core.levels == 3


def test_check_env_passes() -> None:
    assert sekai.check_env(LimitOrderBookEnv(), n_steps=300, check_determinism=True) == []


# -- reset and the episode lifecycle ---------------------------------------------------------


def test_reset_lays_the_book_then_runs_the_warmup() -> None:
    env = LimitOrderBookEnv()
    book = env.book
    result = env.reset(seed=5, options={})
    rng = np.random.default_rng(5)
    flow = ZeroIntelligenceFlow()
    expected = OrderBook()
    flow.initialise(expected, rng, mid=10_000)
    flow.advance(expected, rng, 20.0)
    assert env.book is book and env.core.book is book
    for got, want in zip(book.depth(30), expected.depth(30), strict=True):
        assert got.tolist() == want.tolist()
    assert book.time == expected.time == 20.0 and len(book) == len(expected)
    info = result.info
    assert list(info) == INFO_KEYS
    assert info["timestamp"] == 0.0 and info["dt"] == 1.0
    assert info["mid_price"] == expected.mid() and info["spread"] == expected.spread()
    assert (info["inventory"], info["cash"], info["wealth"], info["fills"]) == (0, 0, 0.0, 0)
    obs = result.observation
    assert obs["trades"]["mask"].tolist() == [0] * 16
    assert not obs["trades"]["values"].any()
    assert obs["agent"].tolist() == [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    bid_prices, bid_sizes, ask_prices, ask_sizes = expected.depth(5)
    mid = expected.mid()
    assert (
        obs["book"].tolist()
        == np.stack([bid_prices - mid, bid_sizes, ask_prices - mid, ask_sizes], axis=1)
        .astype(np.float32)
        .tolist()
    )
    # The first step's flow continues the same stream to t0 + 1.
    env.step(act(0, 0))
    flow.advance(expected, rng, 21.0)
    for got, want in zip(book.depth(30), expected.depth(30), strict=True):
        assert got.tolist() == want.tolist()


def test_reset_starts_a_fresh_trader_and_clears_trade_memory() -> None:
    env = quiet_env()
    env.step(act(1, 1, BUY))
    assert env.trader.inventory == 1 and env.book.n_orders_of(0) == 2
    result = env.reset(seed=0)
    trader = env.trader
    assert (trader.owner, trader.inventory, trader.cash, trader.bid_id, trader.ask_id) == (
        0,
        0,
        0,
        None,
        None,
    )
    assert env.book.n_orders_of(0) == 0 and env.elapsed_steps == 0 and env.core.elapsed == 0.0
    assert result.observation["trades"]["mask"].sum() == 0


def test_step_before_reset_and_after_the_end_raise() -> None:
    env = LimitOrderBookEnv(session_length=2.0, warmup=0.0)
    with pytest.raises(ResetRequired) as never:
        env.step(act(0, 0))
    assert str(never.value) != EPISODE_ENDED
    env.reset(seed=1)
    assert not env.step(act(1, 1)).terminated
    last = env.step(act(1, 1))
    assert last.terminated and last.truncated is False and env.elapsed_steps == 2
    with pytest.raises(ResetRequired, match="episode has ended"):
        env.step(act(1, 1))
    env.reset()
    env.step(act(1, 1))


@pytest.mark.parametrize(
    "action",
    [
        [6, 0, 1],
        [0, 6, 1],
        [0, 0, 3],
        [-1, 0, 1],
        [0, 0],
        np.array([0.0, 0.0, 1.0]),
        np.array([True, False, True]),
        "buy",
        None,
    ],
)
def test_invalid_actions_change_nothing(action: Any) -> None:
    env = quiet_env()
    depth = [side.tolist() for side in env.book.depth(10)]
    with pytest.raises(InvalidAction):
        env.step(action)
    assert [side.tolist() for side in env.book.depth(10)] == depth
    assert env.elapsed_steps == 0 and env.book.time == 0.0


def test_actions_as_lists_and_tuples() -> None:
    env = quiet_env()
    env.step([1, 0, HOLD])
    env.step((0, 1, HOLD))
    assert env.trader.bid_id is None and env.trader.ask_id is not None


# -- market orders ---------------------------------------------------------------------------


def test_market_buy_walks_the_asks_and_books_the_taker() -> None:
    env = quiet_env(order_size=4)
    result = env.step(act(0, 0, BUY))
    trader = env.trader
    # Three 1-lot asks at 101, then one at 102.
    assert trader.inventory == 4 and trader.cash == -(3 * 101 + 102)
    info = result.info
    assert info["fills"] == 4 and info["inventory"] == 4 and info["cash"] == -405
    mid = (99 + 102) / 2
    assert info["mid_price"] == mid and info["spread"] == 3
    assert info["wealth"] == -405 + 4 * mid
    trades = result.observation["trades"]
    assert trades["mask"].tolist() == [1, 1, 1, 1] + [0] * 12
    assert trades["values"][:4].tolist() == [
        [101 - mid, 1, 1],
        [101 - mid, 1, 1],
        [101 - mid, 1, 1],
        [102 - mid, 1, 1],
    ]
    assert result.reward == pytest.approx(info["wealth"] - 0.0 - 0.01 * 16 * 1.0)


def test_market_sell_books_the_taker() -> None:
    env = quiet_env()
    result = env.step(act(0, 0, SELL))
    assert env.trader.inventory == -1 and env.trader.cash == 99
    assert result.observation["trades"]["values"][0].tolist() == [99 - 100.0, 1, -1]
    assert result.reward == pytest.approx(99 - 100.0 - 0.01)


def test_self_trade_prevention_cancels_the_opposite_quote_first() -> None:
    env = quiet_env()
    book = env.book
    cancel_background(book, Side.ASK)
    env.step(act(0, 1))  # no other ask: the ask joins best bid + 1 = 100, alone
    own_ask = env.trader.ask_id
    assert book.get(own_ask).price == 100 and book.best_ask() == 100
    book.limit(Side.ASK, 101, 5)
    result = env.step(act(0, 0, BUY))
    assert book.get(own_ask) is None and env.trader.ask_id is None
    assert env.trader.inventory == 1 and env.trader.cash == -101
    assert result.info["fills"] == 1 and book.n_orders_of(0) == 0
    # The same for a sale: the agent's bid is cancelled before it could be hit.
    cancel_background(book, Side.BID)
    env.step(act(1, 0))  # no other bid: joins best ask - 1 = 100
    own_bid = env.trader.bid_id
    assert book.get(own_bid).price == 100
    book.limit(Side.BID, 98, 5)
    env.step(act(1, 0, SELL))
    assert book.get(own_bid) is None and env.trader.inventory == 0
    assert env.trader.cash == -101 + 98


def test_market_order_over_the_limit_is_ignored() -> None:
    env = quiet_env(max_inventory=1)
    env.step(act(0, 1, BUY))
    ask_id = env.trader.ask_id
    result = env.step(act(0, 1, BUY))
    assert env.trader.inventory == 1 and result.info["fills"] == 0
    assert env.trader.ask_id == ask_id  # no self-trade cancel when the order is not sent


# -- quotes ----------------------------------------------------------------------------------


def test_level_one_joins_the_best_bid_and_deeper_levels_step_back() -> None:
    env = quiet_env()
    result = env.step(act(1, 3))
    bid = env.book.get(env.trader.bid_id)
    ask = env.book.get(env.trader.ask_id)
    assert (bid.price, bid.quantity, bid.owner) == (99, 1, 0)
    assert (ask.price, ask.quantity) == (103, 1)
    assert agent_obs(result) == [0.0, pytest.approx(1 - 1 / 300), 1.0, 1.0, 3.0, 3.0]


def test_resting_quote_is_kept_with_its_queue_position() -> None:
    env = quiet_env()
    book = env.book
    env.step(act(1, 4))
    bid_id, ask_id = env.trader.bid_id, env.trader.ask_id
    book.limit(Side.BID, 99, 2)  # behind the agent
    book.limit(Side.ASK, 104, 2)
    result = env.step(act(1, 4))
    assert (env.trader.bid_id, env.trader.ask_id) == (bid_id, ask_id)
    assert book.queue_ahead(bid_id) == 3 and book.queue_ahead(ask_id) == 3
    assert agent_obs(result)[2:] == [1.0, 1.0, 3.0, 3.0]
    # A better bid from someone else moves the level-1 reference: cancel and re-quote.
    book.limit(Side.BID, 100, 1)
    env.step(act(1, 4))
    assert book.get(bid_id) is None
    assert book.get(env.trader.bid_id).price == 100
    assert book.queue_ahead(env.trader.bid_id) == 1
    assert env.trader.ask_id == ask_id


def test_own_quote_alone_at_the_best_is_ignored_for_the_reference() -> None:
    env = quiet_env()
    book = env.book
    cancel_background(book, Side.BID)
    env.step(act(1, 0))  # no other bid: best ask - 1
    bid_id = env.trader.bid_id
    assert book.get(bid_id).price == 100
    book.limit(Side.BID, 97, 1)
    # Level 1 while sitting at the overall best: kept, though others' best is 97.
    env.step(act(1, 0))
    assert env.trader.bid_id == bid_id
    # Level 2: the reference is the next level (97), so the quote moves to 96.
    env.step(act(2, 0))
    assert book.get(bid_id) is None and book.get(env.trader.bid_id).price == 96


def test_own_quote_sharing_the_best_keeps_that_reference() -> None:
    env = quiet_env()
    book = env.book
    env.step(act(0, 1))
    ask_id = env.trader.ask_id
    cancel_background(book, Side.ASK, 101)
    book.limit(Side.ASK, 101, 1)  # others still at the agent's level
    env.step(act(0, 2))
    assert book.get(ask_id) is None and book.get(env.trader.ask_id).price == 102


def test_reference_falls_back_to_last_price() -> None:
    env = quiet_env()
    book = env.book
    cancel_background(book, Side.BID)
    cancel_background(book, Side.ASK)
    book.last_price = 105
    env.step(act(3, 1))
    # Bid: no orders at all -> floor(105) - 2. Ask: no other asks, and the best bid is the
    # agent's own quote -> ceil(105).
    assert book.get(env.trader.bid_id).price == 103
    assert book.get(env.trader.ask_id).price == 105
    env.reset(seed=0)
    cancel_background(book, Side.BID)
    cancel_background(book, Side.ASK)
    book.last_price = None
    env.step(act(1, 2))
    assert book.get(env.trader.bid_id).price == 100  # mid_price
    assert book.get(env.trader.ask_id).price == 101


def test_reference_rounds_a_fractional_last_price_outwards() -> None:
    env = quiet_env()
    book = env.book
    cancel_background(book, Side.BID)
    cancel_background(book, Side.ASK)
    book.last_price = 104.5  # a reference set by the caller
    env.step(act(1, 1))
    assert book.get(env.trader.bid_id).price == 104
    assert book.get(env.trader.ask_id).price == 105


def test_bid_price_is_at_least_one_tick() -> None:
    env = quiet_env(mid_price=20, max_quote_offset=5)
    book = env.book
    cancel_background(book, Side.BID)
    cancel_background(book, Side.ASK)
    book.last_price = 3
    env.step(act(5, 0))
    assert book.get(env.trader.bid_id).price == 1


def test_crossing_quote_fills_at_once() -> None:
    env = quiet_env()
    book = env.book
    env.step(act(0, 1))  # the agent's ask joins the three at 101
    ask_id = env.trader.ask_id
    cancel_background(book, Side.BID)
    book.last_price = 103
    result = env.step(act(1, 1))
    # No other bid and the best ask is the agent's own price -> reference floor(103): the bid
    # crosses and takes the oldest ask at 101 at once.
    assert env.trader.bid_id is None
    assert env.trader.inventory == 1 and env.trader.cash == -101
    assert result.info["fills"] == 1
    assert env.trader.ask_id == ask_id and book.queue_ahead(ask_id) == 2


def test_level_zero_cancels_both_quotes() -> None:
    env = quiet_env()
    env.step(act(2, 2))
    assert env.book.n_orders_of(0) == 2
    result = env.step(act(0, 0))
    assert env.book.n_orders_of(0) == 0
    assert (env.trader.bid_id, env.trader.ask_id) == (None, None)
    assert agent_obs(result)[2:] == [0.0, 0.0, 0.0, 0.0]


def test_inventory_limit_forces_level_zero_and_masks() -> None:
    env = quiet_env(max_inventory=2)
    env.step(act(1, 1, BUY))
    bid_id = env.trader.bid_id
    assert env.trader.inventory == 1 and bid_id is not None
    assert [mask.tolist() for mask in env.action_mask()] == [[1] * 6, [1] * 6, [1, 1, 1]]
    # Buying now reaches the limit, so the bid is forced to level 0 (cancelled).
    env.step(act(1, 1, BUY))
    assert env.trader.inventory == 2 and env.trader.bid_id is None
    assert env.book.get(bid_id) is None and env.trader.ask_id is not None
    masks = env.action_mask()
    assert isinstance(masks, tuple) and len(masks) == 3
    assert all(mask.dtype == np.int8 for mask in masks)
    assert [mask.tolist() for mask in masks] == [[1, 0, 0, 0, 0, 0], [1] * 6, [1, 1, 0]]
    env.step(act(3, 1))
    assert env.trader.bid_id is None
    sold = quiet_env(max_inventory=1)
    sold.step(act(1, 1, SELL))
    assert sold.trader.ask_id is None and sold.trader.bid_id is not None
    assert [m.tolist() for m in sold.action_mask()] == [[1] * 6, [1, 0, 0, 0, 0, 0], [0, 1, 1]]


def test_action_mask_after_reset() -> None:
    env = quiet_env()
    bid, ask, market = env.action_mask()
    assert (bid.shape, ask.shape, market.shape) == ((6,), (6,), (3,))
    assert bid.tolist() == ask.tolist() == [1] * 6 and market.tolist() == [1, 1, 1]


# -- fills as maker, rewards, clocks ---------------------------------------------------------


def test_maker_fills_from_the_flow_are_booked() -> None:
    flow = ScriptedFlow()
    env = LimitOrderBookEnv(flow=flow, mid_price=100, warmup=0.0)
    env.reset(seed=0)
    env.step(act(1, 1))
    bid_id, ask_id = env.trader.bid_id, env.trader.ask_id
    flow.events.append(lambda book: book.market(Side.ASK, 4)[1])  # reaches the agent's bid
    flow.events.append(lambda book: book.market(Side.BID, 3)[1])  # stops short of its ask
    result = env.step(act(1, 1))
    assert env.book.get(bid_id) is None and env.trader.bid_id is None
    assert env.trader.inventory == 1 and env.trader.cash == -99
    assert result.info["fills"] == 1
    assert agent_obs(result)[2:] == [0.0, 1.0, 0.0, 0.0]
    flow.events.append(lambda book: book.market(Side.BID, 1)[1])
    result = env.step(act(0, 1))
    assert env.book.get(ask_id) is None and env.trader.ask_id is None
    assert env.trader.inventory == 0 and env.trader.cash == -99 + 101
    assert result.info["fills"] == 1
    trades = result.observation["trades"]
    assert trades["mask"].sum() == 8
    assert trades["values"][:, 2].tolist()[:8] == [-1, -1, -1, -1, 1, 1, 1, 1]


def test_trade_memory_keeps_the_latest_trades_oldest_first() -> None:
    env = quiet_env(max_trades=2)
    env.step(act(0, 0, BUY))
    env.step(act(0, 0, BUY))
    result = env.step(act(0, 0, SELL))
    mid = env.core.mid()
    values, slots = env.observation_space["trades"].unpack(result.observation["trades"])
    assert slots.tolist() == [0, 1]
    assert values.tolist() == [[101 - mid, 1, 1], [99 - mid, 1, -1]]


def test_reward_is_wealth_change_minus_inventory_penalty() -> None:
    env = LimitOrderBookEnv(session_length=40.0, inventory_penalty=0.05)
    env.reset(seed=11)
    space = env.action_space
    space.seed(3)
    total = penalties = 0.0
    wealth = 0.0
    done = False
    while not done:
        before = wealth
        result = env.step(space.sample(mask=env.action_mask()))
        info = result.info
        penalty = 0.05 * info["inventory"] ** 2 * info["dt"]
        assert result.reward == pytest.approx(info["wealth"] - before - penalty, abs=1e-9)
        assert info["wealth"] == env.trader.wealth(env.core.mid())
        assert abs(info["inventory"]) <= 20
        wealth = info["wealth"]
        total += result.reward
        penalties += penalty
        done = result.terminated
    assert total + penalties == pytest.approx(wealth, abs=1e-8)
    assert env.elapsed_steps == 40


def test_final_step_covers_the_exact_remainder() -> None:
    env = quiet_env(session_length=1.0, decision_interval=0.3, inventory_penalty=0.5)
    assert env.n_steps == 4
    remainder = float(Fraction(1.0) - 3 * Fraction(0.3))
    assert remainder != 1.0 - 3 * 0.3  # the exact value differs from naive floats
    results = [env.step(act(0, 0, BUY if k == 0 else HOLD)) for k in range(4)]
    assert [r.info["dt"] for r in results] == [0.3, 0.3, 0.3, remainder]
    assert [r.terminated for r in results] == [False, False, False, True]
    stamps = [r.info["timestamp"] for r in results]
    assert stamps == [float(min(k * Fraction(0.3), Fraction(1))) for k in range(1, 5)]
    assert env.core.elapsed == 1.0 and env.book.time == 1.0
    assert results[-1].observation["agent"][1] == 0.0
    # Holding one lot with a constant mid: each reward is the penalty alone.
    assert [r.reward for r in results[1:]] == [-0.5 * dt for dt in (0.3, 0.3, remainder)]


def test_time_left_and_info_timestamp_follow_the_session_clock() -> None:
    env = LimitOrderBookEnv(session_length=10.0, decision_interval=2.5, warmup=3.0)
    env.reset(seed=2)
    t0 = env.book.time
    assert t0 == 3.0
    for k in range(1, 5):
        result = env.step(act(1, 1))
        assert result.info["timestamp"] == env.book.time - t0 == 2.5 * k
        assert result.observation["agent"][1] == pytest.approx(1 - 0.25 * k)
        assert env.core.elapsed == 2.5 * k
    assert result.terminated


def test_determinism_under_seeds() -> None:
    def rollout(seed: int) -> list[Any]:
        env = LimitOrderBookEnv(session_length=30.0)
        first = env.reset(seed=seed)
        space = env.action_space
        space.seed(9)
        out = [first.observation["book"].tolist()]
        for _ in range(30):
            result = env.step(space.sample())
            out.append((result.observation["book"].tolist(), result.reward, result.info))
        return out

    assert rollout(4) == rollout(4)
    assert rollout(4) != rollout(5)
    env = LimitOrderBookEnv()
    a = env.reset(seed=8).observation["book"].tolist()
    assert env.reset().observation["book"].tolist() != a
    assert env.reset(seed=8).observation["book"].tolist() == a


def test_observation_is_fresh() -> None:
    env = quiet_env()
    first = env.step(act(1, 1)).observation
    kept = first["book"].copy()
    first["book"][:] = 0
    second = env.step(act(1, 1)).observation
    assert second["book"].tolist() == kept.tolist()
    assert second["book"] is not first["book"]


# -- LimitOrderBookMarket --------------------------------------------------------------------


def quiet_market(n_agents: int = 2, **kwargs: Any) -> LimitOrderBookMarket:
    params: dict[str, Any] = {"flow": QUIET, "mid_price": 100, "warmup": 0.0, **kwargs}
    market = LimitOrderBookMarket(n_agents, **params)
    market.reset(seed=0)
    return market


def test_market_construction_and_reset() -> None:
    market = LimitOrderBookMarket(3, decision_intervals=[1.0, 2.0, 0.5])
    assert market.possible_agents == ["trader_0", "trader_1", "trader_2"]
    assert market.decision_intervals.tolist() == [1.0, 2.0, 0.5]
    assert LimitOrderBookMarket(2, decision_intervals=0.5).decision_intervals.tolist() == [0.5] * 2
    single = LimitOrderBookEnv()
    for agent in market.possible_agents:
        assert market.action_spaces[agent] == single.action_space
        assert market.observation_spaces[agent] == single.observation_space
        assert market.action_space(agent) == single.action_space
    assert [t.owner for t in market.traders.values()] == [0, 1, 2]
    with pytest.raises(ResetRequired):
        market.step({})
    result = market.reset(seed=3)
    assert market.agents == market.possible_agents and market.acting == market.possible_agents
    assert market.next_decision.tolist() == [0.0, 0.0, 0.0] and market._clock == 0
    assert isinstance(market._clock, Fraction)
    assert list(result.observations) == market.possible_agents
    assert list(result.info) == market.possible_agents
    for info in result.info.values():
        assert list(info) == INFO_KEYS and info["dt"] == 0.0 and info["fills"] == 0
    assert market.book.time == 20.0 and market.core.t0 == 20.0
    assert [m.tolist() for m in market.action_mask("trader_1")] == [[1] * 6, [1] * 6, [1, 1, 1]]


def test_market_keys_must_equal_acting() -> None:
    market = quiet_market(decision_intervals=[1.0, 2.0])
    hold = act(0, 0)
    for bad in ({"trader_0": hold}, {**dict.fromkeys(market.possible_agents, hold), "x": hold}):
        with pytest.raises(ValueError, match="acting"):
            market.step(bad)
    with pytest.raises(ValueError, match="acting"):
        market.step([hold, hold])
    market.step(dict.fromkeys(market.possible_agents, hold))
    assert market.acting == ["trader_0"]
    with pytest.raises(ValueError, match="acting"):
        market.step(dict.fromkeys(market.possible_agents, hold))
    market.step({"trader_0": hold})
    assert market.acting == ["trader_0", "trader_1"]


def _snapshot(market: LimitOrderBookMarket) -> Any:
    book = market.book
    orders = [
        (o.order_id, int(o.side), o.price, o.quantity, o.owner)
        for owner in (BACKGROUND, 0, 1, 2)
        for o in book.orders_of(owner)
    ]
    return (
        [side.tolist() for side in book.depth(30)],
        orders,
        book.time,
        book.last_price,
        market._clock,
        market.next_decision.tolist(),
        {a: dataclasses.astuple(t) for a, t in market.traders.items()},
        list(market.acting),
        list(market.core.trades),
        market.rng.bit_generator.state,
    )


def test_market_validates_every_action_before_executing_any() -> None:
    market = LimitOrderBookMarket(3, jitter=0.4, warmup=5.0)
    market.reset(seed=1)
    market.step(dict.fromkeys(market.acting, act(1, 1)))
    before = _snapshot(market)
    actions = dict.fromkeys(market.acting, act(0, 0, BUY))
    actions[market.acting[-1]] = np.array([0, 0, 7])
    with pytest.raises(InvalidAction):
        market.step(actions)
    assert _snapshot(market) == before


def test_market_processes_acting_traders_in_name_order() -> None:
    market = quiet_market(3)
    book = market.book
    at_101 = [o for o in book.orders_of(BACKGROUND) if o.side == Side.ASK and o.price == 101]
    for order in at_101[1:]:
        book.cancel(order.order_id)
    assert book.volume_at(Side.ASK, 101) == 1
    result = market.step(
        {"trader_2": act(0, 0, BUY), "trader_0": act(0, 0, BUY), "trader_1": act(0, 0, BUY)}
    )
    cash = {a: t.cash for a, t in market.traders.items()}
    assert cash == {"trader_0": -101, "trader_1": -102, "trader_2": -102}
    assert [result.info[a]["fills"] for a in market.possible_agents] == [1, 1, 1]
    assert quiet_market(11).acting == sorted(f"trader_{i}" for i in range(11))


def test_fills_between_agents_are_booked_for_both() -> None:
    market = quiet_market(2)
    book = market.book
    cancel_background(book, Side.ASK)
    market.step({"trader_0": act(0, 1), "trader_1": act(0, 0)})
    maker_ask = market.traders["trader_0"].ask_id
    assert book.get(maker_ask).price == 100 and book.best_ask() == 100
    wealth_before = {a: market.traders[a].wealth(market.core.mid()) for a in market.traders}
    result = market.step({"trader_0": act(0, 1), "trader_1": act(0, 0, BUY)})
    maker, taker = market.traders["trader_0"], market.traders["trader_1"]
    assert (maker.inventory, maker.cash, maker.ask_id) == (-1, 100, None)
    assert (taker.inventory, taker.cash) == (1, -100)
    assert result.info["trader_0"]["fills"] == result.info["trader_1"]["fills"] == 1
    mid = market.core.mid()
    for agent, trader in market.traders.items():
        expected = trader.wealth(mid) - wealth_before[agent] - 0.01 * 1 * 1.0
        assert result.rewards[agent] == pytest.approx(expected)
        assert result.info[agent]["wealth"] == trader.wealth(mid)


def test_jittered_decision_times_stay_within_bounds() -> None:
    intervals = [1.0, 2.5, 0.7]
    market = LimitOrderBookMarket(3, decision_intervals=intervals, jitter=0.5, session_length=30.0)
    market.reset(seed=2)
    names = market.possible_agents
    hold = act(1, 1)
    steps = 0
    while market.agents:
        clock = market._clock
        before = market.next_decision
        acting = list(market.acting)
        result = market.step(dict.fromkeys(acting, hold))
        after = market.next_decision
        for i, agent in enumerate(names):
            if agent in acting:
                gap = after[i] - float(clock)
                assert 0.5 * intervals[i] - 1e-9 <= gap <= 1.5 * intervals[i] + 1e-9
            else:
                assert after[i] == before[i]
        new_clock = market._clock
        assert new_clock == min(min(market._next.values()), Fraction(30))
        assert result.info[names[0]]["dt"] == float(new_clock - clock)
        assert set(result.rewards) == set(result.terminated) == set(names)
        assert set(result.observations) == set(market.acting)
        for agent in names:
            assert result.info[agent]["acting"] is (agent in market.acting)
        steps += 1
    assert market._clock == 30 and steps > 30
    gaps = np.diff(sorted(set(market.next_decision.tolist())))
    assert gaps.size == 0 or gaps.min() > 0


def test_observations_only_for_the_next_acting_agents() -> None:
    market = quiet_market(2, decision_intervals=[1.0, 2.0])
    result = market.step({"trader_0": act(1, 1), "trader_1": act(1, 1)})
    assert market.acting == ["trader_0"] and list(result.observations) == ["trader_0"]
    assert market._clock == 1 and market.next_decision.tolist() == [1.0, 2.0]
    assert result.info["trader_0"]["acting"] is True
    assert result.info["trader_1"]["acting"] is False
    assert set(result.rewards) == {"trader_0", "trader_1"}
    result = market.step({"trader_0": act(0, 0, BUY)})
    assert list(result.observations) == ["trader_0", "trader_1"]
    # trader_1 did not act but still holds quotes and gets a reward (here only the mid move).
    assert result.rewards["trader_1"] == 0.0
    assert result.rewards["trader_0"] == pytest.approx(100.0 - 101 - 0.01)


def test_market_session_end() -> None:
    market = quiet_market(2, decision_intervals=[1.0, 0.75], session_length=2.0)
    steps = []
    while market.agents:
        steps.append(market.step(dict.fromkeys(market.acting, act(1, 1))))
    last = steps[-1]
    assert market._clock == 2 and last.info["trader_0"]["timestamp"] == 2.0
    assert last.terminated == {"trader_0": True, "trader_1": True}
    assert last.truncated == {"trader_0": False, "trader_1": False} and last.all_done
    assert market.agents == [] and market.acting == ["trader_0", "trader_1"]
    assert list(last.observations) == ["trader_0", "trader_1"]
    assert not any(any(s.terminated.values()) for s in steps[:-1])
    # Clocks: 0 -> 0.75 -> 1 -> 1.5 -> 2 (capped at the session end).
    assert [s.info["trader_0"]["dt"] for s in steps] == [0.75, 0.25, 0.5, 0.5]
    with pytest.raises(ResetRequired, match="episode has ended"):
        market.step(dict.fromkeys(market.acting, act(1, 1)))
    market.reset(seed=0)
    assert market.agents == ["trader_0", "trader_1"]


def _same_observation(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return (
        np.array_equal(a["book"], b["book"])
        and np.array_equal(a["agent"], b["agent"])
        and np.array_equal(a["trades"]["values"], b["trades"]["values"])
        and np.array_equal(a["trades"]["mask"], b["trades"]["mask"])
    )


@pytest.mark.parametrize(("session_length", "interval"), [(25.5, 1.0), (4.0, 0.3), (6.0, 1.5)])
def test_single_agent_market_reproduces_the_env(session_length: float, interval: float) -> None:
    kwargs: dict[str, Any] = {"session_length": session_length, "warmup": 5.0}
    env = LimitOrderBookEnv(decision_interval=interval, **kwargs)
    market = LimitOrderBookMarket(1, decision_intervals=interval, **kwargs)
    first = env.reset(seed=21)
    other = market.reset(seed=21)
    assert _same_observation(first.observation, other.observations["trader_0"])
    space = env.action_space
    space.seed(5)
    steps = 0
    while True:
        action = space.sample(mask=env.action_mask())
        assert all(
            np.array_equal(x, y)
            for x, y in zip(env.action_mask(), market.action_mask("trader_0"), strict=True)
        )
        one = env.step(action)
        many = market.step({"trader_0": action})
        steps += 1
        assert _same_observation(one.observation, many.observations["trader_0"])
        assert one.reward == many.rewards["trader_0"]
        assert one.terminated == many.terminated["trader_0"]
        info = dict(many.info["trader_0"])
        assert info.pop("acting") is True
        assert info == one.info
        if one.terminated:
            break
    assert steps == env.n_steps and market.agents == []

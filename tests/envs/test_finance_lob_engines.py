"""The order-book engines: the numba engine gives the pure-Python engine's results exactly."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
from dataclasses import astuple
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sekai
from sekai.envs.finance.order_book import LimitOrderBookEnv, LimitOrderBookMarket
from sekai.finance.lob import (
    BACKGROUND,
    HistoricalFlow,
    OrderBook,
    Side,
    ZeroIntelligenceFlow,
    write_lobster,
)
from sekai.finance.lob import engine as engines

pytest.importorskip("numba")

from sekai.envs.finance.order_book.compiled import _CompiledCore
from sekai.finance.lob.compiled import CompiledBook, flow_advance, flow_initialise
from sekai.finance.lob.compiled import book_state as states

FLOWS = [
    ZeroIntelligenceFlow(),
    ZeroIntelligenceFlow(limit_rate=3.0, market_rate=6.0, cancel_rate=2.0, max_offset=3),
    ZeroIntelligenceFlow(offset_decay=0.0, mean_size=1.0),
    ZeroIntelligenceFlow(cancel_rate=0.0, mean_size=7.5, offset_decay=2.0),
]
SETTINGS: list[dict[str, Any]] = [
    {},
    {"latency": 0.3},
    {"order_size": 3, "max_inventory": 5, "levels": 8, "max_trades": 4},
    {"flow": FLOWS[1], "max_quote_offset": 2},
    {"flow": FLOWS[2], "warmup": 0.0, "session_length": 10.5, "decision_interval": 0.7},
    {"flow": FLOWS[3], "mid_price": 40, "latency": 0.69, "decision_interval": 0.7},
]


def same(a: Any, b: Any) -> bool:
    """Equal values of equal types, arrays by dtype, shape and every element."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and bool((a == b).all())
    return type(a) is type(b) and a == b


def book_state(book: OrderBook) -> Any:
    orders = [
        (o.order_id, int(o.side), o.price, o.quantity, o.owner, o.time)
        for owner in (BACKGROUND, 0, 1, 2)
        for o in book.orders_of(owner)
    ]
    depth = [side.tolist() for side in book.depth(40)]
    return orders, depth, book.time, book.last_price, len(book)


def trajectory(engine: str, seed: int, steps: int, **kwargs: Any) -> Any:
    env = LimitOrderBookEnv(engine=engine, **kwargs)
    env.action_space.seed(seed)
    records: list[Any] = [env.reset(seed=seed)]
    for _ in range(steps):
        result = env.step(env.action_space.sample())
        records.append((result, book_state(env.book), env.action_mask()))
        if result.terminated:
            records.append(env.reset())
    return env, records


def assert_same_trajectories(expected: list[Any], got: list[Any]) -> None:
    """Results, books and action masks equal, record by record (resets included)."""
    assert len(got) == len(expected)
    for want, have in zip(expected, got, strict=True):
        if isinstance(want, tuple):
            (result, book, mask), (other, other_book, other_mask) = want, have
            assert same(result.observation, other.observation)
            assert same(result.reward, other.reward) and same(result.info, other.info)
            assert result.terminated == other.terminated
            assert book == other_book
            assert all(same(a, b) for a, b in zip(mask, other_mask, strict=True))
        else:
            assert same(want.observation, have.observation) and same(want.info, have.info)


# -- the engine choice ---------------------------------------------------------------------


def test_auto_picks_numba_for_the_built_in_flows(tmp_path) -> None:
    assert type(LimitOrderBookEnv().core) is _CompiledCore
    assert type(LimitOrderBookEnv(flow=FLOWS[1]).core) is _CompiledCore
    assert isinstance(LimitOrderBookEnv().book, CompiledBook)
    assert not isinstance(LimitOrderBookEnv(engine="python").book, CompiledBook)

    class Custom(ZeroIntelligenceFlow):
        pass

    assert type(LimitOrderBookEnv(flow=Custom()).core) is not _CompiledCore
    with pytest.raises(ValueError, match="ZeroIntelligenceFlow order flow or replayed data"):
        LimitOrderBookEnv(flow=Custom(), engine="numba")
    data = sekai.finance.lob.read_lobster(*write_lobster(tmp_path, 2_000, levels=5))
    replay = LimitOrderBookEnv(data=data, session_length=0.01, decision_interval=0.001, warmup=0.0)
    assert type(replay.core) is _CompiledCore
    assert type(LimitOrderBookMarket(3, engine="numba").core) is _CompiledCore


def test_engine_argument_errors(monkeypatch) -> None:
    with pytest.raises(ValueError, match="engine must be one of"):
        LimitOrderBookEnv(engine="fast")
    with pytest.raises(TypeError, match="engine"):
        LimitOrderBookEnv(engine=1)  # type: ignore[arg-type]
    monkeypatch.setattr(engines, "numba_installed", lambda: False)
    assert type(LimitOrderBookEnv().core) is not _CompiledCore
    with pytest.raises(ImportError, match=r"numba.*pip install -e \"\.\[numba\]\""):
        LimitOrderBookEnv(engine="numba")


# -- identical results ---------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", SETTINGS)
@pytest.mark.parametrize("seed", [0, 1])
def test_numba_engine_reproduces_the_python_engine(kwargs: dict[str, Any], seed: int) -> None:
    python, expected = trajectory("python", seed, 400, **kwargs)
    numba, got = trajectory("numba", seed, 400, **kwargs)
    assert_same_trajectories(expected, got)
    assert python.rng.bit_generator.state == numba.rng.bit_generator.state
    assert python.trader == numba.trader
    assert list(python.core.trades) == numba.core.trades


@pytest.fixture(scope="module")
def days(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    """Two generated LOBSTER days with hidden executions and a halt."""
    folder = tmp_path_factory.mktemp("lobster")
    return [
        sekai.finance.lob.read_lobster(
            *write_lobster(folder / str(seed), 20_000, levels=5, seed=seed, halt=True)
        )
        for seed in (1, 2)
    ]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"session_length": 0.2, "decision_interval": 0.01, "warmup": 0.05},
        {"session_length": 0.3, "decision_interval": 0.005, "warmup": 0.0, "latency": 0.003},
        {"session_length": 0.1, "decision_interval": 0.002, "warmup": 0.01, "max_inventory": 2},
    ],
)
def test_numba_replay_reproduces_the_python_replay(days: list[Any], kwargs: dict[str, Any]) -> None:
    python, expected = trajectory("python", 5, 250, data=days, **kwargs)
    numba, got = trajectory("numba", 5, 250, data=days, **kwargs)
    assert_same_trajectories(expected, got)
    assert python.trader == numba.trader and python.core.day == numba.core.day
    assert python.core.halted == numba.core.halted


@pytest.mark.parametrize("latency", [0.0, 0.2])
def test_numba_market_reproduces_the_python_market(latency: float) -> None:
    def run(engine: str) -> list[Any]:
        market = LimitOrderBookMarket(
            3, decision_intervals=[1.0, 0.5, 0.75], jitter=0.3, latency=latency, engine=engine
        )
        spaces = market.action_spaces
        for i, agent in enumerate(market.possible_agents):
            spaces[agent].seed(i)
        records: list[Any] = [market.reset(seed=4)]
        while market.agents:
            actions = {agent: spaces[agent].sample() for agent in market.acting}
            result = market.step(actions)
            records.append(
                (
                    result,
                    book_state(market.book),
                    {a: astuple(t) for a, t in market.traders.items()},
                )
            )
        records.append(market.rng.bit_generator.state)
        return records

    expected, got = run("python"), run("numba")
    assert len(got) == len(expected) > 200
    for want, have in zip(expected[1:-1], got[1:-1], strict=True):
        (result, book, traders), (other, other_book, other_traders) = want, have
        assert same(result.observations, other.observations)
        assert same(result.rewards, other.rewards) and same(result.info, other.info)
        assert book == other_book and traders == other_traders
    assert expected[-1] == got[-1]


@pytest.mark.parametrize("flow", FLOWS)
@pytest.mark.parametrize("seed", [0, 3])
def test_compiled_flow_reproduces_zero_intelligence_flow(
    flow: ZeroIntelligenceFlow, seed: int
) -> None:
    """Fills, books and generator states agree, with agent orders in between."""
    rng, other_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    book = OrderBook()
    flow.initialise(book, rng, mid=1_000)
    rates = (flow.limit_rate, flow.market_rate, flow.cancel_rate)
    params = np.array([*rates, flow.max_offset, flow.offset_decay, flow.mean_size])
    compiled = CompiledBook(states.new_state(other_rng, params))
    flow_initialise(compiled._state, 1_000, 10, 3)
    compiled.touch()
    assert book_state(compiled) == book_state(book)
    for step in range(1, 300):
        fills = flow.advance(book, rng, step * 0.5)
        flow_advance(compiled._state, step * 0.5)
        assert compiled._fills() == fills
        if step % 7 == 0:
            bid = book.best_bid()
            assert compiled.limit(Side.BID, bid, 2, owner=0) == book.limit(Side.BID, bid, 2, 0)
            assert compiled.market(Side.ASK, 5, owner=1) == book.market(Side.ASK, 5, owner=1)
        assert book_state(compiled) == book_state(book)
    assert rng.bit_generator.state == other_rng.bit_generator.state


# -- the compiled book as an OrderBook -----------------------------------------------------

OPS = st.lists(
    st.one_of(
        st.tuples(st.just("limit"), st.sampled_from([1, -1]), st.integers(1, 9), st.integers(1, 5)),
        st.tuples(st.just("place"), st.sampled_from([1, -1]), st.integers(1, 9), st.integers(1, 5)),
        st.tuples(st.just("market"), st.sampled_from([1, -1]), st.integers(1, 12)),
        st.tuples(st.just("cancel"), st.integers(0, 40)),
        st.tuples(st.just("reduce"), st.integers(0, 40), st.integers(0, 4)),
        st.tuples(st.just("last"), st.sampled_from([None, 7, 6.5])),
    ),
    max_size=50,
)


@settings(max_examples=80, deadline=None)
@given(ops=OPS)
def test_compiled_book_changes_like_an_order_book(ops: list[tuple[Any, ...]]) -> None:
    book, compiled = OrderBook(), CompiledBook.empty()
    for step, op in enumerate(ops):
        book.time = compiled.time = step / 4
        kind, *args = op
        if kind == "last":
            book.last_price = compiled.last_price = args[0]
        elif kind in ("limit", "place", "market"):
            owner = step % 3 - 1
            assert getattr(compiled, kind)(*args, owner) == getattr(book, kind)(*args, owner)
        elif kind == "cancel":
            assert compiled.cancel(args[0]) == book.cancel(args[0])
        else:
            order = book.get(args[0])
            if order is not None and args[1] >= order.quantity:
                with pytest.raises(ValueError, match="below the current"):
                    compiled.reduce(*args)
                continue
            assert compiled.reduce(*args) == book.reduce(*args)
        assert book_state(compiled) == book_state(book)
        for order in book.orders_of(BACKGROUND):
            assert compiled.queue_ahead(order.order_id) == book.queue_ahead(order.order_id)
        assert repr(compiled) == repr(book) and compiled.mid() == book.mid()
    compiled.clear()
    book.clear()
    assert book_state(compiled) == book_state(book)


def test_env_book_follows_the_env_and_changes_it() -> None:
    env = LimitOrderBookEnv(engine="numba")
    book = env.book
    env.reset(seed=2)
    assert env.book is book and len(book) > 0
    before = book.depth(5)
    env.step(np.array([1, 1, 1]))
    assert env.trader.bid_id is not None and book.get(env.trader.bid_id).owner == 0
    assert any((a != b).any() for a, b in zip(before, book.depth(5), strict=True))
    ask = book.best_ask()
    order_id, fills = book.limit(Side.BID, ask, 1_000, owner=7)
    assert fills and book.best_ask() != ask and order_id is not None
    assert env.trader.inventory == 0  # a caller's trade is not the agent's
    for flow in (ZeroIntelligenceFlow(),):
        with pytest.raises(TypeError, match="engine='python'"):
            flow.advance(book, env.rng, 1e6)
        with pytest.raises(TypeError, match="CompiledBook"):
            flow.initialise(book, env.rng, mid=100)
    history = HistoricalFlow.__new__(HistoricalFlow)
    with pytest.raises(TypeError, match="HistoricalFlow"):
        history.seek(book, 0, 0)


def test_pickle_and_deepcopy_continue_the_episode() -> None:
    env = sekai.make("LimitOrderBook-v0", engine="numba")
    env.reset(seed=0)
    for _ in range(5):
        env.step(np.array([1, 1, 1]))
    copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    action = np.array([2, 1, 2])
    results = [e.step(action) for e in (env, *copies)]
    for other in results[1:]:
        assert same(other.observation, results[0].observation)
        assert other.reward == results[0].reward and same(other.info, results[0].info)
    assert copies[0].unwrapped.rng is copies[0].unwrapped.core._rng


def test_check_env_passes_on_the_numba_engine() -> None:
    env = sekai.make("LimitOrderBook-v0", engine="numba", latency=0.25)
    assert sekai.check_env(env, check_determinism=True) == []


def test_numba_is_imported_only_for_the_numba_engine() -> None:
    script = (
        "import sys\n"
        "import sekai\n"
        "from sekai.envs.finance.order_book import LimitOrderBookEnv\n"
        "LimitOrderBookEnv(engine='python').reset(seed=0)\n"
        "sekai.make('LimitOrderBook-v0', engine='python').reset(seed=0)\n"
        "assert 'numba' not in sys.modules\n"
        "LimitOrderBookEnv().reset(seed=0)\n"
        "assert 'numba' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)

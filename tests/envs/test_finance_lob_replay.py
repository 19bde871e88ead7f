"""LimitOrderBook-v0 and LimitOrderBookMarket replaying LOBSTER messages."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.envs.finance.order_book import HOLD, LimitOrderBookEnv, LimitOrderBookMarket
from sekai.finance.lob import LobsterData, OrderBook, simulate_lobster
from sekai.finance.lob.lobster_flow import HistoricalFlow
from sekai.finance.sampling import FixedStart

pytestmark = pytest.mark.usefixtures("order_book_engine")  # every test on both engines

NEW, CANCEL, DELETE, EXECUTE = 1, 2, 3, 4
BID, ASK = 1, -1


def _data(messages: list[tuple[float, int, int, int, int, int]]) -> LobsterData:
    """``LobsterData`` from ``(seconds, event, id, size, price, side)`` with a 1-level book."""
    volumes: dict[int, dict[int, int]] = {BID: {}, ASK: {}}
    rows = []
    for _, event, _, size, price, side in messages:
        level = volumes[side]
        level[price] = level.get(price, 0) + (size if event == NEW else -size)
        if not level[price]:
            del level[price]
        ask = min(volumes[ASK], default=None)
        bid = max(volumes[BID], default=None)
        rows.append(
            [
                [9_999_999_999 if ask is None else ask, volumes[ASK].get(ask, 0) if ask else 0,
                 -9_999_999_999 if bid is None else bid, volumes[BID].get(bid, 0) if bid else 0]
            ]
        )  # fmt: skip
    t, event, oid, size, price, side = zip(*messages, strict=True)
    return LobsterData(
        np.rint(np.array(t) * 1e9).astype(np.int64),
        np.array(event, dtype=np.int8),
        np.array(oid),
        np.array(size),
        np.array(price),
        np.array(side, dtype=np.int8),
        book=np.array(rows, dtype=np.int64),
    )


def _queue_data() -> LobsterData:
    return _data(
        [
            (0.0, NEW, 1, 5, 100, BID),
            (0.0, NEW, 2, 5, 102, ASK),
            (1.5, EXECUTE, 1, 3, 100, BID),
            (2.5, EXECUTE, 1, 2, 100, BID),
            (3.5, NEW, 3, 4, 100, BID),
            (3.7, EXECUTE, 3, 1, 100, BID),
            (10.0, NEW, 4, 1, 103, ASK),
        ]
    )


def _env(data: Any, **kwargs: Any) -> LimitOrderBookEnv:
    kwargs = {"session_length": 5.0, "warmup": 0.0, "sampler": FixedStart(0), **kwargs}
    return LimitOrderBookEnv(data=data, **kwargs)


def test_checkpoint_every_follows_the_int_rule() -> None:
    data = simulate_lobster(200, levels=2, seed=1)
    assert HistoricalFlow(data, checkpoint_every=50.0).checkpoint_every == 50
    assert type(HistoricalFlow(data, checkpoint_every=np.int64(50)).checkpoint_every) is int
    for bad in (2.5, True, "50"):
        with pytest.raises(TypeError, match="checkpoint_every must be an int"):
            HistoricalFlow(data, checkpoint_every=bad)
    with pytest.raises(ValueError, match="checkpoint_every must be at least 1"):
        HistoricalFlow(data, checkpoint_every=0)


def test_no_agents_reproduces_every_book_row() -> None:
    data = simulate_lobster(6000, levels=10, seed=4, hidden_rate=0.1, halt=True)
    flow = HistoricalFlow(data, checkpoint_every=500)
    book = OrderBook()
    times = data.time_ns
    flow.seek(book, 0, int(times[0]) - 1)
    for k in range(0, len(data), 13):
        flow.advance(book, np.random.default_rng(), times[k] / 1e9)
        row = data.book[int(np.searchsorted(times, times[k], side="right")) - 1]
        _, bid_sizes, _, ask_sizes = book.depth(10)
        assert bid_sizes.tolist() == row[:, 3].tolist()
        assert ask_sizes.tolist() == row[:, 1].tolist()
    for k in (1, 499, 500, 501, 4321, len(data)):
        flow.seek(book, 0, int(times[k - 1]))
        row = data.book[int(np.searchsorted(times, times[k - 1], side="right")) - 1]
        bid_prices, bid_sizes, ask_prices, ask_sizes = book.depth(10)
        assert bid_sizes.tolist() == row[:, 3].tolist()
        assert ask_sizes.tolist() == row[:, 1].tolist()
        assert bid_prices[bid_sizes > 0].tolist() == row[row[:, 3] > 0, 2].tolist()
        assert ask_prices[ask_sizes > 0].tolist() == row[row[:, 1] > 0, 0].tolist()


def test_agent_bid_fills_when_the_queue_ahead_is_gone() -> None:
    env = _env(_queue_data())
    env.reset(seed=0)
    ahead = []
    for _ in range(4):
        result = env.step(np.array([1, 0, HOLD]))
        ahead.append(float(result.observation["agent"][4]))
        if result.info["inventory"]:
            break
    # Behind 5 lots, then 2 after the first execution, then first in line; the execution
    # of the later order at 3.7 s fills the agent's lot first.
    assert ahead[:3] == [5.0, 2.0, 0.0]
    assert result.info["inventory"] == 1 and result.info["cash"] == -100
    assert env.elapsed_steps == 4


def test_latency_delays_orders_by_exactly_latency() -> None:
    data = _data(
        [
            (0.0, NEW, 1, 5, 100, BID),
            (0.0, NEW, 2, 5, 102, ASK),
            (0.5, DELETE, 2, 5, 102, ASK),
            (0.55, NEW, 5, 5, 105, ASK),
            (10.0, NEW, 4, 1, 106, ASK),
        ]
    )
    outcomes = {}
    for latency in (0.0, 0.4, 0.52, 0.6):
        env = _env(data, latency=latency)
        env.reset(seed=0)
        info = env.step(np.array([0, 0, 2])).info
        outcomes[latency] = (info["inventory"], info["cash"])
    assert outcomes == {0.0: (1, -102), 0.4: (1, -102), 0.52: (0, 0), 0.6: (1, -105)}


def test_two_agents_keep_their_time_priority() -> None:
    data = _data(
        [
            (0.0, NEW, 1, 5, 100, BID),
            (0.0, NEW, 2, 5, 102, ASK),
            (1.5, EXECUTE, 1, 5, 100, BID),
            (2.2, NEW, 3, 4, 100, BID),
            (2.5, EXECUTE, 3, 1, 100, BID),
            (3.5, EXECUTE, 3, 1, 100, BID),
            (10.0, NEW, 4, 1, 103, ASK),
        ]
    )
    env = LimitOrderBookMarket(2, data=data, session_length=5.0, warmup=0.0, sampler=0)
    env.reset(seed=0)
    quote, idle = np.array([1, 0, HOLD]), np.array([0, 0, HOLD])
    inventory = []
    for first, second in ((quote, idle), (quote, quote), (quote, quote), (quote, quote)):
        result = env.step({"trader_0": first, "trader_1": second})
        inventory.append([result.info[a]["inventory"] for a in ("trader_0", "trader_1")])
    assert inventory == [[0, 0], [0, 0], [1, 0], [1, 1]]


def test_marketable_order_takes_replayed_liquidity_until_history_removes_it() -> None:
    data = _data(
        [
            (0.0, NEW, 1, 5, 100, BID),
            (0.0, NEW, 2, 2, 102, ASK),
            (1.5, CANCEL, 2, 1, 102, ASK),
            (10.0, NEW, 4, 1, 103, ASK),
        ]
    )
    env = _env(data, order_size=1)
    env.reset(seed=0)
    env.step(np.array([0, 0, 2]))
    assert env.book.volume_at(ASK, 102) == 1
    env.step(np.array([0, 0, HOLD]))
    # History cancels one of its two lots: what the agent took stays taken.
    assert env.book.volume_at(ASK, 102) == 1


def _simulated(**kwargs: Any) -> dict[str, Any]:
    data = [simulate_lobster(8000, levels=5, seed=s) for s in (1, 2)]
    return {
        "data": data,
        "session_length": 0.05,
        "decision_interval": 0.002,
        "warmup": 0.02,
        **kwargs,
    }


def test_check_env_with_determinism_in_replay() -> None:
    env = sekai.make("LimitOrderBook-v0", **_simulated(latency=0.0005))
    assert sekai.check_env(env, n_steps=60, check_determinism=True) == []


def test_sampler_spans_every_day_and_only_fitting_starts() -> None:
    env = LimitOrderBookEnv(**_simulated())
    seen = set()
    for seed in range(30):
        env.reset(seed=seed)
        day = env.core.day
        first, last = env.core.history.span(day)
        assert first / 1e9 + 0.02 - 1e-9 <= env.core.t0 <= last / 1e9 - 0.05 + 1e-9
        seen.add(day)
    assert seen == {0, 1}


def test_market_passes_parallel_api_test_in_replay() -> None:
    from pettingzoo.test import parallel_api_test

    from sekai.compat import to_pettingzoo

    kwargs = _simulated()
    kwargs["decision_intervals"] = kwargs.pop("decision_interval")
    env = to_pettingzoo(LimitOrderBookMarket(2, **kwargs))
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(i)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(env, num_cycles=100)
    assert [str(w.message) for w in caught if w.filename.endswith("parallel_test.py")] == []


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"flow": None, "sampler": 0}, ValueError, "needs data="),
        ({"latency": 1.0}, ValueError, "latency must be below"),
        ({"latency": -0.1}, ValueError, "latency"),
        ({"data": "file.csv"}, TypeError, "LobsterData"),
        ({"data": []}, ValueError, "at least one"),
        ({"session_length": 100.0}, ValueError, "no replayed session fits"),
    ],
)
def test_bad_replay_arguments(kwargs: dict[str, Any], error: type, match: str) -> None:
    base: dict[str, Any] = {"data": _queue_data(), "warmup": 0.0}
    base.update(kwargs)
    if "flow" in kwargs:
        del base["data"], base["flow"]
    with pytest.raises(error, match=match):
        LimitOrderBookEnv(**base)


def test_flow_and_data_together_are_refused() -> None:
    from sekai.finance.lob import ZeroIntelligenceFlow

    with pytest.raises(ValueError, match="not both"):
        LimitOrderBookEnv(data=_queue_data(), flow=ZeroIntelligenceFlow())


def test_latency_with_simulated_flow_passes_check_env() -> None:
    env = LimitOrderBookEnv(latency=0.3, session_length=30.0)
    assert sekai.check_env(env, n_steps=60, check_determinism=True) == []
    market = LimitOrderBookMarket(2, latency=0.3, session_length=10.0)
    market.reset(seed=1)
    while market.agents:
        market.step({a: market.action_spaces[a].sample() for a in market.acting})
    assert all(abs(t.inventory) <= market.core.max_inventory for t in market.traders.values())


def test_sequential_sampler_moves_one_session_at_a_time() -> None:
    env = LimitOrderBookEnv(**_simulated(sampler="sequential"))
    starts = []
    for _ in range(3):
        env.reset(seed=0)
        starts.append(env.core.t0)
    assert np.allclose(np.diff(starts), 0.05)

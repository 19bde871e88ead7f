"""A finance dashboard asked for its first frame at the end of an episode draws the episode.

Dashboards record what they draw at each frame. One drawn only once, after an episode run
without rendering, used to show a change of "0.00 %" and charts holding a single point; it
now reads the steps before from the env's episode log, and draws the frame a dashboard that
followed every step draws. Where nothing earlier can be read, the frame says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.envs.finance import _log
from sekai.envs.finance.order_book import LimitOrderBookMarket, LimitOrderBookMarketRenderer
from sekai.rendering.dashboard import Dashboard, LineChart, Series, Stat, _delta


def play(env: Any, renderer: Any = None, seed: int = 0, steps: int | None = None) -> Any:
    """An episode of random actions (``steps`` of them, else to its end), drawn at every step
    by ``renderer`` when one is given."""
    env.reset(seed=seed)
    env.action_space.seed(seed)
    if renderer is not None:
        renderer.render(env)
    done, taken = False, 0
    while not done and (steps is None or taken < steps):
        result = env.step(env.action_space.sample())
        done, taken = result.done, taken + 1
        if renderer is not None:
            renderer.render(env)
    return env


def play_market(market: LimitOrderBookMarket, renderer: Any = None) -> LimitOrderBookMarket:
    market.reset(seed=0)
    for agent in market.possible_agents:
        market.action_spaces[agent].seed(1)
    if renderer is not None:
        renderer.render(market)
    while market.agents:
        market.step({a: market.action_spaces[a].sample() for a in market.acting})
        if renderer is not None:
            renderer.render(market)
    return market


def market() -> LimitOrderBookMarket:
    return LimitOrderBookMarket(3, decision_intervals=[1.0, 1.5, 2.0], session_length=40.0)


# Each env with a dashboard: its id and settings (short episodes where the charts allow, so
# that a dashboard that follows every step draws quickly), its first header figure (equity,
# value, wealth, P&L or shortfall) read from the env, and the value that figure starts the
# episode at (None: the figure shows no change).
ENVS: dict[str, tuple[str, dict[str, Any], Callable[[Any], float], float | None]] = {
    "Trading-v0": ("Trading-v0", {}, lambda base: base.equity, 1.0),
    "Portfolio-v0": (
        "Portfolio-v0",
        {"episode_length": 60},
        lambda base: base.portfolio_value,
        1.0,
    ),
    "Market-v0": ("Market-v0", {"episode_length": 60}, lambda base: base.equity, 1.0),
    "MarketDiscrete-v0": (
        "MarketDiscrete-v0",
        {"episode_length": 60},
        lambda base: base.equity,
        1.0,
    ),
    "MarketMaking-v0": ("MarketMaking-v0", {"n_steps": 60}, lambda base: base.wealth, None),
    "OptimalExecution-v0": (
        "OptimalExecution-v0",
        {},
        lambda base: 1e4 * base.shortfall / (base.X0 * base.s0),
        None,
    ),
    "LimitOrderBook-v0": (
        "LimitOrderBook-v0",
        {"session_length": 40.0},
        lambda base: base.trader.wealth(base.core.mid()),
        None,
    ),
}


# Each env's main series: (panel index, colour role of its line).
SERIES: dict[str, list[tuple[int, str]]] = {
    "Trading-v0": [(0, "price"), (1, "accent")],  # price; equity of the strategy
    "Portfolio-v0": [(1, "price")],  # the portfolio, indexed to 100
    "Market-v0": [(0, "accent")],  # equity
    "MarketDiscrete-v0": [(0, "accent")],
    "MarketMaking-v0": [(0, "price"), (2, "accent")],  # mid price; profit and loss
    "OptimalExecution-v0": [(2, "price")],  # mid price
    "LimitOrderBook-v0": [(0, "price"), (2, "accent")],  # mid price; wealth
}


def _series_columns(frame: np.ndarray, renderer: Dashboard, panel: int, color: Any) -> float:
    """The share of the columns of a panel's plot area (below its title, left of its value
    gutter, above its time labels) holding a pixel of ``color``."""
    scale, height = renderer.scale, frame.shape[0]
    box = renderer._boxes[panel]
    top = int(height - box.top + 20 * scale) + 1
    bottom = int(height - box.bottom - 16 * scale) - 1
    area = frame[top:bottom, int(box.left) + 1 : int(box.right - 58 * scale)].astype(np.int64)
    return float(np.all(area == np.array(color, dtype=np.int64), axis=2).any(axis=0).mean())


@pytest.mark.parametrize("name", sorted(ENVS))
def test_one_frame_at_the_end_draws_the_whole_episode(name: str) -> None:
    env_id, kwargs, figure, start = ENVS[name]
    followed = sekai.renderer_for(env_id)
    env = play(sekai.make(env_id, **kwargs), followed)
    expected = followed.render(env)

    once = sekai.renderer_for(env_id)
    env = play(sekai.make(env_id, **kwargs))
    frame = once.render(env)
    assert np.array_equal(frame, expected)

    history = once._history(env)
    assert history is not None and history.began == 0
    assert history.steps == [float(k) for k in range(env.unwrapped.elapsed_steps + 1)]
    # The header's equity figure is the env's final equity, its change counted from the start.
    stat = once.stats[0]
    value = history.values["stat:0"][-1]
    assert value == figure(env.unwrapped)
    if start is not None:
        assert history.first_finite("stat:0") == start
        change = _delta(stat, value, start)
        assert change is not None and change[1] == (value - start) / start != 0
    # The charts are not empty: their series run along the time axis.
    for index, role in SERIES[name]:
        assert _series_columns(frame, once, index, getattr(once.theme, role)) > 0.5, index


def test_the_multi_agent_market_drawn_once_at_the_end() -> None:
    followed = LimitOrderBookMarketRenderer()
    expected = followed.render(play_market(market(), followed))
    once = LimitOrderBookMarketRenderer()
    env = play_market(market())
    frame = once.render(env)
    assert np.array_equal(frame, expected)
    history = once._history(env)
    assert history is not None and history.steps[0] == 0.0 and history.steps[-1] == 40.0
    for index in (0, 1):  # inventory and wealth, the first trader's line
        assert _series_columns(frame, once, index, once.theme.color(0)) > 0.5, index


def test_a_frame_in_the_middle_then_every_step_matches_one_that_followed() -> None:
    followed = sekai.renderer_for("Trading-v0")
    env = play(sekai.make("Trading-v0"), followed, steps=40)
    late = sekai.renderer_for("Trading-v0")
    other = play(sekai.make("Trading-v0"), steps=40)
    late.render(other)
    for _ in range(20):
        action = env.action_space.sample()
        env.step(action)
        other.step(action)
        assert np.array_equal(late.render(other), followed.render(env))


def test_a_new_episode_of_the_same_length_starts_a_new_history() -> None:
    renderer = sekai.renderer_for("MarketMaking-v0")
    env = sekai.make("MarketMaking-v0")
    play(env, seed=1)
    renderer.render(env)
    play(env, seed=2)
    fresh = sekai.renderer_for("MarketMaking-v0")
    assert np.array_equal(renderer.render(env), fresh.render(env))


@pytest.mark.parametrize("name", ["Trading-v0", "MarketMaking-v0", "LimitOrderBook-v0"])
def test_the_log_keeps_the_infos_handed_out(name: str) -> None:
    env_id, kwargs, _, _ = ENVS[name]
    env = sekai.make(env_id, **kwargs)
    infos = [env.reset(seed=5).info]
    env.action_space.seed(5)
    while True:
        result = env.step(env.action_space.sample())
        infos.append(result.info)
        if result.done:
            break
    log = list(env.unwrapped._log)
    assert [step for step, _ in log] == list(range(len(infos)))
    assert all(kept is info for (_, kept), info in zip(log, infos, strict=True))
    episode = env.unwrapped._log.episode
    env.reset(seed=6)
    assert env.unwrapped._log.episode == episode + 1 and len(env.unwrapped._log) == 1


# --- nothing to read: the frame says so --------------------------------------------------------


class Growing(sekai.Env[int, int]):
    """An env keeping no log: ``value`` grows 1 % a step."""

    def __init__(self) -> None:
        self.observation_space = sekai.Discrete(2)
        self.action_space = sekai.Discrete(2)
        self.elapsed_steps = 0
        self.value = 1.0

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        self.elapsed_steps, self.value = 0, 1.0
        return sekai.ResetResult(0, {})

    def step(self, action: Any) -> Any:
        self.elapsed_steps += 1
        self.value *= 1.01
        return sekai.StepResult(0, 0.0, False, False, {})


def _dashboard(delta: Any) -> Dashboard:
    return Dashboard(
        LineChart(Series("value"), title="Value"),
        stats=[Stat("Value", "value", "{:.4f}", delta=delta)],
        title="Growing",
    )


def _muted_rows(frame: np.ndarray, renderer: Dashboard) -> np.ndarray:
    """Rows of the chart's upper half holding a pixel of the muted text colour."""
    box, height = renderer._boxes[0], frame.shape[0]
    top, middle = int(height - box.top), int(height - (box.top + box.bottom) / 2)
    area = frame[top:middle, int(box.left) : int(box.right) - 80].astype(np.int64)
    muted = np.array(renderer.theme.text_muted, dtype=np.int64)
    return np.flatnonzero(np.all(area == muted, axis=2).any(axis=1))


def test_without_a_log_the_frame_says_it_has_no_history_and_shows_no_change() -> None:
    env = Growing()
    env.reset()
    for _ in range(30):
        env.step(0)
    late = _dashboard("relative")
    frame = late.render(env)
    history = late._history(env)
    assert history is not None and history.began == 30
    # The notice is written in the chart; a history from step 0 has none.
    assert _muted_rows(frame, late).size > 0
    env.reset()
    fresh = _dashboard("relative")
    assert _muted_rows(fresh.render(env), fresh).size == 0
    # No "+0.00 %": the header is the one of a stat without a change.
    env.reset()
    for _ in range(30):
        env.step(0)
    plain = _dashboard(None)
    header = int(64 * plain.scale)
    assert np.array_equal(_dashboard("relative").render(env)[:header], plain.render(env)[:header])


def test_a_log_that_dropped_the_first_steps_says_where_it_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_log, "LIMIT", 50)
    env = play(sekai.make("MarketMaking-v0"))  # 200 steps: the log keeps steps 151..200
    assert env.unwrapped.elapsed_steps == 200 and len(env.unwrapped._log) == 50
    renderer = sekai.renderer_for("MarketMaking-v0")
    frame = renderer.render(env)
    history = renderer._history(env)
    assert history is not None and history.began == 151
    assert history.steps == [float(k) for k in range(151, 201)]
    assert _muted_rows(frame, renderer).size > 0
    assert math.isfinite(history.values["stat:0"][-1])


def test_stand_ins_read_what_the_env_showed() -> None:
    # The LOB's best prices come back from the info's mid and spread, as ints.
    env = play(sekai.make("LimitOrderBook-v0", session_length=30.0))
    renderer = sekai.renderer_for("LimitOrderBook-v0")
    followed = sekai.renderer_for("LimitOrderBook-v0")
    other = play(sekai.make("LimitOrderBook-v0", session_length=30.0), followed)
    renderer.render(env)
    followed.render(other)
    mine, theirs = renderer._history(env), followed._history(other)
    assert mine is not None and theirs is not None
    for key, values in theirs.values.items():
        if key.endswith("book"):
            continue
        assert mine.values[key] == values, key

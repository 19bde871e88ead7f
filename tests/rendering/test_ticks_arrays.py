"""``nice_ticks`` returns a float64 array, and every chart drawing its ticks stays the same."""

from __future__ import annotations

import math
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import sekai
import sekai.envs.finance.rendering as env_charts
from sekai.rendering import dashboard
from sekai.rendering.canvas import Canvas
from sekai.rendering.charts import Box, Plot, nice_ticks, tick_labels
from sekai.rendering.theme import LIGHT


def callers() -> list[types.ModuleType]:
    """Every loaded sekai module holding ``nice_ticks`` by name: those that draw ticks."""
    return [
        module
        for name, module in sorted(sys.modules.items())
        if name.startswith("sekai.") and getattr(module, "nice_ticks", None) is nice_ticks
    ]


def test_nice_ticks_returns_a_float64_array():
    ticks = nice_ticks(0.0, 1.0)
    assert isinstance(ticks, np.ndarray)
    assert ticks.dtype == np.float64 and ticks.ndim == 1
    assert ticks.size == 5
    np.testing.assert_array_equal(ticks, [0.0, 0.25, 0.5, 0.75, 1.0])


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        (3, 3, [3.0]),
        (5, 1, [5.0]),
        (math.nan, 1.0, []),
        (0.0, math.inf, []),
        (-1e308, 1e308, []),
        (0.2, 0.8, []),
    ],
)
def test_degenerate_and_empty_results_are_arrays_too(low, high, expected):
    ticks = nice_ticks(low, high, integer=(low, high) == (0.2, 0.8))
    assert isinstance(ticks, np.ndarray) and ticks.dtype == np.float64
    assert ticks.shape == (len(expected),)
    assert ticks.tolist() == expected


def test_each_call_returns_a_new_array():
    first = nice_ticks(0.0, 10.0)
    first[:] = -1.0
    assert nice_ticks(0.0, 10.0).tolist() == [0.0, 2.5, 5.0, 7.5, 10.0]


def test_tick_labels_read_the_array_like_the_list():
    for low, high in [(0.9, 1.1), (0.0, 1e6), (-3.3, 7.1), (0.0, 0.003)]:
        ticks = nice_ticks(low, high)
        assert tick_labels(ticks) == tick_labels(ticks.tolist())
        assert tick_labels(ticks, percent=True) == tick_labels(ticks.tolist(), percent=True)


def _plot() -> tuple[Canvas, Plot]:
    canvas = Canvas(220, 120, LIGHT.background, antialias=True)
    return canvas, Plot(canvas, Box(20, 20, 180, 100), (0.0, 10.0), (-1.0, 1.0), LIGHT)


def test_grid_and_x_ticks_draw_an_array_like_the_list():
    frames = []
    for as_list in (False, True):
        canvas, plot = _plot()
        y_ticks, x_ticks = nice_ticks(-1.0, 1.0), nice_ticks(0.0, 10.0, 3, integer=True)
        if as_list:
            y_ticks, x_ticks = y_ticks.tolist(), x_ticks.tolist()
        plot.grid(y_ticks, tick_labels(y_ticks), avoid=[0.3])
        plot.x_ticks(x_ticks, tick_labels(x_ticks))
        frames.append(canvas.to_array())
    np.testing.assert_array_equal(frames[0], frames[1])


def _listing(real: Callable[..., NDArray[np.float64]]) -> Callable[..., list[float]]:
    def as_list(*args: Any, **kwargs: Any) -> list[float]:
        return real(*args, **kwargs).tolist()

    return as_list


def _episode_frames(env_id: str, renderer: Any, steps: int = 12) -> NDArray[np.uint8]:
    env = sekai.make(env_id)
    env.reset(seed=5)
    env.action_space.seed(5)
    frames = [renderer.render(env)]
    for _ in range(steps):
        result = env.step(env.action_space.sample())
        frames.append(renderer.render(env))
        if result.terminated or result.truncated:
            break
    env.close()
    return np.stack(frames)


RENDERERS = [
    ("Trading-v0", env_charts.TradingRenderer),
    ("Portfolio-v0", env_charts.PortfolioRenderer),
    ("Market-v0", env_charts.MarketRenderer),
    ("MarketMaking-v0", env_charts.MarketMakingRenderer),
    ("OptimalExecution-v0", env_charts.OptimalExecutionRenderer),
    ("LimitOrderBook-v0", env_charts.LimitOrderBookRenderer),
]


def test_the_modules_that_draw_ticks_hold_nice_ticks_by_name():
    names = {module.__name__ for module in callers()}
    drawing = {"sekai.rendering.layout", "sekai.rendering.panels", "sekai.finance.charts.price"}
    assert drawing <= names


@pytest.mark.parametrize(("env_id", "renderer_type"), RENDERERS, ids=[r[0] for r in RENDERERS])
def test_dashboards_are_pixel_identical_to_list_ticks(env_id, renderer_type, monkeypatch):
    arrays = _episode_frames(env_id, renderer_type(width=480, height=300))
    for module in callers():
        monkeypatch.setattr(module, "nice_ticks", _listing(nice_ticks))
    lists = _episode_frames(env_id, renderer_type(width=480, height=300))
    np.testing.assert_array_equal(arrays, lists)


def test_line_chart_with_integer_data_and_percent_is_pixel_identical(monkeypatch):
    def chart() -> dashboard.Dashboard:
        return dashboard.Dashboard(
            dashboard.LineChart(dashboard.Series("elapsed_steps"), title="Steps"),
            dashboard.LineChart(
                dashboard.Series(lambda env: float(env.unwrapped.state[0]), signed=True),
                percent=True,
                baseline=0.0,
            ),
            width=360,
            height=240,
        )

    arrays = _episode_frames("CartPole-v1", chart(), steps=8)
    for module in callers():
        monkeypatch.setattr(module, "nice_ticks", _listing(nice_ticks))
    lists = _episode_frames("CartPole-v1", chart(), steps=8)
    np.testing.assert_array_equal(arrays, lists)

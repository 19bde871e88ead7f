"""Tests for sekai.rendering.dashboard: sources, views, history, layout and the Dashboard."""

from __future__ import annotations

import dataclasses
import gc
import math
import weakref
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import sekai
import sekai.rendering
from sekai.core.result import ResetResult, StepResult
from sekai.registry.spec import EnvSpec
from sekai.rendering import charts, dashboard
from sekai.rendering.charts import Box
from sekai.rendering.dashboard import (
    BarChart,
    Column,
    Dashboard,
    LineChart,
    Panel,
    Row,
    Series,
    StackedArea,
    Stat,
    View,
    _History,
    read,
    resolve_color,
)
from sekai.rendering.theme import DARK, LIGHT
from sekai.spaces import Discrete
from sekai.wrappers import TimeLimit

MINUS = "\u2212"


class Toy(sekai.Env[int, int]):
    """A toy env whose clock and values the tests set directly."""

    observation_space = Discrete(2)
    action_space = Discrete(2)

    def __init__(self, episode_length: Any = None) -> None:
        self.elapsed_steps = 0
        self.value = 1.0
        self.count = 0
        self.vector = np.array([0.5, -0.25, 0.25])
        self.flag = False
        self.label = "Toy title"
        if episode_length is not None:
            self.episode_length = episode_length

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[int]:
        self.elapsed_steps = 0
        return ResetResult(0, {})

    def step(self, action: int) -> StepResult[int]:
        self.elapsed_steps += 1
        self.value += 0.1
        self.count += 1
        return StepResult(0, 0.0, False, False, {})


class Clockless(sekai.Env[int, int]):
    """No ``elapsed_steps``: every render is the next step."""

    observation_space = Discrete(2)
    action_space = Discrete(2)

    def __init__(self) -> None:
        self.value = 0.0
        self.label = "clockless"

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[int]:
        return ResetResult(0, {})

    def step(self, action: int) -> StepResult[int]:
        return StepResult(0, 0.0, False, False, {})


class Slotted:
    """An env-like object that cannot be weakly referenced."""

    __slots__ = ("elapsed_steps", "label", "value")

    def __init__(self) -> None:
        self.elapsed_steps = 0
        self.value = 1.0
        self.label = "slotted"


class Recorder(Panel):
    """A panel that records what it is shown."""

    def __init__(self, keys: dict[str, Any] | None = None, start: float | None = None, **kw: Any):
        super().__init__(**kw)
        self.keys = keys or {"value": "value"}
        self.start = start
        self.views: list[View] = []
        self.boxes: list[Box] = []

    def sources(self) -> dict[str, Any]:
        return self.keys

    def context(self) -> dict[str, Any]:
        return {"label": "label"}

    def x_start(self, view: View) -> float | None:
        return self.start

    def draw(self, canvas: Any, box: Box, view: View) -> None:
        self.views.append(view)
        self.boxes.append(box)


def run(dash: Dashboard, env: Any, clocks: list[float]) -> list[NDArray[np.uint8]]:
    frames = []
    for clock in clocks:
        env.elapsed_steps = clock
        frames.append(dash.render(env))
    return frames


def history(dash: Dashboard, env: Any) -> _History:
    found = dash._history(env)
    assert found is not None
    return found


def colour_mask(frame: NDArray[np.uint8], color: tuple[int, int, int]) -> NDArray[np.bool_]:
    mask: NDArray[np.bool_] = (frame == np.array(color, dtype=np.uint8)).all(axis=2)
    return mask


# -- module surface ---------------------------------------------------------------------------


def test_package_exports_in_spec_order() -> None:
    assert sekai.rendering.__all__ == [
        "Renderer", "BaseRenderer", "RenderFrame", "RGBArray", "ANSIString", "Canvas", "rotate",
        "text_width", "RecordFrames", "save_gif", "save_video", "Dashboard", "Panel", "View",
        "Row", "Column", "Series", "Stat", "LineChart", "BarChart", "StackedArea", "Theme",
        "LIGHT", "DARK", "get_theme", "charts",
    ]  # fmt: skip
    for name in sekai.rendering.__all__:
        assert hasattr(sekai.rendering, name)
    for name in dashboard.__all__:
        assert hasattr(dashboard, name)
    assert sekai.rendering.Dashboard is Dashboard


# -- sources ----------------------------------------------------------------------------------


class Book:
    best_bid = 99.5

    def mid(self) -> float:
        return 100.0


def test_read_paths_callables_and_wrapper_fallback() -> None:
    env = Toy()
    env.book = Book()  # type: ignore[attr-defined]
    wrapped = TimeLimit(env, max_episode_steps=10)
    assert read(wrapped, "value") == 1.0  # from the base env through the wrapper
    assert read(wrapped, "book.best_bid") == 99.5
    method = read(wrapped, "book.mid")
    assert callable(method) and method() == 100.0  # the bound method, not called
    assert read(wrapped, lambda e: e.unwrapped.value * 2) == 2.0
    del env.elapsed_steps
    wrapped.reset()
    wrapped.step(0)
    assert read(wrapped, "elapsed_steps") == 1  # a single missing name: env.get_attr
    assert read(wrapped, "max_episode_steps") == 10
    with pytest.raises(AttributeError):
        read(wrapped, "missing")
    with pytest.raises(AttributeError):
        read(wrapped, "missing.path")
    with pytest.raises(AttributeError):
        read(wrapped, "book.missing")
    with pytest.raises(TypeError):
        read(env, 3)  # type: ignore[arg-type]


def test_read_works_on_plain_objects() -> None:
    assert read(Slotted(), "value") == 1.0


# -- colours ----------------------------------------------------------------------------------


def test_resolve_color() -> None:
    for role in ("text", "price", "accent", "neutral", "up", "down", "highlight", "text_muted"):
        assert resolve_color(DARK, role, 0) == getattr(DARK, role)
    assert resolve_color(LIGHT, "#ff0000", 3) == (255, 0, 0)
    assert resolve_color(LIGHT, "#0f0", 3) == (0, 255, 0)
    assert resolve_color(LIGHT, (1, 2, 3), 3) == (1, 2, 3)
    assert resolve_color(LIGHT, 2, 0) == LIGHT.series[2]
    assert resolve_color(LIGHT, np.int64(1), 0) == LIGHT.series[1]
    assert resolve_color(LIGHT, None, 4) == LIGHT.series[4]
    assert resolve_color(LIGHT, None, 8) == LIGHT.neutral  # outside the palette
    assert resolve_color(LIGHT, None) == LIGHT.series[0]


@pytest.mark.parametrize("spec", ["background", "grid", "purple", "#12345", ""])
def test_resolve_color_unknown_roles(spec: str) -> None:
    with pytest.raises(ValueError):
        resolve_color(LIGHT, spec, 0)


@pytest.mark.parametrize("spec", [True, False, np.bool_(True), 1.5, object()])
def test_resolve_color_bad_types(spec: Any) -> None:
    with pytest.raises(TypeError):
        resolve_color(LIGHT, spec, 0)


# -- series and stats -------------------------------------------------------------------------


def test_series_is_a_frozen_dataclass() -> None:
    series = Series("value")
    assert (series.label, series.color, series.fill, series.signed, series.step) == (
        None, None, False, False, False,
    )  # fmt: skip
    assert (series.dashed, series.width, series.rebase) == (False, 2.0, None)
    assert [f.name for f in dataclasses.fields(Series)] == [
        "source", "label", "color", "fill", "signed", "step", "dashed", "width", "rebase",
    ]  # fmt: skip
    with pytest.raises(dataclasses.FrozenInstanceError):
        series.label = "x"  # type: ignore[misc]
    with pytest.raises(ValueError):
        Series("value", width=0)
    with pytest.raises(ValueError):
        Series("value", rebase=math.nan)


def test_stat_text() -> None:
    stat = Stat("Equity", "value")
    assert (stat.format, stat.delta, stat.higher_is_better) == ("{:,.2f}", None, True)
    assert stat.text(1234.5) == "1,234.50"
    assert stat.text(-1234.5) == MINUS + "1,234.50"
    assert stat.text(np.float64(-0.5)) == MINUS + "0.50"
    for missing in (None, math.nan, math.inf, -math.inf, np.float32("nan")):
        assert stat.text(missing) == "\u2014"
    assert Stat("P", "v", format=lambda v: f"Long {v:.0%}").text(1.0) == "Long 100%"
    assert Stat("P", "v", format=lambda v: -v).text(2) == MINUS + "2"  # str() of the result
    assert Stat("P", "v", format=lambda v: f"{v}-{v}").text(1) == "1-1"  # no leading hyphen: kept
    assert Stat("P", "v", format="{:d}-x").text(-3) == MINUS + "3" + MINUS + "x"
    assert Stat("N", "v", format="{:d} assets").text(7) == "7 assets"
    with pytest.raises(ValueError, match="delta"):
        Stat("x", "v", delta="percent")  # type: ignore[arg-type]


# -- panels and layout ------------------------------------------------------------------------


def test_panel_defaults_and_sizes() -> None:
    panel = Panel("T", width=2, height=0.5)
    assert (panel.title, panel.width, panel.height, Panel.timeseries) == ("T", 2.0, 0.5, True)
    assert panel.sources() == {} and panel.context() == {}
    with pytest.raises(NotImplementedError):
        panel.draw(None, Box(0, 0, 1, 1), None)  # type: ignore[arg-type]
    for bad in (0, -1, math.nan, math.inf):
        with pytest.raises(ValueError):
            Panel(width=bad)
        with pytest.raises(ValueError):
            Panel(height=bad)


def test_row_and_column() -> None:
    a, b, c = Panel(width=2, height=3), Panel(), Panel()
    row = Row(a, [b, c], height=2)
    assert isinstance(row.children[1], Row) and row.children[1].children == (b, c)
    assert row.widths == (2.0, 1.0) and row.height == 2.0
    column = Column(a, (b, c), Column(), heights=None, width=3)
    assert column.heights == (3.0, 1.0, 1.0) and column.width == 3.0
    assert Column(Row(height=4), b).heights == (4.0, 1.0)
    assert Row(Column(width=5), b).widths == (5.0, 1.0)
    assert Row(a, b, widths=(1, 3)).widths == (1.0, 3.0)
    with pytest.raises(TypeError):
        Row(a, "panel")
    with pytest.raises(TypeError):
        Column(a, 3)
    with pytest.raises(ValueError):
        Row(a, b, widths=(1,))
    with pytest.raises(ValueError):
        Column(a, heights=(0,))
    with pytest.raises(ValueError):
        Row(a, height=-1)


def test_layout_boxes_follow_the_weights() -> None:
    top, left, right = Recorder(height=2), Recorder(width=3), Recorder()
    dash = Dashboard(top, [left, right])
    assert dash.panels == [top, left, right]
    assert isinstance(dash.root, Column) and dash.root.heights == (2.0, 1.0)
    dash.render(Toy())
    (t,), (lb,), (rb,) = top.boxes, left.boxes, right.boxes
    assert t.height == pytest.approx(2 * lb.height, abs=1.5)
    assert lb.width == pytest.approx(3 * rb.width, abs=1.5)
    assert lb.top <= t.bottom and lb.right <= rb.left
    assert t.left == lb.left and t.right == rb.right
    for box in (t, lb, rb):
        assert box == box.snapped()
        assert box.left >= 0 and box.right <= 720 and box.bottom >= 0 and box.top <= 450
    # The row below is split, so it shares no time axis with the top panel.
    assert top.views[0].show_x and left.views[0].show_x and right.views[0].show_x


def test_stacked_time_series_of_one_width_share_the_time_axis() -> None:
    top, middle, lower, bottom = Recorder(), Recorder(), Recorder(), Recorder()
    dash = Dashboard(top, [Column(BarChart("vector"), middle, lower), Recorder()], bottom)
    dash.render(Toy())
    assert not top.views[0].show_x and not middle.views[0].show_x
    assert lower.views[0].show_x and bottom.views[0].show_x


def test_dashboard_heights_and_set_layout() -> None:
    a, b = Recorder(), Recorder()
    dash = Dashboard(a, b, heights=(3, 1))
    assert dash.root.heights == (3.0, 1.0)
    env = Toy()
    dash.render(env)
    assert dash._history(env) is not None
    c = Recorder()
    dash.set_layout(c, [a, b], heights=(1, 2))
    assert dash.panels == [c, a, b] and dash.root.heights == (1.0, 2.0)
    assert dash._history(env) is None  # histories are forgotten
    with pytest.raises(ValueError):
        dash.set_layout(a, heights=(1, 2))


# -- the view ---------------------------------------------------------------------------------


def make_view(samples: dict[str, list[Any]], steps: list[float] | None = None) -> View:
    record = _History()
    n = len(next(iter(samples.values())))
    for i in range(n):
        record.record(
            i if steps is None else steps[i], {k: v[i] for k, v in samples.items()}, False
        )
    record.context["0:label"] = "hello"
    return View(Toy(), record, "0:", LIGHT, 0.5, (0.0, 10.0), True, 29.0)


def test_view_values_pad_with_nan() -> None:
    view = make_view(
        {
            "0:a": [1, None, 2.5, np.float32(3)],
            "0:v": [np.array([1.0, 2.0]), None, [3.0], np.array([4.0, 5.0, 6.0])],
            "0:mix": [1.0, np.array([2.0, 3.0]), None, 4],
            "0:same": [np.array([1, 2]), np.array([3, 4]), np.array([5, 6]), np.array([7, 8])],
        }
    )
    np.testing.assert_array_equal(view.values("a"), [1.0, np.nan, 2.5, 3.0])
    assert view.values("a").dtype == np.float64
    nan = np.nan
    np.testing.assert_array_equal(
        view.values("v"), [[1, 2, nan], [nan, nan, nan], [3, nan, nan], [4, 5, 6]]
    )
    np.testing.assert_array_equal(view.values("mix"), [[1, nan], [2, 3], [nan, nan], [4, nan]])
    assert view.values("same").shape == (4, 2)


def test_view_accessors() -> None:
    view = make_view({"0:a": [None, 2.0, 3.0]}, steps=[5, 6, 7])
    assert view.steps.dtype == np.float64 and view.steps.tolist() == [5.0, 6.0, 7.0]
    assert view.step == 7.0
    assert view.raw("a")[1:] == [2.0, 3.0] and view.raw("a")[0] is None
    assert view.latest("a") == 3.0
    assert view.first("a") == 2.0
    assert view.context("label") == "hello"
    assert view.color("up") == LIGHT.up and view.color(None, 2) == LIGHT.series[2]
    assert view.size(10) == 5.0
    assert (view.scale, view.x_domain, view.show_x, view.gutter) == (0.5, (0.0, 10.0), True, 29.0)
    assert view.theme is LIGHT and isinstance(view.env, Toy)
    with pytest.raises(KeyError, match="sources"):
        view.raw("b")
    with pytest.raises(KeyError, match="context"):
        view.context("other")
    empty = View(Toy(), _History(), "0:", LIGHT, 1.0, (0.0, 1.0), False, 0.0)
    assert math.isnan(empty.step) and empty.steps.shape == (0,)


# -- history ----------------------------------------------------------------------------------


def test_history_record_replace_and_backfill() -> None:
    h = _History()
    assert (h.steps, h.values, h.context) == ([], {}, {})
    h.record(0, {"a": 1}, replace=True)  # nothing to replace yet: appends
    h.record(1, {"a": 2}, replace=False)
    assert h.steps == [0, 1] and h.values == {"a": [1, 2]}
    h.record(1, {"a": 3}, replace=True)
    assert h.steps == [0, 1] and h.values["a"] == [1, 3]
    h.record(2, {"a": 4, "b": "x"}, replace=False)  # a new key is back-filled
    assert h.steps == [0, 1, 2]
    assert h.values["a"] == [1, 3, 4]
    assert [math.isnan(v) for v in h.values["b"][:2]] == [True, True] and h.values["b"][2] == "x"
    h.record(3, {"b": "y"}, replace=False)  # a missing key gets NaN
    assert math.isnan(h.values["a"][3]) and h.values["b"][3] == "y"
    h.record(9, {"c": 5}, replace=True)  # replacing: the new key is back-filled too
    assert h.steps == [0, 1, 2, 9]
    assert [math.isnan(v) for v in h.values["c"][:3]] == [True] * 3 and h.values["c"][3] == 5
    assert math.isnan(h.values["b"][3])
    assert all(len(column) == len(h.steps) for column in h.values.values())


def test_history_trim() -> None:
    h = _History()
    for i in range(6):
        h.record(i, {"a": math.nan if i < 2 else i * 10}, replace=False)
    h.trim(10)
    assert h.steps == [0, 1, 2, 3, 4, 5]
    h.trim(3)
    assert h.steps == [3, 4, 5] and h.values["a"] == [30, 40, 50]
    assert h.first_finite("a") == 20  # remembered from the trimmed samples
    h.trim(0)
    assert h.steps == [] and h.values["a"] == []
    assert h.first_finite("a") == 20 and math.isnan(h.first_finite("missing"))
    with pytest.raises(ValueError):
        h.trim(-1)


# -- dashboard validation ---------------------------------------------------------------------


def test_dashboard_defaults() -> None:
    dash = Dashboard()
    assert (dash.width, dash.height, dash.scale) == (720, 450, 1.0)
    assert dash.theme is LIGHT and dash.step == "elapsed_steps" and dash.horizon == "auto"
    assert dash.window is None and dash.stats == () and dash.panels == []
    assert isinstance(dash._histories, weakref.WeakKeyDictionary)
    assert isinstance(dash, sekai.rendering.BaseRenderer)
    assert isinstance(dash, sekai.rendering.Renderer)
    assert Dashboard(width=1440, height=450).scale == 1.0
    assert Dashboard(width=360, height=450).scale == 0.5
    assert Dashboard(width=1440, height=900, theme="dark").scale == 2.0
    assert Dashboard(theme="dark").theme is DARK


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"width": 159}, ValueError),
        ({"height": 119}, ValueError),
        ({"window": 0}, ValueError),
        ({"window": -3}, ValueError),
        ({"width": 720.5}, TypeError),
        ({"window": math.inf}, TypeError),
        ({"height": 119.0}, ValueError),
        ({"window": True}, TypeError),
        ({"window": 2.5}, TypeError),
        ({"theme": "blue"}, ValueError),
        ({"stats": ["Equity"]}, TypeError),
        ({"step": 3}, TypeError),
        ({"horizon": -5}, ValueError),
        ({"horizon": math.nan}, ValueError),
        ({"horizon": True}, TypeError),
        ({"title": 3}, TypeError),
    ],
)
def test_dashboard_validation(kwargs: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        Dashboard(**kwargs)


def test_dashboard_accepts_the_minimum_size() -> None:
    frame = Dashboard(LineChart("value"), width=160, height=120, window=1).render(Toy())
    assert frame.shape == (120, 160, 3)


# -- the episode clock ------------------------------------------------------------------------


def test_clock_rules() -> None:
    dash = Dashboard(Recorder())
    env = Toy()
    run(dash, env, [0, 1, 2])
    assert history(dash, env).steps == [0, 1, 2]
    env.value = 7.0
    run(dash, env, [2])  # equal clock: replaces the last sample
    h = history(dash, env)
    assert h.steps == [0, 1, 2] and h.values["0:value"][-1] == 7.0
    run(dash, env, [3, 5])  # gaps are fine
    assert history(dash, env).steps == [0, 1, 2, 3, 5]
    run(dash, env, [4])  # lower than the last: a new history
    assert history(dash, env).steps == [4]
    run(dash, env, [6, 0])  # 0 always starts a new history
    assert history(dash, env).steps == [0]
    run(dash, env, [0])
    assert history(dash, env) is not h and history(dash, env).steps == [0]


def test_clock_through_a_wrapper_and_a_custom_source() -> None:
    base = Clockless()
    wrapped = TimeLimit(base, max_episode_steps=5)
    dash = Dashboard(Recorder())
    wrapped.reset()
    dash.render(wrapped)
    for _ in range(3):
        wrapped.step(0)
        dash.render(wrapped)
    assert history(dash, wrapped).steps == [0, 1, 2, 3]
    wrapped.reset()
    dash.render(wrapped)
    assert history(dash, base).steps == [0]  # keyed by the unwrapped env
    custom = Dashboard(Recorder(), step=lambda e: e.unwrapped.value)
    base.value = 2.5
    custom.render(base)
    base.value = 3.5
    custom.render(base)
    assert history(custom, base).steps == [2.5, 3.5]


def test_missing_clock_counts_every_render_as_the_next_step() -> None:
    dash = Dashboard(Recorder())
    env = Clockless()
    for _ in range(4):
        dash.render(env)
    assert history(dash, env).steps == [0, 1, 2, 3]
    dash.reset(env)
    dash.render(env)
    assert history(dash, env).steps == [0]


def test_context_is_read_once_per_episode() -> None:
    panel = Recorder()
    dash = Dashboard(panel)
    env = Toy()
    run(dash, env, [0])
    env.label = "changed"
    run(dash, env, [1])
    assert panel.views[-1].context("label") == "Toy title"
    run(dash, env, [0])
    assert panel.views[-1].context("label") == "changed"


def test_samples_are_copied() -> None:
    panel = Recorder({"v": "vector"})
    dash = Dashboard(panel)
    env = Toy()
    run(dash, env, [0])
    env.vector[0] = 99.0  # the env changes its array in place
    run(dash, env, [1])
    np.testing.assert_array_equal(panel.views[-1].values("v")[:, 0], [0.5, 99.0])


def test_keys_are_prefixed_with_the_panel_index() -> None:
    a, b = Recorder({"x": "value"}), Recorder({"x": "count"})
    dash = Dashboard(a, b, stats=[Stat("Count", "count")])
    env = Toy()
    env.count = 4
    dash.render(env)
    assert set(history(dash, env).values) == {"0:x", "1:x", "stat:0"}
    assert a.views[0].latest("x") == 1.0 and b.views[0].latest("x") == 4


# -- horizon and time axis --------------------------------------------------------------------


def test_horizon_auto() -> None:
    dash = Dashboard()
    assert dash._horizon(Toy(episode_length=30)) == 30
    env = Toy()
    env.n_steps = 12  # type: ignore[attr-defined]
    assert dash._horizon(env) == 12
    assert dash._horizon(TimeLimit(env, max_episode_steps=7)) == 12  # the base env first
    plain = Toy()
    assert dash._horizon(plain) is None
    plain.spec = EnvSpec(id="Toy-v0", max_episode_steps=40)
    assert dash._horizon(plain) == 40
    assert dash._horizon(TimeLimit(plain, max_episode_steps=40)) == 40
    for ignored in (True, 0, -5, 12.5, "10"):
        assert dash._horizon(Toy(episode_length=ignored)) is None


def test_horizon_number_source_or_none() -> None:
    env = Toy(episode_length=30)
    assert Dashboard(horizon=None)._horizon(env) is None
    assert Dashboard(horizon=50)._horizon(env) == 50
    assert Dashboard(horizon=2.5)._horizon(env) == 2.5
    assert Dashboard(horizon="count")._horizon(env) is None  # count is 0: not positive
    env.count = 9
    assert Dashboard(horizon="count")._horizon(env) == 9
    assert Dashboard(horizon=lambda e: e.count * 2)._horizon(env) == 18


def test_time_axis_domain() -> None:
    panel = Recorder()
    dash = Dashboard(panel)
    env = Toy(episode_length=100)
    run(dash, env, [0, 1, 2])
    assert panel.views[-1].x_domain == (0, 100)
    run(dash, env, [150])
    assert panel.views[-1].x_domain == (0, 150)  # past the horizon: the last step
    grows = Recorder()
    dash = Dashboard(grows, horizon=None)
    run(dash, env, [0, 1, 2, 3])
    assert [v.x_domain for v in grows.views] == [(0, 0), (0, 1), (0, 2), (0, 3)]


def test_x_start_extends_the_axis_for_every_time_series() -> None:
    early, other = Recorder(start=-20), Recorder(start=5)
    dash = Dashboard(early, other, BarChart("vector"))
    run(dash, Toy(episode_length=50), [0, 1])
    assert early.views[-1].x_domain == other.views[-1].x_domain == (-20, 50)


def test_window_keeps_window_plus_one_samples() -> None:
    panel = Recorder()
    dash = Dashboard(panel, window=5)
    env = Toy(episode_length=100)
    run(dash, env, list(range(12)))
    h = history(dash, env)
    assert h.steps == [6, 7, 8, 9, 10, 11] and len(h.values["0:value"]) == 6
    domains = [v.x_domain for v in panel.views]
    assert domains[2] == (0, 5)  # still filling the window
    assert domains[-1] == (6, 11)  # the last five steps
    assert panel.views[-1].steps.tolist() == [6, 7, 8, 9, 10, 11]
    small = Recorder()
    dash = Dashboard(small, window=50)
    run(dash, Toy(episode_length=10), [0, 1, 2])
    assert small.views[-1].x_domain == (0, 10)  # the horizon comes first


# -- histories per env ------------------------------------------------------------------------


def test_one_renderer_follows_two_envs() -> None:
    panel = Recorder()
    dash = Dashboard(panel)
    a, b = Toy(), Toy()
    b.value = 5.0
    run(dash, a, [0, 1])
    run(dash, b, [0])
    run(dash, a, [2])
    assert history(dash, a).steps == [0, 1, 2] and history(dash, b).steps == [0]
    assert history(dash, b).values["0:value"] == [5.0]
    dash.reset(a)
    assert dash._history(a) is None and dash._history(b) is not None
    dash.reset()
    assert dash._history(b) is None


def test_histories_are_weakly_keyed_by_the_unwrapped_env() -> None:
    dash = Dashboard(LineChart("value"))
    env = Toy()
    wrapped = TimeLimit(env, max_episode_steps=5)
    dash.render(wrapped)
    assert env in dash._histories and wrapped not in dash._histories
    assert len(dash._histories) == 1
    del env, wrapped
    gc.collect()
    assert len(dash._histories) == 0


def test_envs_without_weak_references_are_keyed_by_id() -> None:
    dash = Dashboard(Recorder())
    env = Slotted()
    run(dash, env, [0, 1])
    assert id(env) in dash._by_id and len(dash._histories) == 0
    assert history(dash, env).steps == [0, 1]
    dash.reset(env)
    assert dash._history(env) is None
    run(dash, env, [0])
    dash.reset()
    assert dash._by_id == {}


# -- frames -----------------------------------------------------------------------------------


def full_dashboard(theme: str = "light", **kwargs: Any) -> Dashboard:
    return Dashboard(
        LineChart(Series("value", "Value", fill=True), Series("count", "Count"), title="Lines"),
        [BarChart("vector", title="Bars"), StackedArea("vector", legend=True, title="Stack")],
        LineChart(Series("count", signed=True, step=True), shade="flag", shade_label="Flag"),
        title="Toy",
        subtitle=lambda env: f"step {env.elapsed_steps}",
        stats=[Stat("Value", "value", delta="relative"), Stat("N", "count", "{:d}", "absolute")],
        theme=theme,
        **kwargs,
    )


def episode(dash: Dashboard, steps: int = 12, env: Toy | None = None) -> NDArray[np.uint8]:
    env = Toy(episode_length=20) if env is None else env
    env.reset()
    frame = dash.render(env)
    for t in range(steps):
        env.step(0)
        env.flag = t % 4 < 2
        env.vector = np.array([0.5, -0.25, 0.25 + 0.01 * t])
        frame = dash.render(env)
    return frame


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_frames_have_the_shape_and_background(theme: str) -> None:
    frame = episode(full_dashboard(theme))
    assert frame.shape == (450, 720, 3) and frame.dtype == np.uint8
    background = (LIGHT if theme == "light" else DARK).background
    for corner in (frame[0, 0], frame[-1, -1], frame[0, -1], frame[-1, 0]):
        assert tuple(corner) == background
    small = episode(full_dashboard(theme, width=300, height=200))
    assert small.shape == (200, 300, 3)


def test_frames_are_deterministic_and_fresh() -> None:
    one = episode(full_dashboard())
    two = episode(full_dashboard())
    assert np.array_equal(one, two)
    dash = full_dashboard()
    env = Toy(episode_length=20)
    episode(dash, env=env)
    first = dash.render(env)  # same clock: the last sample is replaced by the same values
    first[...] = 0
    assert np.array_equal(dash.render(env), two)


def test_header_title_and_subtitle_rules() -> None:
    env = Toy()
    assert Dashboard(title="My env")._title(env) == "My env"
    assert Dashboard(title="label")._title(env) == "label"  # a plain string is literal
    assert Dashboard(title=lambda e: e.unwrapped.label)._title(env) == "Toy title"
    assert Dashboard()._title(env) == "Toy"  # the class name
    env.spec = EnvSpec(id="Toy-v3")
    assert Dashboard()._title(TimeLimit(env, max_episode_steps=3)) == "Toy-v3"
    assert Dashboard()._subtitle(env) == ""
    assert Dashboard(subtitle="label")._subtitle(env) == "label"
    assert Dashboard(subtitle=lambda e: e.label.upper())._subtitle(env) == "TOY TITLE"
    assert Dashboard(subtitle=lambda e: None)._subtitle(env) == ""
    a = Dashboard(title="A").render(Toy())
    b = Dashboard(title="B").render(Toy())
    differ = (a != b).any(axis=2)
    assert differ.any() and not differ[64:].any()  # only the header changes


def header_colours(frame: NDArray[np.uint8], color: tuple[int, int, int]) -> int:
    return int(colour_mask(frame[:56], color).sum())


def test_stat_deltas_are_coloured_by_direction_and_preference() -> None:
    env = Toy()
    for higher, rise, expected in [
        (True, 1.0, "up"), (True, -1.0, "down"), (False, 1.0, "down"), (False, -1.0, "up"),
    ]:  # fmt: skip
        dash = Dashboard(stats=[Stat("V", "value", delta="absolute", higher_is_better=higher)])
        env.value = 1.0
        run(dash, env, [0])
        env.value = 1.0 + rise
        frame = run(dash, env, [1])[0]
        other = "down" if expected == "up" else "up"
        assert header_colours(frame, getattr(LIGHT, expected)) > 5
        assert header_colours(frame, getattr(LIGHT, other)) == 0
    dash = Dashboard(stats=[Stat("V", "value", delta="relative")])
    env.value = 1.0
    run(dash, env, [0])
    frame = run(dash, env, [1])[0]  # no change: muted, no triangle
    assert header_colours(frame, LIGHT.up) == header_colours(frame, LIGHT.down) == 0
    plain = Dashboard(stats=[Stat("V", "value")])
    run(plain, env, [0])
    env.value = 5.0
    frame = run(plain, env, [1])[0]
    assert header_colours(frame, LIGHT.up) == header_colours(frame, LIGHT.down) == 0


def test_stat_delta_texts() -> None:
    relative = Stat("V", "value", delta="relative")
    absolute = Stat("N", "count", "{:d}", delta="absolute")
    assert dashboard._delta(relative, 1.1, 1.0) == ("+10.00%", pytest.approx(0.1))
    assert dashboard._delta(relative, 0.5, -1.0)[0] == "+150.00%"  # type: ignore[index]
    assert dashboard._delta(relative, 1.0, 0.0) is None
    assert dashboard._delta(relative, None, 1.0) is None
    assert dashboard._delta(relative, 1.0, math.nan) is None
    assert dashboard._delta(absolute, 3, 5.0) == (MINUS + "2", -2.0)
    assert dashboard._delta(absolute, 7, 5.0) == ("+2", 2.0)
    assert dashboard._delta(absolute, 5, 5.0) == ("0", 0.0)
    assert dashboard._delta(Stat("V", "value"), 1.0, 2.0) is None


def test_stat_delta_is_since_the_episode_start_even_with_a_window() -> None:
    dash = Dashboard(stats=[Stat("V", "value", delta="absolute")], window=2)
    env = Toy()
    env.value = 10.0
    run(dash, env, [0])
    for clock in range(1, 6):
        env.value = 10.0 + clock
        run(dash, env, [clock])
    h = history(dash, env)
    assert h.steps == [3, 4, 5] and h.first_finite("stat:0") == 10.0


def test_progress_bar_follows_the_horizon() -> None:
    dash = Dashboard(horizon=100)
    env = Toy()
    lengths = []
    for clock in (0, 25, 50, 100, 130):
        frame = run(dash, env, [clock])[0]
        lengths.append(int(colour_mask(frame[56:60], LIGHT.accent).any(axis=0).sum()))
    assert lengths[0] == 0
    assert lengths[1] == pytest.approx(688 * 0.25, abs=2)
    assert lengths[2] == pytest.approx(688 * 0.5, abs=2)
    assert lengths[3] == lengths[4] == pytest.approx(688, abs=2)
    frame = Dashboard(horizon=None).render(env)
    assert not colour_mask(frame[56:60], LIGHT.accent).any()


# -- line charts ------------------------------------------------------------------------------


def test_line_chart_validation() -> None:
    with pytest.raises(ValueError):
        LineChart()
    with pytest.raises(TypeError):
        LineChart(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        LineChart("value", shade=1.5)  # type: ignore[arg-type]
    chart = LineChart("value", Series("count"), shade="flag")
    assert [s.source for s in chart.series] == ["value", "count"]
    assert chart.sources() == {"series0": "value", "series1": "count", "shade": "flag"}
    assert LineChart("value").sources() == {"series0": "value"}
    assert (chart.baseline, chart.percent, chart.tag, chart.limits) == (None, False, True, ())
    assert chart.shade_color == "down" and chart.shade_label is None


def test_shade_needs_one_boolean_per_step() -> None:
    env = Toy()
    dash = Dashboard(LineChart("value", shade="value"))
    with pytest.raises(ValueError, match="boolean"):
        dash.render(env)
    dash = Dashboard(LineChart("value", shade="vector"))
    with pytest.raises(ValueError, match="boolean"):
        dash.render(env)
    dash = Dashboard(LineChart("value", shade=lambda e: np.bool_(e.elapsed_steps > 1)))
    run(dash, env, [0, 1, 2, 3])


def test_series_must_give_numbers() -> None:
    with pytest.raises(ValueError, match="one number"):
        Dashboard(LineChart("vector")).render(Toy())


def line_pixels(frame: NDArray[np.uint8], color: tuple[int, int, int]) -> tuple[Any, Any]:
    rows, cols = np.nonzero(colour_mask(frame, color))
    return rows, cols


def test_rising_line_is_higher_on_the_right() -> None:
    dash = Dashboard(LineChart(Series("value", color="#ff0000"), tag=False), horizon=None)
    env = Toy()
    for clock in range(30):
        env.value = float(clock)
        frame = run(dash, env, [clock])[0]
    rows, cols = line_pixels(frame, (255, 0, 0))
    left = rows[cols < cols.min() + 50].mean()
    right = rows[cols > cols.max() - 50].mean()
    assert right < left - 100  # image rows grow downwards


def test_legend_needs_two_labelled_series_or_a_shade_label() -> None:
    def title_band(*series: Series, **kwargs: Any) -> NDArray[np.uint8]:
        frame = Dashboard(LineChart(*series, title="T", **kwargs)).render(Toy())
        return frame[64:84, 200:640]

    blank = title_band(Series("value"), Series("count"))
    assert (blank == LIGHT.background).all()
    assert (title_band(Series("value", "A"), Series("count")) == LIGHT.background).all()
    assert (title_band(Series("value", "A"), Series("count", "B")) != LIGHT.background).any()
    shaded = title_band(Series("value"), shade="flag", shade_label="Stress")
    assert (shaded != LIGHT.background).any()


def capture(monkeypatch: pytest.MonkeyPatch, method: str) -> list[tuple[Any, ...]]:
    calls: list[tuple[Any, ...]] = []
    original = getattr(charts.Plot, method)

    def spy(self: charts.Plot, *args: Any, **kwargs: Any) -> Any:
        calls.append((*args, kwargs))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(charts.Plot, method, spy)
    return calls


def test_integer_data_gets_integer_ticks(monkeypatch: pytest.MonkeyPatch) -> None:
    grids = capture(monkeypatch, "grid")
    env = Toy()
    dash = Dashboard(LineChart("count", height=4))
    for clock, count in enumerate([0, 1, 2, 3, 2]):
        env.count = count
        run(dash, env, [clock])
    ticks = grids[-1][0]
    assert len(ticks) >= 2 and all(float(t).is_integer() for t in ticks)
    grids.clear()
    dash = Dashboard(LineChart("value", height=4))
    for clock, value in enumerate([0.0, 0.1, 0.2, 0.3, 0.2]):
        env.value = value
        run(dash, env, [clock])
    assert not all(float(t).is_integer() for t in grids[-1][0])


def test_rebase_uses_the_first_finite_value_of_the_episode(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = capture(monkeypatch, "line")
    env = Toy()
    dash = Dashboard(LineChart(Series("value", rebase=100.0)), window=2)
    for clock, value in enumerate([math.nan, 4.0, 5.0, 6.0, 8.0]):
        env.value = value
        run(dash, env, [clock])
    ys = lines[-1][1]
    np.testing.assert_allclose(ys, [125.0, 150.0, 200.0])


def test_percent_signed_and_limits_render(monkeypatch: pytest.MonkeyPatch) -> None:
    hlines = capture(monkeypatch, "hline")
    areas = capture(monkeypatch, "area")
    env = Toy()
    chart = LineChart(Series("value", signed=True), baseline=0.5, limits=(-1.0, 2.0), percent=True)
    dash = Dashboard(chart)
    for clock, value in enumerate([0.2, 0.8, 0.4]):
        env.value = value
        run(dash, env, [clock])
    levels = [call[0] for call in hlines[-3:]]
    assert levels == [0.5, -1.0, 2.0]
    up, down = areas[-2:]
    assert up[2] == LIGHT.up and down[2] == LIGHT.down
    # crossings of the baseline are inserted so each side is shaded exactly
    np.testing.assert_allclose(up[0], [0, 0.5, 1, 1.75, 2])
    np.testing.assert_allclose(up[1], [0.5, 0.5, 0.8, 0.5, 0.5])
    np.testing.assert_allclose(down[1], [0.2, 0.5, 0.5, 0.5, 0.4])


# -- bar charts and stacked areas -------------------------------------------------------------


def bar_frame(values: Any, **kwargs: Any) -> NDArray[np.uint8]:
    env = Toy()
    env.vector = np.asarray(values, dtype=float)
    env.mask = kwargs.pop("mask", None)  # type: ignore[attr-defined]
    panel = BarChart("vector", title="Weights", **kwargs)
    return Dashboard(panel).render(env)


def test_bar_chart_is_not_a_time_series() -> None:
    chart = BarChart("vector", available="mask")
    assert BarChart.timeseries is False and StackedArea.timeseries is True
    assert chart.sources() == {"values": "vector", "available": "mask"}
    assert BarChart("vector").sources() == {"values": "vector"}
    assert (chart.percent, chart.limit, chart.negative_color) == (True, None, "down")
    with pytest.raises(ValueError):
        BarChart("vector", limit=0)


def test_negative_bars_use_the_down_colour() -> None:
    positive = bar_frame([0.5, 0.25])
    negative = bar_frame([0.5, -0.25])
    assert colour_mask(positive, LIGHT.accent).sum() > 100
    assert not colour_mask(positive, LIGHT.down).any()
    assert colour_mask(negative, LIGHT.down).sum() > 50
    custom = bar_frame([0.5, -0.25], negative_color="#0000ff", colors=["highlight", "up"])
    assert colour_mask(custom, (0, 0, 255)).sum() > 50
    assert colour_mask(custom, LIGHT.highlight).sum() > 50
    assert not colour_mask(custom, LIGHT.accent).any()


def test_bar_length_follows_the_limit() -> None:
    def length(frame: NDArray[np.uint8]) -> int:
        return int(colour_mask(frame, LIGHT.accent).sum(axis=1).max())

    full = length(bar_frame([0.5]))  # nice_step(0.5, 1) = 0.5: a full-length bar
    half = length(bar_frame([0.5], limit=1.0))
    assert half == pytest.approx(full / 2, abs=2)


def test_unavailable_bars_are_greyed_and_marked() -> None:
    available = bar_frame([0.5, 0.4], mask=np.array([True, True]), available="mask")
    greyed = bar_frame([0.5, 0.4], mask=np.array([True, False]), available="mask")
    assert np.array_equal(available, bar_frame([0.5, 0.4]))
    rows = np.nonzero((available != greyed).any(axis=(1, 2)))[0]
    assert rows.size and rows.min() >= 258  # only the second bar's row (image rows 259-434)
    assert colour_mask(greyed, LIGHT.accent).sum() < colour_mask(available, LIGHT.accent).sum()
    # The difference includes the "not tradable" note at the right end of the bar area.
    differ = (available != greyed).any(axis=2)
    text = differ[rows.min() : rows.max() + 1, 480:700]
    assert text.sum() > 40
    with pytest.raises(ValueError, match="flags"):
        bar_frame([0.5, 0.4, 0.1], mask=np.array([True, False]), available="mask")


def test_stacked_area_stacks_up_and_down(monkeypatch: pytest.MonkeyPatch) -> None:
    areas = capture(monkeypatch, "area")
    env = Toy()
    env.vector = np.array([0.3, -0.2, 0.5])
    frame = Dashboard(StackedArea("vector", colors=["up", None, "#0000ff"])).render(env)
    tops = [call[1].tolist() for call in areas]
    # Outermost layer first, from zero, so the layers share no seam.
    assert tops == [[0.8], [0.3], [-0.2]]  # the middle part has nothing positive
    assert all(call[-1]["base"] == 0.0 for call in areas)
    assert frame.shape == (450, 720, 3)


def test_stacked_area_gaps_and_padding(monkeypatch: pytest.MonkeyPatch) -> None:
    areas = capture(monkeypatch, "area")
    panel = StackedArea(lambda e: e.parts)
    dash = Dashboard(panel)
    env = Toy()
    for clock, parts in enumerate([[0.5], None, [0.2, 0.3]]):
        env.parts = parts  # type: ignore[attr-defined]
        run(dash, env, [clock])
    outer = areas[-2][1]  # the outer layer on the last frame (nothing negative)
    np.testing.assert_array_equal(outer, [0.5, np.nan, 0.5])

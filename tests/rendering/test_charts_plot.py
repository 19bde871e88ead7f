"""Tests for the drawing helpers of sekai.rendering.charts: Plot, legends, triangles, shading."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.typing import NDArray

from sekai.rendering import charts
from sekai.rendering.canvas import Canvas
from sekai.rendering.charts import (
    Box,
    Plot,
    legend,
    legend_width,
    shade_steps,
    tick_labels,
    triangle,
)
from sekai.rendering.text import text_width
from sekai.rendering.theme import DARK, LIGHT

RED = (200, 30, 30)
BOX = Box(20, 20, 180, 100)  # a 160 x 80 plot with a 40-px gutter on a 220 x 120 canvas


def make(theme=LIGHT, box=BOX, x=(0.0, 10.0), y=(0.0, 10.0), scale=1.0) -> tuple[Canvas, Plot]:
    canvas = Canvas(220, 120, theme.background, antialias=True)
    return canvas, Plot(canvas, box, x, y, theme, scale)


def changed(canvas: Canvas, theme=LIGHT) -> NDArray[np.bool_]:
    """Mask of pixels that differ from the background, row 0 at the bottom (y up)."""
    out: NDArray[np.bool_] = (canvas.pixels != np.array(theme.background)).any(axis=2)[::-1]
    return out


def outside(mask: NDArray[np.bool_], box: Box) -> NDArray[np.bool_]:
    inner = np.zeros_like(mask)
    inner[int(box.bottom) : int(box.top), int(box.left) : int(box.right)] = True
    out: NDArray[np.bool_] = mask & ~inner
    return out


def test_all_is_extended() -> None:
    assert {"Plot", "legend", "legend_width", "triangle", "shade_steps"} <= set(charts.__all__)
    for name in charts.__all__:
        assert hasattr(charts, name)


# -- mapping --------------------------------------------------------------------------------


def test_maps_data_to_pixels() -> None:
    _, plot = make(x=(0, 10), y=(-1, 1))
    assert plot.x(0) == 20 and plot.x(10) == 180 and plot.x(5) == 100
    assert plot.y(-1) == 20 and plot.y(1) == 100 and plot.y(0) == 60
    assert isinstance(plot.x(2.5), float)
    np.testing.assert_allclose(plot.x(np.array([0.0, 2.5, 10.0])), [20, 60, 180])
    np.testing.assert_allclose(plot.y([-1.0, 0.0]), [20, 60])
    assert plot.x(20) == 340  # no clamping: the marks are clipped instead


def test_zero_width_domains_are_widened_by_one() -> None:
    _, plot = make(x=(3, 3), y=(7, 7))
    assert plot.x_domain == (2.5, 3.5) and plot.y_domain == (6.5, 7.5)
    assert plot.x(3) == 100 and plot.y(7) == 60


def test_non_finite_domain_is_refused() -> None:
    with pytest.raises(ValueError, match="x_domain"):
        make(x=(0, math.inf))
    with pytest.raises(ValueError, match="y_domain"):
        make(y=(math.nan, 1))


# -- marks are clipped to the box -------------------------------------------------------------


@pytest.mark.parametrize(
    "draw",
    [
        lambda p: p.line([-5, 5, 15], [-5, 20, -5], RED, width=4),
        lambda p: p.line([-5, 15], [5, 5], RED, width=6, dash=(3, 2)),
        lambda p: p.line([-5, 5, 15], [20, -5, 20], RED, step=True),
        lambda p: p.area([-5, 5, 15], [20, 5, 20], RED, alpha=1.0),
        lambda p: p.area([-5, 15], [20, 20], RED, base=-5, step=True),
        lambda p: p.shade(-5, 15, RED, alpha=1.0),
        lambda p: p.hline(0, RED, width=3),
        lambda p: p.vline(10, RED, width=3),
        lambda p: p.marker(0, 0, RED, radius=8),
        lambda p: p.marker(10, 10, RED, shape="diamond", radius=8, ring=False),
    ],
)
def test_marks_stay_inside_the_box(draw) -> None:
    canvas, plot = make()
    draw(plot)
    mask = changed(canvas)
    assert mask.any()
    assert not outside(mask, BOX).any()


def test_line_of_a_rising_series_is_higher_on_the_right() -> None:
    canvas, plot = make()
    xs = np.arange(11.0)
    plot.line(xs, xs, RED)
    rows, cols = np.nonzero(changed(canvas))
    left, right = rows[cols < 60].mean(), rows[cols > 140].mean()
    assert right > left + 40


def test_line_breaks_at_nan() -> None:
    canvas, plot = make()
    plot.line([0, 4, 5, 6, 10], [5, 5, math.nan, 5, 5], RED)
    mask = changed(canvas)
    assert mask[:, 40:70].any() and mask[:, 130:160].any()
    assert not mask[:, 90:110].any()  # nothing between x=4 and x=6


def test_line_ink_matches_the_exact_polyline() -> None:
    rng = np.random.default_rng(3)
    xs = np.linspace(0, 10, 120)
    ys = 5 + np.cumsum(rng.normal(0, 0.3, xs.size))
    canvas, plot = make(y=(ys.min() - 1, ys.max() + 1))
    plot.line(xs, ys, (0, 0, 0), width=2.0)
    exact = Canvas(220, 120, LIGHT.background, antialias=True)
    points = np.column_stack([plot.x(xs), plot.y(ys)])
    with exact.clip(BOX.left, BOX.bottom, BOX.right, BOX.top):
        exact.polyline(points, (0, 0, 0), 2.0)
    ours = canvas.pixels.astype(float)
    theirs = exact.pixels.astype(float)
    assert abs(ours.sum() - theirs.sum()) / (255 * 3) < 0.01 * (255 - theirs).sum() / (255 * 3)
    assert np.abs(ours - theirs).mean() < 1.0


def test_step_line_holds_each_value() -> None:
    canvas, plot = make()
    plot.line([0, 10], [2, 8], RED, width=2, step=True)
    mask = changed(canvas)
    low, high = int(plot.y(2)), int(plot.y(8))
    assert mask[low, 40:170].all()  # the first value held until x = 10
    assert not mask[high, 20:170].any()


def test_area_fills_down_to_the_domain_bottom_or_a_base() -> None:
    canvas, plot = make()
    plot.area([0, 10], [5, 5], RED, alpha=1.0)
    mask = changed(canvas)
    assert mask[21:59, 25:175].all() and not mask[62:99, 25:175].any()
    canvas, plot = make()
    plot.area([0, 10], [5, 5], RED, base=8, alpha=1.0)
    mask = changed(canvas)
    assert mask[61:83, 25:175].all() and not mask[21:59, 25:175].any()


def test_shade_is_a_full_height_band() -> None:
    canvas, plot = make()
    plot.shade(2, 4, RED)
    mask = changed(canvas)
    assert mask[20:100, 53:83].all()
    assert not mask[:, :51].any() and not mask[:, 85:].any()


def test_hline_is_crisp_and_can_be_dashed() -> None:
    canvas, plot = make()
    plot.hline(5, RED)
    mask = changed(canvas)
    assert mask[60, 20:180].all() and mask.sum() == 160  # one full pixel row
    canvas, plot = make()
    plot.hline(5, RED, dash=(4, 4))
    row = changed(canvas)[60, 20:180]
    assert 60 < row.sum() < 150 and not row.all()  # round caps lengthen each dash


def test_vline() -> None:
    canvas, plot = make()
    plot.vline(5, RED)
    mask = changed(canvas)
    assert mask[20:100, 100].all() and mask.sum() == 80


def test_marker_shapes_and_ring() -> None:
    inks = {}
    for shape in ("circle", "up", "down", "diamond"):
        canvas, plot = make()
        plot.marker(5, 5, RED, shape=shape, radius=6, ring=False)
        assert changed(canvas).any()
        inks[shape] = np.abs(canvas.pixels[::-1] - np.array(LIGHT.background)).sum(axis=2)
    up, down = inks["up"], inks["down"]
    # Centred on the centroid: 5/9 of the area lies on the side of the base.
    assert up[:60].sum() > up[60:].sum() * 1.1
    assert down[60:].sum() > down[:60].sum() * 1.1
    # The ring punches a background-coloured halo through whatever is below.
    canvas, plot = make()
    plot.shade(0, 10, RED, alpha=1.0)
    plot.marker(5, 5, (0, 0, 0), radius=4)
    halo = canvas.pixels[::-1][64, 100].astype(int)  # 4 to 5.1 px from the centre
    assert np.abs(halo - LIGHT.background).max() <= 2
    with pytest.raises(ValueError, match="shape"):
        plot.marker(5, 5, RED, shape="star")  # type: ignore[arg-type]


def test_scale_multiplies_widths() -> None:
    widths = []
    for scale in (1.0, 2.0):
        canvas, plot = make(scale=scale)
        plot.hline(5, RED, width=2)
        widths.append(changed(canvas)[:, 100].sum())
    assert widths == [2, 4]


# -- gutter labels ----------------------------------------------------------------------------


def test_grid_draws_lines_and_gutter_labels() -> None:
    canvas, plot = make()
    plot.grid([0, 5, 10], size=10)
    mask = changed(canvas)
    assert mask[60, 20:180].all()
    assert (canvas.pixels[::-1][60, 20:180] == LIGHT.grid).all()
    assert mask[55:66, 182:220].any()  # the label "5" in the gutter
    assert not mask[:, :20].any()


def test_grid_uses_tick_labels_by_default_and_checks_lengths() -> None:
    canvas, plot = make()
    plot.grid([2.5, 5.0])
    other = Canvas(220, 120, LIGHT.background, antialias=True)
    Plot(other, BOX, (0, 10), (0, 10), LIGHT).grid([2.5, 5.0], tick_labels([2.5, 5.0]))
    assert (canvas.pixels == other.pixels).all()
    with pytest.raises(ValueError, match="labels"):
        plot.grid([1, 2], ["a"])


def test_grid_skips_labels_near_avoided_values() -> None:
    canvas, plot = make()
    plot.grid([2, 5, 8], avoid=[5.2])
    mask = changed(canvas)
    assert mask[36:45, 182:].any() and mask[79:88, 182:].any()
    assert not mask[55:66, 182:].any()


def test_x_ticks_label_under_the_box_and_skip_overlaps() -> None:
    canvas, plot = make()
    plot.x_ticks([0, 5, 10], ["0", "5", "10"])
    mask = changed(canvas)
    assert mask[:16, 95:106].any() and mask[20:24, 100].all()  # label and tick mark
    spaced = mask[:16].sum()
    canvas, plot = make()
    plot.x_ticks([5, 5.1, 5.2], ["five", "five", "five"])
    crowded = changed(canvas)[:16]
    assert crowded.sum() < spaced * 2  # only the first of three identical labels
    with pytest.raises(ValueError, match="labels"):
        plot.x_ticks([1, 2], ["a"])


def test_tag_is_a_pill_in_the_gutter_kept_within_the_box_height() -> None:
    for theme in (LIGHT, DARK):
        canvas, plot = make(theme)
        plot.tag(5, "5.00", theme.accent)
        mask = changed(canvas, theme)
        assert not mask[:, :180].any()
        cols = np.nonzero(mask.any(axis=0))[0]
        assert cols.min() >= 180
        pixels = canvas.pixels[::-1]
        assert (pixels[60, cols.min() + 2 : cols.max() - 2] != theme.background).any(axis=1).all()
        ink = np.array(theme.ink_on(theme.accent))
        assert (np.abs(pixels[50:70, 180:] - ink).sum(axis=2) < 40).any()  # the text
    canvas, plot = make()
    plot.tag(1000, "top", RED)
    rows = np.nonzero(changed(canvas).any(axis=1))[0]
    assert rows.max() < 100  # clamped into the box's height
    canvas, plot = make()
    plot.tag(math.nan, "x", RED)
    assert not changed(canvas).any()


# -- legend, triangle, shade_steps ------------------------------------------------------------


ITEMS = [("Alpha", (200, 0, 0), "line"), ("Beta", (0, 0, 200), "dash"), ("G", (0, 150, 0), "area")]


def test_legend_width_matches_what_is_drawn() -> None:
    canvas = Canvas(300, 40, LIGHT.background, antialias=True)
    width = legend(canvas, 280, 20, ITEMS, LIGHT)
    assert width == legend_width(ITEMS)
    expected = sum(text_width(label, 10) for label, _, _ in ITEMS) + 3 * 18 + 2 * 12
    assert width == pytest.approx(expected)
    cols = np.nonzero(changed(canvas).any(axis=0))[0]
    assert cols.max() <= 280 and cols.min() >= 280 - width - 1
    assert legend_width([]) == 0
    assert legend_width(ITEMS, scale=2) == pytest.approx(
        sum(text_width(label, 20) for label, _, _ in ITEMS) + 2 * (3 * 18 + 2 * 12)
    )


def test_legend_align_left_and_every_swatch() -> None:
    swatches = ["line", "dash", "area", "dot", "square", "up", "down"]
    items = [(s, (200, 0, 0), s) for s in swatches]
    canvas = Canvas(600, 40, LIGHT.background, antialias=True)
    width = legend(canvas, 10, 20, items, LIGHT, align="left")  # type: ignore[arg-type]
    cols = np.nonzero(changed(canvas).any(axis=0))[0]
    assert cols.min() >= 9 and cols.max() <= 10 + width
    with pytest.raises(ValueError, match="align"):
        legend(canvas, 10, 20, items, LIGHT, align="center")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="swatch"):
        legend(canvas, 10, 20, [("x", (0, 0, 0), "star")], LIGHT)  # type: ignore[list-item]


def test_triangle_points_up_or_down() -> None:
    for up in (True, False):
        canvas = Canvas(20, 20, (255, 255, 255), antialias=True)
        triangle(canvas, 10, 10, 8, (0, 0, 0), up)
        mask = changed(canvas, LIGHT.with_colors(background=(255, 255, 255)))
        lower, upper = mask[:10].sum(), mask[10:].sum()
        assert (lower > upper) == up
        assert mask[10, 10]


def test_shade_steps_shades_runs_to_halfway_between_steps() -> None:
    canvas, plot = make(x=(0, 10))
    shade_steps(plot, np.arange(11.0), [False] * 3 + [True] * 3 + [False] * 5, RED, alpha=1.0)
    mask = changed(canvas)
    # steps 3..5 cover x from 2.5 to 5.5, i.e. pixels 60 to 108
    assert mask[50, 61:107].all()
    assert not mask[50, :59].any() and not mask[50, 110:].any()


def test_shade_steps_edges_and_errors() -> None:
    canvas, plot = make(x=(0, 10))
    shade_steps(plot, [4.0], [True], RED, alpha=1.0)  # a single step spans half a step each side
    mask = changed(canvas)
    assert mask[50, 77:91].all()  # x from 3.5 to 4.5: pixels 76 to 92
    assert not mask[50, :75].any() and not mask[50, 93:].any()
    with pytest.raises(ValueError, match="flag"):
        shade_steps(plot, [1.0, 2.0], [True], RED)
    canvas, plot = make()
    shade_steps(plot, [], [], RED)
    assert not changed(canvas).any()


def test_legend_rows_wrap_items_to_the_width() -> None:
    from sekai.rendering.plot import legend_rows

    items = [(f"asset {k}", (0, 0, 0), "line") for k in range(6)]
    one_row = legend_rows(items, legend_width(items))
    assert one_row == [items]
    rows = legend_rows(items, legend_width(items[:2]))
    assert [item for row in rows for item in row] == items
    assert all(legend_width(row) <= legend_width(items[:2]) for row in rows)
    assert len(rows) == 3
    assert legend_rows(items, 1.0) == [[item] for item in items]

"""Canvas: pixel-centre fills, exact antialiased coverage, compositing, clipping, shapes, text."""

from __future__ import annotations

import math
import sys
import types
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from sekai.rendering import Canvas, rotate
from sekai.rendering.coverage import area_cover, ring_edges

BLACK = (0, 0, 0)
WHITE = (255, 255, 255)


def ink(canvas: Canvas) -> NDArray[np.float64]:
    """Coverage drawn in black on white, rows bottom-up (``[y, x]``)."""
    return np.asarray((255.0 - canvas.pixels[::-1, :, 0]) / 255.0, dtype=np.float64)


def centres_inside(rings: list[list[tuple[float, float]]], w: int, h: int) -> NDArray[np.bool_]:
    """Even-odd test of every pixel centre, rows bottom-up; an edge's left/bottom counts."""
    yc, xc = np.mgrid[0:h, 0:w] + 0.5
    count = np.zeros((h, w), dtype=int)
    for ring in rings:
        for a, b in zip(ring, ring[1:] + ring[:1], strict=True):
            (x0, y0), (x1, y1) = sorted((a, b), key=lambda p: p[1])
            if y0 == y1:
                continue
            x = x0 + (yc - y0) * ((x1 - x0) / (y1 - y0))
            count += (yc >= y0) & (yc < y1) & (x <= xc)
    return count % 2 == 1


def supersampled(rings: list[NDArray[np.float64]], w: int, h: int, n: int = 64) -> Any:
    """Even-odd coverage estimated on an ``n`` by ``n`` grid per pixel, rows bottom-up."""
    ys, xs = (np.arange(h * n) + 0.5) / n, (np.arange(w * n) + 0.5) / n
    xg, yg = np.meshgrid(xs, ys)
    count = np.zeros_like(xg)
    for ring in rings:
        for (x0, y0), (x1, y1) in zip(ring, np.roll(ring, -1, axis=0), strict=True):
            if y0 == y1:
                continue
            x = x0 + (yg - y0) * (x1 - x0) / (y1 - y0)
            count += (yg >= min(y0, y1)) & (yg < max(y0, y1)) & (x <= xg)
    return (count % 2).reshape(h, n, w, n).mean(axis=(1, 3))


# --- construction and orientation -------------------------------------------------------------
def test_construction() -> None:
    canvas = Canvas(4, 3, (1, 2, 3))
    assert canvas.pixels.shape == (3, 4, 3) and canvas.pixels.dtype == np.uint8
    assert (canvas.pixels == (1, 2, 3)).all()
    copy = canvas.to_array()
    copy[...] = 0
    assert (canvas.pixels == (1, 2, 3)).all()
    for bad in (0, -1):
        with pytest.raises(ValueError):
            Canvas(bad, 3)
        with pytest.raises(ValueError):
            Canvas(3, bad)
    with pytest.raises(TypeError, match=r"Canvas width must be an int, got float 2\.5"):
        Canvas(2.5, 3)  # type: ignore[arg-type]
    assert Canvas(4.0, 3.0).pixels.shape == (3, 4, 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Canvas(2, 2, (0, 0))
    with pytest.raises(ValueError):
        Canvas(2, 2, (0, 0, 256))


def test_origin_is_bottom_left() -> None:
    canvas = Canvas(3, 2)
    canvas.rect(0, 0, 1, 1, BLACK)
    assert canvas.to_array()[1, 0].tolist() == [0, 0, 0]
    assert (canvas.to_array()[0] == 255).all()


def test_clear_ignores_clip() -> None:
    canvas = Canvas(3, 3)
    with canvas.clip(0, 0, 1, 1):
        canvas.clear((9, 9, 9))
    assert (canvas.pixels == 9).all()


# --- pixel-centre rule --------------------------------------------------------------------------
def test_pixel_centre_rule_for_rects() -> None:
    canvas = Canvas(4, 3)
    canvas.rect(0.5, 0.5, 2.5, 1.5, BLACK)  # centres on the left/bottom edges are inside
    assert ink(canvas).tolist() == [[1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    canvas = Canvas(4, 3)
    canvas.rect(3, 2, 1, 1, BLACK)  # corners in any order
    assert ink(canvas).tolist() == [[0, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0]]


def test_adjacent_rects_tile_without_gap_or_overlap() -> None:
    canvas = Canvas(6, 1, (0, 0, 0))
    canvas.rect(0.3, 0, 2.5, 1, (100, 0, 0), alpha=0.5)
    canvas.rect(2.5, 0, 5.7, 1, (100, 0, 0), alpha=0.5)
    assert canvas.pixels[0, :, 0].tolist() == [50, 50, 50, 50, 50, 50]


def test_polygon_pixel_centres_match_even_odd_test() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        ring = [tuple(p) for p in rng.uniform(-2, 14, (7, 2)).round(1)]
        canvas = Canvas(12, 10)
        canvas.polygon(ring, BLACK)
        assert (ink(canvas) == centres_inside([ring], 12, 10)).all()


def test_fewer_than_three_points_draw_nothing() -> None:
    canvas = Canvas(3, 3)
    canvas.polygon([(0, 0), (3, 3)], BLACK)
    canvas.polygon([], BLACK)
    assert (canvas.pixels == 255).all()


# --- compositing --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("background", "color", "alpha", "expected"),
    [
        (0, 255, 0.5, 128),  # 127.5 rounds up
        (255, 0, 0.5, 128),
        (100, 201, 0.5, 151),  # 150.5
        (255, 0, 0.25, 191),  # 191.25
        (0, 255, 0.1, 26),  # 25.5 despite 0.1 not being exact in binary
        (10, 200, 2.0, 200),  # clamped to 1
        (10, 200, -1.0, 10),  # clamped to 0
        (10, 200, math.nan, 10),
    ],
)
def test_compositing_rounds_half_up(
    background: int, color: int, alpha: float, expected: int
) -> None:
    for antialias in (False, True):
        canvas = Canvas(2, 2, (background,) * 3, antialias=antialias)
        canvas.rect(0, 0, 2, 2, (color,) * 3, alpha=alpha)
        assert (canvas.pixels == expected).all()


def test_bad_colour_raises() -> None:
    canvas = Canvas(2, 2)
    with pytest.raises(ValueError):
        canvas.rect(0, 0, 1, 1, (0, 0))
    with pytest.raises(ValueError):
        canvas.circle(1, 1, 1, (0, 0, 300))


# --- exact coverage -----------------------------------------------------------------------------
def test_half_covered_pixel_gets_the_exact_mix() -> None:
    for shape in ("rect", "triangle"):
        canvas = Canvas(2, 1, antialias=True)
        if shape == "rect":
            canvas.rect(0, 0, 0.5, 1, BLACK)
        else:
            canvas.polygon([(0, 0), (1, 0), (0, 1)], BLACK)
        assert canvas.pixels[0, :, 0].tolist() == [128, 255]


def test_antialiased_rect_coverage_is_exact() -> None:
    canvas = Canvas(4, 3, antialias=True)
    canvas.rect(0.25, 0.5, 2.75, 2.0, BLACK)
    cover = np.array([[0.375, 0.5, 0.375, 0], [0.75, 1, 0.75, 0], [0, 0, 0, 0]])
    assert np.abs(ink(canvas) - cover).max() <= 0.5 / 255 + 1e-12


def star_polygon(draw: st.DrawFn) -> NDArray[np.float64]:
    """A simple polygon: vertices around a centre, consecutive angles less than pi apart."""
    n = draw(st.integers(3, 12))
    jitter = np.array(draw(st.lists(st.floats(0, 0.9), min_size=n, max_size=n)))
    angles = (np.arange(n) + jitter) * (2 * math.pi / n)
    radii = np.array(draw(st.lists(st.floats(0.2, 7.0), min_size=n, max_size=n)))
    cx, cy = draw(st.floats(1, 13)), draw(st.floats(1, 9))
    return np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)], -1)


@settings(max_examples=60, deadline=None)
@given(st.composite(star_polygon)())
def test_coverage_sums_to_the_polygon_area(ring: NDArray[np.float64]) -> None:
    x, y = ring[:, 0], ring[:, 1]
    area = abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2
    cover = area_cover(ring_edges([ring[None]]), (-8, -8, 24, 20), nonzero=False)
    assert cover.sum() == pytest.approx(area, abs=1e-9)
    canvas = Canvas(14, 10, antialias=True)
    canvas.polygon(ring, BLACK)
    inside = (x.min() >= 0) & (x.max() <= 14) & (y.min() >= 0) & (y.max() <= 10)
    if inside:
        assert ink(canvas).sum() == pytest.approx(area, abs=0.5 / 255 * 140)


def test_exact_coverage_of_self_intersecting_polygons() -> None:
    rng = np.random.default_rng(1)
    for _ in range(10):
        # Quarter-pixel vertices: edges through pixel corners, horizontal and vertical edges.
        rings = [rng.integers(-8, 48, (rng.integers(3, 8), 2)) / 4 for _ in range(2)]
        cover = area_cover(ring_edges([r[None] for r in rings]), (0, 0, 10, 8), nonzero=False)
        assert np.abs(cover - supersampled(rings, 10, 8)).max() < 0.03


def test_nearly_horizontal_edges() -> None:
    angles = math.pi / 2 + np.arange(5) * (4 * math.pi / 5)
    star = np.stack([10 + 8 * np.cos(angles), 8 + 8 * np.sin(angles)], -1)
    assert 0 < abs(star[2, 1] - star[3, 1]) < 1e-12  # one edge is horizontal but for rounding
    cover = area_cover(ring_edges([star[None]]), (0, 0, 20, 17), nonzero=False)
    assert np.abs(cover - supersampled([star], 20, 17)).max() < 0.03


def test_even_odd_holes() -> None:
    # One ring: an outer square and an inner square joined by a zero-width bridge.
    ring = [(0, 0), (6, 0), (6, 6), (0, 6), (0, 0), (2, 2), (2, 4), (4, 4), (4, 2), (2, 2)]
    for antialias in (False, True):
        canvas = Canvas(6, 6, antialias=antialias)
        canvas.polygon(ring, BLACK)
        expected = np.ones((6, 6))
        expected[2:4, 2:4] = 0
        assert (ink(canvas) == expected).all()
    angles = math.pi / 2 + np.arange(5) * (4 * math.pi / 5)
    pentagram = np.stack([3 + 3 * np.cos(angles), 3 + 3 * np.sin(angles)], -1)
    canvas = Canvas(6, 6)
    canvas.polygon(pentagram, BLACK)
    assert ink(canvas)[2, 2:4].tolist() == [0, 0]  # the centre of a pentagram is a hole


def test_circle() -> None:
    canvas = Canvas(9, 9)
    canvas.circle(4.5, 4.5, 3, BLACK)
    yc, xc = np.mgrid[0:9, 0:9] + 0.5
    assert (ink(canvas) == ((xc - 4.5) ** 2 + (yc - 4.5) ** 2 <= 9)).all()
    canvas = Canvas(20, 20, antialias=True)
    canvas.circle(10.3, 9.8, 6, BLACK)
    assert ink(canvas).sum() == pytest.approx(math.pi * 36, abs=0.15)
    canvas.circle(5, 5, 0, BLACK)
    canvas.circle(5, 5, math.nan, BLACK)


def test_rounded_rect() -> None:
    canvas = Canvas(10, 10, antialias=True)
    canvas.rect(1, 1, 9, 7, BLACK, radius=2)
    assert ink(canvas).sum() == pytest.approx(8 * 6 - (4 - math.pi) * 4, abs=0.15)
    assert ink(canvas)[1, 1] < 0.7 and ink(canvas)[3, 5] == 1
    canvas = Canvas(10, 10)
    canvas.rect(0, 0, 10, 4, BLACK, radius=100)  # clamped to half the height: a stadium
    assert ink(canvas)[0, 0] == 0 and ink(canvas)[2, 0] == 1 and ink(canvas)[0, 5] == 1


# --- lines --------------------------------------------------------------------------------------
def test_thin_lines() -> None:
    canvas = Canvas(6, 4)
    canvas.line((0, 2.5), (6, 2.5), BLACK)
    assert ink(canvas)[:, 0].tolist() == [0, 0, 1, 0] and ink(canvas)[2].sum() == 6
    canvas = Canvas(6, 4, antialias=True)
    canvas.line((1, 2), (5, 2), BLACK)
    assert canvas.pixels[::-1, 3, 0].tolist() == [255, 128, 128, 255]
    assert 0 < ink(canvas)[1, 0] < 0.5  # the round cap reaches past the end


def test_overlaps_are_drawn_once() -> None:
    for antialias in (False, True):
        canvas = Canvas(12, 5, antialias=antialias)
        canvas.polyline([(1, 2.5), (11, 2.5), (2, 2.5), (10, 2.5)], BLACK, 3, alpha=0.5)
        assert canvas.pixels[2, 6, 0] == 128


def test_nan_points_break_the_line() -> None:
    canvas = Canvas(10, 1)
    canvas.polyline([(0, 0.5), (3, 0.5), (math.nan, 0.5), (6, 0.5), (10, 0.5)], BLACK)
    assert ink(canvas)[0].tolist() == [1, 1, 1, 0, 0, 0, 1, 1, 1, 1]


def test_dashes() -> None:
    canvas = Canvas(10, 1)
    canvas.line((0, 0.5), (10, 0.5), BLACK, dash=(2, 1))
    assert ink(canvas)[0].tolist() == [1, 1, 0, 1, 1, 0, 1, 1, 0, 1]
    canvas = Canvas(10, 1)  # the pattern restarts after a gap
    canvas.polyline([(0, 0.5), (4, 0.5), (math.inf, 0), (5, 0.5), (10, 0.5)], BLACK, dash=(3, 2))
    assert ink(canvas)[0].tolist() == [1, 1, 1, 0, 0, 1, 1, 1, 0, 0]
    canvas = Canvas(10, 1)  # and carries on round corners
    canvas.polyline([(0, 0.5), (4, 0.5), (4, 0.9), (10, 0.9)], BLACK, dash=(4.4, 1))
    assert ink(canvas)[0].tolist() == [1, 1, 1, 1, 0, 1, 1, 1, 1, 0]
    for bad in ((0, 1), (-1, 1), (1, -1), (math.nan, 1), (1,), (1, 2, 3)):
        with pytest.raises(ValueError):
            Canvas(2, 2).line((0, 0), (1, 1), BLACK, dash=bad)  # type: ignore[arg-type]


def test_antialiased_dashes_have_round_caps() -> None:
    canvas = Canvas(20, 5, antialias=True)
    canvas.line((2, 2.5), (18, 2.5), BLACK, 2, dash=(4, 4))
    dash = 4 * 2 + math.pi * 1
    assert ink(canvas).sum() == pytest.approx(2 * dash, abs=0.1)


def test_degenerate_lines_draw_nothing() -> None:
    canvas = Canvas(4, 4, antialias=True)
    canvas.line((1, 1), (1, 1), BLACK, 2)
    canvas.line((0, 0), (3, 3), BLACK, 0)
    canvas.line((0, 0), (3, 3), BLACK, math.nan)
    canvas.polyline([(0, 0), (math.nan, 1), (3, 3)], BLACK)
    assert (canvas.pixels == 255).all()


# --- fill_between ---------------------------------------------------------------------------------
def test_fill_between() -> None:
    canvas = Canvas(5, 3)
    canvas.fill_between([0, 1, 2, 3, 4, 5], 0, [2, 2, math.nan, 2, 2, 2], BLACK)
    assert ink(canvas).tolist() == [[1, 0, 0, 1, 1], [1, 0, 0, 1, 1], [0, 0, 0, 0, 0]]
    canvas = Canvas(4, 4, antialias=True)
    canvas.fill_between([0, 4], [0, 0], [0, 4], BLACK)  # a triangle
    assert ink(canvas).sum() == pytest.approx(8, abs=0.01)
    with pytest.raises(ValueError):
        canvas.fill_between([[0, 1]], 0, 1, BLACK)


# --- image ----------------------------------------------------------------------------------------
def test_image_first_row_at_top_and_blocks() -> None:
    img = np.array([[[255, 0, 0], [0, 255, 0]], [[0, 0, 255], [9, 9, 9]]], dtype=np.uint8)
    canvas = Canvas(2, 2)
    canvas.image(img, 0, 0, 2, 2)
    assert (canvas.to_array() == img).all()
    canvas = Canvas(4, 4)
    canvas.image(img, 0, 0, 4, 4)
    assert (canvas.to_array() == img.repeat(2, axis=0).repeat(2, axis=1)).all()


def test_image_alpha_channel_and_errors() -> None:
    img = np.zeros((1, 2, 4), dtype=np.uint8)
    img[0, 1, 3] = 255
    canvas = Canvas(2, 1)
    canvas.image(img, 0, 0, 2, 1)
    assert canvas.pixels[0, :, 0].tolist() == [255, 0]
    with pytest.raises(ValueError):
        canvas.image(np.zeros((2, 2), dtype=np.uint8), 0, 0, 1, 1)
    with pytest.raises(ValueError):
        canvas.image(np.zeros((2, 2, 2), dtype=np.uint8), 0, 0, 1, 1)
    with pytest.raises(TypeError):
        canvas.image(np.zeros((2, 2, 3)), 0, 0, 1, 1)


# --- clipping -------------------------------------------------------------------------------------
def test_nested_clips_intersect_and_restore() -> None:
    canvas = Canvas(6, 6)
    with canvas.clip(0, 0, 4, 4), canvas.clip(2, 1, 6, 6):
        canvas.rect(0, 0, 6, 6, BLACK)
    expected = np.zeros((6, 6))
    expected[1:4, 2:4] = 1
    assert (ink(canvas) == expected).all()
    canvas.rect(5, 5, 6, 6, BLACK)  # the clip is gone
    assert ink(canvas)[5, 5] == 1


def test_partly_covered_pixels_are_inside_the_clip() -> None:
    canvas = Canvas(4, 4, antialias=True)
    with canvas.clip(0.5, 0.5, 1.2, 1.2):
        canvas.circle(2, 2, 5, BLACK)
    expected = np.zeros((4, 4))
    expected[:2, :2] = 1
    assert (ink(canvas) == expected).all()


def test_clip_restored_after_an_error_and_validated() -> None:
    canvas = Canvas(3, 3)
    with pytest.raises(RuntimeError), canvas.clip(0, 0, 1, 1):
        raise RuntimeError
    canvas.rect(0, 0, 3, 3, BLACK)
    assert (ink(canvas) == 1).all()
    with pytest.raises(ValueError):
        canvas.clip(0, 0, math.nan, 1)
    with canvas.clip(2, 2, 1, 1):  # empty
        canvas.rect(0, 0, 3, 3, WHITE)
    assert (ink(canvas) == 1).all()


# --- non-finite geometry --------------------------------------------------------------------------
def test_non_finite_geometry_draws_nothing() -> None:
    for antialias in (False, True):
        canvas = Canvas(4, 4, antialias=antialias)
        canvas.polygon([(0, 0), (4, 0), (math.nan, 4)], BLACK)
        canvas.rect(0, 0, math.inf, 4, BLACK)
        canvas.circle(2, math.inf, 1, BLACK)
        canvas.image(np.zeros((1, 1, 3), dtype=np.uint8), 0, 0, math.nan, 1)
        canvas.fill_between([0, 4], [0, math.nan], 4, BLACK)
        assert (canvas.pixels == 255).all()


def test_far_away_geometry() -> None:
    canvas = Canvas(4, 4, antialias=True)
    canvas.polygon([(-1e9, -1e9), (1e9, -1e9), (0, 1e9)], BLACK)
    assert (ink(canvas) == 1).all()


# --- rotate ---------------------------------------------------------------------------------------
def test_rotate() -> None:
    assert np.allclose(rotate([(1, 0), (0, 2)], math.pi / 2), [(0, 1), (-2, 0)])
    assert np.allclose(rotate((2, 1), math.pi, origin=(1, 1)), (0, 1))
    assert rotate(np.zeros((0, 2)), 1.0).shape == (0, 2)
    with pytest.raises(ValueError):
        rotate([(1, 2, 3)], 1.0)


# --- text -----------------------------------------------------------------------------------------
@dataclass
class FakeGlyph:
    mask: NDArray[np.float32]
    left: int
    top: int
    advance: int


class FakeFace:
    """Every character is a 1-px-wide bar: full from the baseline up 2 px, half below it."""

    ascent = 4
    descent = 2

    def layout(self, text: str) -> tuple[list[tuple[FakeGlyph, int]], int]:
        mask = np.array([[1.0], [1.0], [0.5]], dtype=np.float32)
        glyphs = [(FakeGlyph(mask, 1, 2, 3), 3 * k) for k in range(len(text))]
        return glyphs, 3 * len(text)


@pytest.fixture
def fake_face(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, bool]]:
    calls: list[tuple[float, bool]] = []

    def face(size: float = 12, bold: bool = False) -> FakeFace:
        calls.append((size, bold))
        return FakeFace()

    module = types.ModuleType("sekai.rendering.text")
    module.face = face  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sekai.rendering.text", module)
    return calls


def test_text_places_glyph_masks(fake_face: list[tuple[float, bool]]) -> None:
    canvas = Canvas(8, 8)  # text is antialiased even on a plain canvas
    assert canvas.text(2, 3, "ab", BLACK, size=14, bold=True) == 6
    assert fake_face == [(14, True)]
    expected = np.zeros((8, 8))
    expected[3:5, [3, 6]] = 1
    expected[2, [3, 6]] = 0.5
    assert np.abs(ink(canvas) - expected).max() <= 1 / 255


@pytest.mark.parametrize(
    ("align", "valign", "column", "baseline"),
    [
        ("left", "baseline", 9, 8),
        ("center", "baseline", 6, 8),
        ("right", "baseline", 3, 8),
        ("left", "top", 9, 4),
        ("left", "bottom", 9, 10),
        ("left", "middle", 9, 7),
        ("center", "middle", 6, 7),
    ],
)
def test_text_alignment(
    fake_face: Any, align: Any, valign: Any, column: int, baseline: int
) -> None:
    canvas = Canvas(16, 16)
    canvas.text(8.4, 8.3, "ab", BLACK, align=align, valign=valign)
    cover = ink(canvas)
    cols = np.flatnonzero(cover.max(axis=0))
    rows = np.flatnonzero(cover.max(axis=1) == 1)
    assert cols[0] == column and rows[0] == baseline


def test_text_clip_and_alpha(fake_face: Any) -> None:
    canvas = Canvas(8, 8)
    with canvas.clip(0, 0, 5, 8):
        assert canvas.text(2, 3, "ab", BLACK, alpha=0.5) == 6
    assert canvas.pixels[::-1][3, 3, 0] == 128 and (canvas.pixels[:, 5:] == 255).all()
    assert canvas.text(math.nan, 3, "ab", BLACK) == 6
    with pytest.raises(ValueError):
        canvas.text(0, 0, "a", BLACK, align="middle")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        canvas.text(0, 0, "a", BLACK, valign="center")  # type: ignore[arg-type]

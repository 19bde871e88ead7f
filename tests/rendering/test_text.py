"""Tests for sekai.rendering.text."""

from __future__ import annotations

import itertools
import math
from importlib import resources
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sekai.rendering import text
from sekai.rendering.text import Face, Glyph, face, font_sizes, text_width

EXTRA = "−·—–…°±×€£¥•←↑→↓≈≤≥∞"  # noqa: RUF001
CHARSET = "".join(chr(c) for c in range(0x20, 0x7F)) + EXTRA
DIGITS = "0123456789"
SIZES = tuple(range(9, 33))


def half_up(x: float) -> int:
    return math.floor(x + 0.5)


def kern(f: Face, a: str, b: str) -> int:
    return f.width(a + b) - f.glyph(a).advance - f.glyph(b).advance


def test_atlas_is_package_data_and_small():
    fonts = resources.files("sekai.rendering") / "fonts"
    atlas = fonts / "dejavu-sans.npz"
    assert len(atlas.read_bytes()) < 1_000_000
    assert "Bitstream" in (fonts / "LICENSE-DejaVu.txt").read_text(encoding="utf-8")


def test_font_sizes():
    assert font_sizes() == SIZES


def test_atlas_loaded_once():
    assert text._atlas() is text._atlas()


def test_every_character_of_the_set_is_in_the_atlas():
    fallback = face(12).glyph("?")
    for size in (9, 12, 32):
        for bold in (False, True):
            f = face(size, bold)
            missing = [ch for ch in CHARSET if ch != "?" and f.glyph(ch) is fallback]
            assert missing == []


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("bold", [False, True])
def test_metrics(size, bold):
    f = face(size, bold)
    assert (f.size, f.bold) == (size, bold)
    assert f.ascent >= f.cap_height > f.x_height > 0
    assert f.descent > 0
    assert f.glyph("H").top == f.cap_height
    assert f.glyph("x").top == f.x_height


@pytest.mark.parametrize(
    ("requested", "size"),
    [(12, 12), (12.4, 12), (12.5, 12), (12.6, 13), (9, 9), (8.5, 9), (5, 9), (0.2, 9)],
)
def test_sizes_round_and_snap_to_stored(requested, size):
    assert face(requested).size == size


def test_snapping_ties_go_to_the_smaller(monkeypatch):
    monkeypatch.setattr(text, "_atlas", lambda: SimpleNamespace(sizes=(10, 20)))
    assert text._target_size(15) == 10
    assert text._target_size(16) == 20
    assert text._target_size(3) == 10
    assert text._target_size(25) == 25


@pytest.mark.parametrize("size", [float("nan"), float("inf")])
def test_non_finite_size_is_refused(size):
    with pytest.raises(ValueError, match="finite"):
        face(size)


def test_face_size_must_be_positive():
    with pytest.raises(ValueError, match=">= 1"):
        Face(0)


def test_faces_and_glyphs_are_cached():
    assert face(12) is face(12)
    assert face(12.3) is face(12)
    assert face(5) is face(9)
    assert face(12, bold=True) is not face(12)
    assert face(40) is face(40)
    f = face(12)
    assert f.glyph("a") is f.glyph("a")
    assert repr(f) == "Face(size=12, bold=False)"


@pytest.mark.parametrize("size", [9, 12, 20, 32, 48])
@pytest.mark.parametrize("bold", [False, True])
def test_masks_are_read_only_float32_coverage(size, bold):
    f = face(size, bold)
    for ch in CHARSET:
        glyph = f.glyph(ch)
        assert isinstance(glyph, Glyph)
        assert glyph.mask.dtype == np.float32 and glyph.mask.ndim == 2
        assert not glyph.mask.flags.writeable
        if glyph.mask.size:
            assert glyph.mask.min() >= 0.0 and glyph.mask.max() <= 1.0
            assert glyph.mask.max() > 0.0
    assert f.glyph(" ").mask.shape == (0, 0)
    assert f.glyph(" ").advance > 0


def test_glyph_placement():
    f = face(12)
    h = f.glyph("H")
    assert h.top - h.mask.shape[0] == 0  # sits on the baseline
    g = f.glyph("g")
    assert g.top - g.mask.shape[0] < 0  # descends below it
    assert f.glyph("-").top < f.x_height


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("bold", [False, True])
def test_digits_are_tabular(size, bold):
    f = face(size, bold)
    assert len({f.glyph(d).advance for d in DIGITS}) == 1
    assert f.width("−1,234.5") == f.width("−9,876.0")  # noqa: RUF001
    assert all(kern(f, a, b) == 0 for a in DIGITS for b in "0.,%")


def test_kerning_is_applied_in_layout():
    f = face(12)
    placed, width = f.layout("AV")
    (a, pen_a), (v, pen_v) = placed
    assert pen_a == 0
    assert pen_v == a.advance + kern(f, "A", "V") < a.advance
    assert width == pen_v + v.advance
    assert f.width("To") < f.glyph("T").advance + f.glyph("o").advance


@given(st.text(alphabet=CHARSET + "éÅ中\n", max_size=20), st.sampled_from((9, 12, 17, 32, 40)))
@settings(max_examples=60, deadline=None)
def test_width_is_the_sum_of_advances_and_kerning(string, size):
    f = face(size)
    placed, width = f.layout(string)
    assert len(placed) == len(string)
    advances = [f.glyph(ch).advance for ch in string]
    kerning = [kern(f, a, b) for a, b in itertools.pairwise(string)]
    assert width == f.width(string) == sum(advances) + sum(kerning)
    assert [pen for _, pen in placed] == [
        sum(advances[:i]) + sum(kerning[:i]) for i in range(len(string))
    ]
    assert text_width(string, size) == width


def test_unknown_characters_fall_back():
    f = face(12)
    assert f.glyph("é") is f.glyph("e")
    assert f.glyph("Å") is f.glyph("A")
    assert f.glyph("\u00a0") is f.glyph(" ")
    assert f.glyph("中") is f.glyph("?")
    assert f.glyph("\n") is f.glyph("?")
    assert f.width("naïve") == f.width("naive")
    assert f.layout("é")[0][0][0] is f.glyph("e")


def test_glyph_takes_one_character():
    with pytest.raises(ValueError, match="one character"):
        face(12).glyph("ab")
    with pytest.raises(ValueError, match="one character"):
        face(12).glyph("")


@pytest.mark.parametrize("size", SIZES)
def test_bold_is_at_least_as_wide(size):
    regular, bold = face(size), face(size, bold=True)
    assert all(bold.glyph(ch).advance >= regular.glyph(ch).advance for ch in CHARSET)
    assert text_width("Portfolio value", size, bold=True) > text_width("Portfolio value", size)


def test_text_width():
    assert text_width("") == 0
    assert text_width("Equity") == face(12).width("Equity")
    assert text_width("Equity", 20, bold=True) == face(20, bold=True).width("Equity")


@pytest.mark.parametrize("size", [33, 48, 64])
def test_large_sizes_are_resampled_and_keep_their_size(size):
    large, source = face(size), face(32)
    scale = size / 32
    assert large.size == size
    assert large.ascent == half_up(source.ascent * scale)
    assert large.descent == half_up(source.descent * scale)
    assert large.cap_height == half_up(source.cap_height * scale)
    assert large.x_height == half_up(source.x_height * scale)
    h, h32 = large.glyph("H"), source.glyph("H")
    assert abs(h.top - large.cap_height) <= 1
    assert h.advance == half_up(h32.advance * scale)
    assert abs(h.mask.shape[0] - h32.mask.shape[0] * scale) <= 2
    assert abs(h.mask.shape[1] - h32.mask.shape[1] * scale) <= 2
    assert abs(large.width("Market value") - source.width("Market value") * scale) <= 12
    assert kern(large, "A", "V") == half_up(kern(source, "A", "V") * scale)
    assert len({large.glyph(d).advance for d in DIGITS}) == 1
    assert face(size, bold=True).size == size


def test_resampling_preserves_ink():
    # Coverage area grows with the square of the scale, up to edge blur.
    for ch in "Hgo%":
        small = face(32).glyph(ch).mask.sum()
        large = face(64).glyph(ch).mask.sum()
        assert large == pytest.approx(4 * small, rel=0.05)

"""Build the pre-rasterised font atlas used by ``sekai.rendering.text``.

A developer tool, not part of the package; it needs Pillow (with FreeType and Raqm). It
rasterises DejaVu Sans regular and bold at every stored size and writes
``src/sekai/rendering/fonts/dejavu-sans.npz`` (the font's licence, DejaVu's upstream
LICENSE, sits next to it as ``LICENSE-DejaVu.txt``). The font paths default to where Debian's
``fonts-dejavu-core`` package installs them; pass others on the command line elsewhere.

Usage: ``python tools/build_font_atlas.py [--regular TTF] [--bold TTF] [--output DIR]``

Atlas layout (all integers are whole pixels; y grows downwards in the masks):

* ``chars`` ``(N,) int32``: code points, in atlas order.
* ``sizes`` ``(S,) int16``: stored pixel sizes (em size).
* ``metrics`` ``(2, S, 4) int16``: ascent, descent (positive, below the baseline),
  cap height, x height; index 0 regular, 1 bold.
* ``glyphs`` ``(2, S, N, 6) int32``: left bearing, top (rows above the baseline of the
  mask's first row), advance, mask height, mask width, offset of the mask in ``pixels``.
* ``pixels`` ``(P,) uint8``: every coverage mask, row-major, concatenated.
* ``kerning`` ``(K, 5) int16``: weight, size index, left char index, right char index,
  adjustment; only non-zero pairs, none involving a digit (digits are tabular).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw, ImageFont

SIZES = range(9, 33)
# Minus, middle dot, em and en dashes, ellipsis, degree, plus-minus, times, euro, pound,
# yen, bullet, four arrows, almost equal, less or equal, greater or equal, infinity.
EXTRA_CHARS = (
    "\u2212\u00b7\u2014\u2013\u2026\u00b0\u00b1\u00d7\u20ac\u00a3\u00a5\u2022"
    "\u2190\u2191\u2192\u2193\u2248\u2264\u2265\u221e"
)
CHARS = "".join(chr(c) for c in range(0x20, 0x7F)) + EXTRA_CHARS
DIGITS = "0123456789"
FONTS = Path("/usr/share/fonts/truetype/dejavu")
OUTPUT = Path(__file__).resolve().parents[1] / "src" / "sekai" / "rendering" / "fonts"


def _round(x: float) -> int:
    return math.floor(x + 0.5)


def _rasterise(font: ImageFont.FreeTypeFont, ch: str) -> tuple[NDArray[np.uint8], int, int]:
    """Coverage mask of one glyph drawn at the origin, trimmed, with its left and top."""
    x0, y0, x1, y1 = (int(v) for v in font.getbbox(ch, anchor="ls"))
    if x1 <= x0 or y1 <= y0:
        return np.zeros((0, 0), np.uint8), 0, 0
    image = Image.new("L", (x1 - x0, y1 - y0), 0)
    ImageDraw.Draw(image).text((-x0, -y0), ch, fill=255, font=font, anchor="ls")
    mask = np.asarray(image, dtype=np.uint8)
    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    if rows.size == 0:
        return np.zeros((0, 0), np.uint8), 0, 0
    mask = mask[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    return np.ascontiguousarray(mask), x0 + int(cols[0]), -(y0 + int(rows[0]))


def _kerning(shaper: ImageFont.FreeTypeFont) -> dict[tuple[int, int], int]:
    """Whole-pixel kerning of every pair without a digit, from the font's GPOS table."""
    plain = ["-liga", "-clig"]
    letters = [i for i, ch in enumerate(CHARS) if ch not in DIGITS]
    pairs: dict[tuple[int, int], int] = {}
    for a in letters:
        for b in letters:
            text = CHARS[a] + CHARS[b]
            kerned = shaper.getlength(text, features=plain)
            unkerned = shaper.getlength(text, features=[*plain, "-kern"])
            value = _round(kerned - unkerned)
            if value:
                pairs[a, b] = value
    return pairs


def build(regular: Path, bold: Path) -> dict[str, NDArray[np.generic]]:
    """Rasterise both weights at every size into the atlas arrays."""
    sizes = list(SIZES)
    metrics = np.zeros((2, len(sizes), 4), np.int16)
    glyphs = np.zeros((2, len(sizes), len(CHARS), 6), np.int32)
    chunks: list[NDArray[np.uint8]] = []
    offset = 0
    kerning: list[tuple[int, int, int, int, int]] = []
    for weight, path in enumerate((regular, bold)):
        for s, size in enumerate(sizes):
            # Hinted outlines and advances from the basic engine; kerning needs Raqm.
            font = ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.BASIC)
            shaper = ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.RAQM)
            ascent, descent = font.getmetrics()
            cap_height = -int(font.getbbox("H", anchor="ls")[1])
            x_height = -int(font.getbbox("x", anchor="ls")[1])
            metrics[weight, s] = (ascent, descent, cap_height, x_height)
            digit_advance = max(_round(font.getlength(d)) for d in DIGITS)
            for c, ch in enumerate(CHARS):
                mask, left, top = _rasterise(font, ch)
                advance = _round(font.getlength(ch))
                if ch in DIGITS:
                    left += (digit_advance - advance) // 2
                    advance = digit_advance
                height, width = mask.shape
                glyphs[weight, s, c] = (left, top, advance, height, width, offset)
                chunks.append(mask.ravel())
                offset += mask.size
            for (a, b), value in _kerning(shaper).items():
                kerning.append((weight, s, a, b, value))
    return {
        "chars": np.array([ord(ch) for ch in CHARS], np.int32),
        "sizes": np.array(sizes, np.int16),
        "metrics": metrics,
        "glyphs": glyphs,
        "pixels": np.concatenate(chunks),
        "kerning": np.array(kerning, np.int16).reshape(-1, 5),
    }


def main() -> None:
    """Parse the command line, build the atlas and write it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--regular", type=Path, default=FONTS / "DejaVuSans.ttf")
    parser.add_argument("--bold", type=Path, default=FONTS / "DejaVuSans-Bold.ttf")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args()
    args.output.mkdir(parents=True, exist_ok=True)
    atlas = args.output / "dejavu-sans.npz"
    np.savez_compressed(atlas, allow_pickle=False, **build(args.regular, args.bold))
    print(f"wrote {atlas} ({atlas.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()

"""Text from a pre-rasterised font atlas: faces, glyphs and line layout.

The atlas ``fonts/dejavu-sans.npz`` holds DejaVu Sans, regular and bold, at 9 to 32 px, with
hinted whole-pixel advances, kerning and tabular digits. Masks are stored top row first:
row ``i`` of a glyph's mask lies ``top - i - 1`` whole rows above the baseline (negative
means below), and column ``j`` starts ``left + j`` pixels right of the pen.
"""

from __future__ import annotations

import functools
import math
import unicodedata
from dataclasses import dataclass
from importlib import resources

import numpy as np
from numpy.typing import NDArray

__all__ = ["Face", "Glyph", "face", "font_sizes", "text_width"]

_ATLAS = "dejavu-sans.npz"
_FALLBACK = "?"


@dataclass(frozen=True, slots=True, eq=False)
class Glyph:
    """One rasterised character placed relative to the pen on the baseline.

    ``mask`` is a read-only ``(h, w) float32`` coverage array in ``[0, 1]``; ``top`` is the
    number of pixels from the baseline up to the mask's first row (its top edge).
    """

    mask: NDArray[np.float32]
    left: int
    top: int
    advance: int


class _Atlas:
    """The atlas arrays (layout documented in the script that builds them)."""

    def __init__(self, arrays: dict[str, NDArray[np.integer]]) -> None:
        self.chars = "".join(chr(c) for c in arrays["chars"].tolist())
        self.index = {ch: i for i, ch in enumerate(self.chars)}
        self.sizes: tuple[int, ...] = tuple(arrays["sizes"].tolist())
        self.metrics = arrays["metrics"]
        self.glyphs = arrays["glyphs"]
        self.pixels = arrays["pixels"]
        self.kerning = arrays["kerning"]


@functools.cache
def _atlas() -> _Atlas:
    source = resources.files("sekai.rendering") / "fonts" / _ATLAS
    with source.open("rb") as file, np.load(file) as data:
        return _Atlas({name: data[name] for name in data.files})


def _round(x: float) -> int:
    return math.floor(x + 0.5)


def _target_size(size: int) -> int:
    """The size a face of ``size`` pixels has: snapped to a stored size unless larger."""
    sizes = _atlas().sizes
    if size > sizes[-1]:
        return size
    return min(sizes, key=lambda stored: (abs(stored - size), stored))


class Face:
    """The font at one pixel size and weight: metrics, glyphs and layout.

    Use :func:`face`, which caches. Sizes up to the largest stored one snap to the nearest
    stored size (ties to the smaller); larger sizes are resampled bilinearly from the largest
    and keep the requested size. ``descent`` is positive (pixels below the baseline).
    """

    __slots__ = (
        "_glyphs",
        "_kerning",
        "_scale",
        "_slot",
        "ascent",
        "bold",
        "cap_height",
        "descent",
        "size",
        "x_height",
    )

    def __init__(self, size: int, bold: bool = False) -> None:
        if size < 1:
            raise ValueError(f"size must be >= 1 pixel, got {size}.")
        atlas = _atlas()
        self.size = _target_size(size)
        self.bold = bool(bold)
        stored = min(self.size, atlas.sizes[-1])
        self._scale = self.size / stored
        self._slot = (int(self.bold), atlas.sizes.index(stored))
        ascent, descent, cap_height, x_height = atlas.metrics[self._slot].tolist()
        self.ascent = self._scaled(ascent)
        self.descent = self._scaled(descent)
        self.cap_height = self._scaled(cap_height)
        self.x_height = self._scaled(x_height)
        pairs = atlas.kerning[
            (atlas.kerning[:, 0] == self._slot[0]) & (atlas.kerning[:, 1] == self._slot[1])
        ]
        self._kerning = {
            (atlas.chars[a], atlas.chars[b]): self._scaled(value)
            for _, _, a, b, value in pairs.tolist()
        }
        self._glyphs: dict[str, Glyph] = {}

    def __repr__(self) -> str:
        return f"Face(size={self.size}, bold={self.bold})"

    def _scaled(self, value: int) -> int:
        return _round(value * self._scale)

    def glyph(self, ch: str) -> Glyph:
        """The glyph of one character: accents stripped (NFKD) when missing, else ``?``."""
        if len(ch) != 1:
            raise ValueError(f"glyph() takes one character, got {ch!r}.")
        return self._glyph(_resolve(ch))

    def _glyph(self, key: str) -> Glyph:
        glyph = self._glyphs.get(key)
        if glyph is None:
            glyph = self._glyphs[key] = self._load(key)
        return glyph

    def _load(self, key: str) -> Glyph:
        atlas = _atlas()
        weight, stored = self._slot
        row = atlas.glyphs[weight, stored, atlas.index[key]].tolist()
        left, top, advance, height, width, offset = row
        coverage = atlas.pixels[offset : offset + height * width].reshape(height, width)
        mask = coverage.astype(np.float32) / np.float32(255)
        if self._scale != 1:
            mask, left, top = _resample(mask, left, top, self._scale)
            advance = self._scaled(advance)
        mask.setflags(write=False)
        return Glyph(mask, left, top, advance)

    def layout(self, text: str) -> tuple[list[tuple[Glyph, int]], int]:
        """Each character's glyph with its pen offset (kerning applied), and the total width."""
        placed: list[tuple[Glyph, int]] = []
        pen = 0
        previous = ""
        for ch in text:
            key = _resolve(ch)
            pen += self._kerning.get((previous, key), 0)
            glyph = self._glyph(key)
            placed.append((glyph, pen))
            pen += glyph.advance
            previous = key
        return placed, pen

    def width(self, text: str) -> int:
        """Advance width of ``text`` in pixels, kerning included."""
        return self.layout(text)[1]


def face(size: float = 12, bold: bool = False) -> Face:
    """The cached face for ``size`` pixels, rounded to a whole number (halves down), >= 1."""
    if not math.isfinite(size):
        raise ValueError(f"size must be finite, got {size}.")
    return _face(_target_size(max(math.ceil(size - 0.5), 1)), bool(bold))


@functools.lru_cache(maxsize=64)
def _face(size: int, bold: bool) -> Face:
    return Face(size, bold)


def text_width(text: str, size: float = 12, bold: bool = False) -> int:
    """Advance width of ``text`` in pixels at ``size``, kerning included."""
    return face(size, bold).width(text)


def font_sizes() -> tuple[int, ...]:
    """The pixel sizes stored in the atlas."""
    return _atlas().sizes


def _resolve(ch: str) -> str:
    """The atlas character drawn for ``ch``."""
    index = _atlas().index
    if ch in index:
        return ch
    base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    return base if base in index else _FALLBACK


def _resample(
    mask: NDArray[np.float32], left: int, top: int, scale: float
) -> tuple[NDArray[np.float32], int, int]:
    """Bilinear enlargement of a mask about the pen origin, with its new left and top."""
    height, width = mask.shape
    new_left = math.floor(left * scale)
    new_top = math.ceil(top * scale)
    columns = _interpolation(
        math.ceil((left + width) * scale) - new_left, width, new_left, left, scale
    )
    rows = _interpolation(
        math.ceil((height - top) * scale) + new_top, height, -new_top, -top, scale
    )
    enlarged = np.clip(rows @ mask.astype(np.float64) @ columns.T, 0.0, 1.0)
    return enlarged.astype(np.float32), new_left, new_top


def _interpolation(
    count: int, source: int, start: int, source_start: int, scale: float
) -> NDArray[np.float64]:
    """``(count, source)`` bilinear weights along one axis, zero beyond the source.

    Output pixel ``i`` spans ``[start + i, start + i + 1]`` at the new size; source pixel
    ``j`` spans ``[source_start + j, source_start + j + 1]`` at the stored size.
    """
    centres = (start + np.arange(count) + 0.5) / scale - source_start - 0.5
    below = np.floor(centres)
    fraction = centres - below
    # One padding column each side takes the weight of samples just outside the mask.
    weights = np.zeros((count, source + 2))
    first = below.astype(np.intp) + 1
    outputs = np.arange(count)
    weights[outputs, first] = 1.0 - fraction
    weights[outputs, first + 1] = fraction
    return weights[:, 1:-1]

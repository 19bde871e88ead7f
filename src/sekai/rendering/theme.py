"""Colour themes and colour helpers."""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["DARK", "LIGHT", "THEMES", "Theme", "get_theme", "luminance", "mix", "rgb"]

Color = tuple[int, int, int]
ColorLike = str | Sequence[float]

_HEX = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_ROLES = (
    "background",
    "grid",
    "axis",
    "text",
    "text_secondary",
    "text_muted",
    "price",
    "accent",
    "neutral",
    "up",
    "down",
    "highlight",
)


def rgb(color: ColorLike) -> Color:
    """``"#rrggbb"``, ``"#rgb"`` or an ``(r, g, b)`` sequence as an int tuple."""
    if isinstance(color, str):
        if not _HEX.fullmatch(color):
            raise ValueError(f"Bad colour {color!r}: expected '#rrggbb' or '#rgb' hex digits.")
        digits = color[1:] if len(color) == 7 else "".join(ch * 2 for ch in color[1:])
        return (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16))
    values = tuple(color)
    if len(values) != 3:
        raise ValueError(f"Bad colour {color!r}: expected 3 components (r, g, b).")
    out: list[int] = []
    for value in values:
        if (
            isinstance(value, bool)
            or not isinstance(value, numbers.Real)
            or not math.isfinite(value)
            or value != int(value)
        ):
            raise ValueError(f"Bad colour {color!r}: components must be whole numbers.")
        if not 0 <= value <= 255:
            raise ValueError(f"Bad colour {color!r}: components must lie in [0, 255].")
        out.append(int(value))
    return (out[0], out[1], out[2])


def mix(a: ColorLike, b: ColorLike, amount: float) -> Color:
    """``a + (b - a)·amount`` per channel, rounded half up; ``amount`` is clamped into [0, 1]."""
    ca, cb = rgb(a), rgb(b)
    t = min(max(float(amount), 0.0), 1.0)
    r, g, bl = (math.floor(x + (y - x) * t + 0.5) for x, y in zip(ca, cb, strict=True))
    return (r, g, bl)


def luminance(color: ColorLike) -> float:
    """WCAG relative luminance, from 0 (black) to 1 (white)."""
    linear = []
    for channel in rgb(color):
        c = channel / 255
        linear.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


@dataclass(frozen=True)
class Theme:
    """Named colour roles and a series palette; colours may be given as hex or tuples."""

    name: str
    background: Color
    grid: Color
    axis: Color
    text: Color
    text_secondary: Color
    text_muted: Color
    price: Color
    accent: Color
    neutral: Color
    up: Color
    down: Color
    highlight: Color
    series: tuple[Color, ...]

    def __post_init__(self) -> None:
        for role in _ROLES:
            object.__setattr__(self, role, rgb(getattr(self, role)))
        object.__setattr__(self, "series", tuple(rgb(c) for c in self.series))

    def color(self, slot: int) -> Color:
        """``series[slot]``, or ``neutral`` for a slot outside the palette (never cycles)."""
        if 0 <= slot < len(self.series):
            return self.series[slot]
        return self.neutral

    def ink_on(self, fill: ColorLike) -> Color:
        """Text colour for ``fill``: the darker of background/text on a light fill, else the
        lighter."""
        darker, lighter = sorted((self.background, self.text), key=luminance)
        return darker if luminance(fill) > 0.32 else lighter

    def with_colors(
        self, *, series: Sequence[ColorLike] | None = None, **roles: ColorLike
    ) -> Theme:
        """A copy with some roles (and optionally the series) replaced."""
        unknown = sorted(set(roles) - set(_ROLES))
        if unknown:
            raise TypeError(f"Unknown theme roles {unknown}; expected some of {', '.join(_ROLES)}.")
        changes: dict[str, Any] = {role: rgb(value) for role, value in roles.items()}
        if series is not None:
            changes["series"] = tuple(rgb(c) for c in series)
        return dataclasses.replace(self, **changes)


def _theme(name: str, roles: str, series: str) -> Theme:
    colors = dict(zip(_ROLES, (rgb(h) for h in roles.split()), strict=True))
    return Theme(name=name, series=tuple(rgb(h) for h in series.split()), **colors)


LIGHT = _theme(
    "light",
    "#f8f6f2 #eae3d7 #cfc7b8 #1f271b #4d5545 #6f6c5f #1f271b #107c5a #a8a294 #439458 #a12f2f "
    "#bd8928",
    "#107c5a #bd8928 #82498b #c45e3d #0098a9 #7b8935 #3d73b6 #cc6b83",
)
DARK = _theme(
    "dark",
    "#161c13 #262f22 #3b4636 #ece3d0 #c4bfae #8e9483 #ece3d0 #3b9a76 #6f7566 #3aa273 #b94642 "
    "#c0aa81",
    "#3b9a76 #bc8726 #a86cb1 #cf6746 #0ba5b6 #808f3b #578ed4 #d16f88",
)
THEMES: Mapping[str, Theme] = MappingProxyType({"light": LIGHT, "dark": DARK})


def get_theme(theme: str | Theme) -> Theme:
    """``theme`` itself, or the built-in theme of that name (``"light"`` or ``"dark"``)."""
    if isinstance(theme, Theme):
        return theme
    if isinstance(theme, str) and theme in THEMES:
        return THEMES[theme]
    raise ValueError(f"Unknown theme {theme!r}: expected a Theme or one of {list(THEMES)}.")

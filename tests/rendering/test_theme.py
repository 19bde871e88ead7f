"""Themes: exact palettes, roles, helpers."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from sekai.rendering import DARK, LIGHT, Theme, get_theme
from sekai.rendering.theme import THEMES, luminance, mix, rgb

ROLES = {
    "background": ("#f8f6f2", "#161c13"),
    "grid": ("#eae3d7", "#262f22"),
    "axis": ("#cfc7b8", "#3b4636"),
    "text": ("#1f271b", "#ece3d0"),
    "text_secondary": ("#4d5545", "#c4bfae"),
    "text_muted": ("#6f6c5f", "#8e9483"),
    "price": ("#1f271b", "#ece3d0"),
    "accent": ("#107c5a", "#3b9a76"),
    "neutral": ("#a8a294", "#6f7566"),
    "up": ("#439458", "#3aa273"),
    "down": ("#a12f2f", "#b94642"),
    "highlight": ("#bd8928", "#c0aa81"),
}
SERIES = (
    "#107c5a #bd8928 #82498b #c45e3d #0098a9 #7b8935 #3d73b6 #cc6b83",
    "#3b9a76 #bc8726 #a86cb1 #cf6746 #0ba5b6 #808f3b #578ed4 #d16f88",
)


def hex_of(color: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{c:02x}" for c in color)


@pytest.mark.parametrize(("theme", "column"), [(LIGHT, 0), (DARK, 1)])
def test_palettes_are_exact(theme: Theme, column: int) -> None:
    for role, values in ROLES.items():
        assert hex_of(getattr(theme, role)) == values[column], role
    assert " ".join(hex_of(c) for c in theme.series) == SERIES[column]
    assert all(type(v) is int for c in theme.series for v in c)


def test_names_and_lookup() -> None:
    assert (LIGHT.name, DARK.name) == ("light", "dark")
    assert dict(THEMES) == {"light": LIGHT, "dark": DARK}
    assert get_theme("light") is LIGHT and get_theme("dark") is DARK
    custom = LIGHT.with_colors(accent="#000")
    assert get_theme(custom) is custom
    for bad in ("blue", "Light", 3, None):
        with pytest.raises(ValueError):
            get_theme(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        THEMES["other"] = LIGHT  # type: ignore[index]


def test_color_slots_never_cycle() -> None:
    assert LIGHT.color(0) == rgb("#107c5a") and LIGHT.color(7) == rgb("#cc6b83")
    assert LIGHT.color(8) == LIGHT.neutral and LIGHT.color(-1) == LIGHT.neutral


def test_ink_on() -> None:
    assert LIGHT.ink_on("#ffffff") == LIGHT.text  # light fill: the darker
    assert LIGHT.ink_on((0, 0, 0)) == LIGHT.background
    assert DARK.ink_on("#ffffff") == DARK.background
    assert DARK.ink_on("#000000") == DARK.text
    # Only a fill brighter than luminance 0.32 takes the darker ink.
    grey = next(g for g in range(256) if luminance((g, g, g)) > 0.32)
    assert LIGHT.ink_on((grey, grey, grey)) == LIGHT.text
    assert LIGHT.ink_on((grey - 1,) * 3) == LIGHT.background


def test_with_colors_copies() -> None:
    changed = DARK.with_colors(up="#fff", down=(1, 2, 3), series=["#000000", (4, 5, 6)])
    assert changed.up == (255, 255, 255) and changed.down == (1, 2, 3)
    assert changed.series == ((0, 0, 0), (4, 5, 6)) and changed.color(2) == DARK.neutral
    assert changed.text == DARK.text and DARK.up == rgb("#3aa273")
    with pytest.raises(TypeError):
        DARK.with_colors(colour="#fff")
    with pytest.raises(ValueError):
        DARK.with_colors(up="#ggg")
    with pytest.raises(dataclasses.FrozenInstanceError):
        DARK.up = (0, 0, 0)  # type: ignore[misc]


def test_theme_accepts_hex() -> None:
    hexes: dict[str, Any] = dict.fromkeys(ROLES, "#010203")
    theme = Theme("t", **hexes, series=("#fff",))  # type: ignore[arg-type]
    assert theme.grid == (1, 2, 3) and theme.series == ((255, 255, 255),)


def test_rgb() -> None:
    assert rgb("#1f271b") == (31, 39, 27)
    assert rgb("#ABC") == (170, 187, 204)
    assert rgb((1, 2, 3)) == (1, 2, 3) and rgb([4.0, 5, 6]) == (4, 5, 6)
    for bad in ("1f271b", "#12345", "#12345g", "#+12345", "", "#"):
        with pytest.raises(ValueError):
            rgb(bad)
    for bad_tuple in ((1, 2), (1, 2, 256), (1, 2, -1), (1, 2, 3.5), (1, 2, float("nan"))):
        with pytest.raises(ValueError):
            rgb(bad_tuple)


def test_mix_and_luminance() -> None:
    assert mix((0, 0, 0), (255, 255, 255), 0.5) == (128, 128, 128)  # halves round up
    assert mix("#000", "#fff", 0) == (0, 0, 0) and mix("#000", "#fff", 1) == (255, 255, 255)
    assert mix("#000", "#fff", 2) == (255, 255, 255)  # clamped
    assert mix((10, 20, 30), (20, 40, 60), 0.25) == (13, 25, 38)
    assert luminance("#fff") == pytest.approx(1.0) and luminance("#000") == 0.0
    assert luminance((255, 0, 0)) == pytest.approx(0.2126)
    assert luminance((128, 128, 128)) == pytest.approx(0.2158605, abs=1e-6)
    assert luminance((10, 10, 10)) == pytest.approx(10 / 255 / 12.92)

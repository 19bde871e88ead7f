"""Rendering: renderers, a raster canvas, text, themes, charts, dashboards and recording."""

from sekai.rendering import charts
from sekai.rendering.canvas import Canvas, rotate
from sekai.rendering.dashboard import Dashboard, Stat
from sekai.rendering.history import View
from sekai.rendering.layout import Column, Panel, Row
from sekai.rendering.panels import BarChart, LineChart, Series, StackedArea
from sekai.rendering.recorder import RecordFrames, save_gif, save_video
from sekai.rendering.renderer import ANSIString, BaseRenderer, Renderer, RenderFrame, RGBArray
from sekai.rendering.text import text_width
from sekai.rendering.theme import DARK, LIGHT, Theme, get_theme

__all__ = [
    "Renderer",
    "BaseRenderer",
    "RenderFrame",
    "RGBArray",
    "ANSIString",
    "Canvas",
    "rotate",
    "text_width",
    "RecordFrames",
    "save_gif",
    "save_video",
    "Dashboard",
    "Panel",
    "View",
    "Row",
    "Column",
    "Series",
    "Stat",
    "LineChart",
    "BarChart",
    "StackedArea",
    "Theme",
    "LIGHT",
    "DARK",
    "get_theme",
    "charts",
]

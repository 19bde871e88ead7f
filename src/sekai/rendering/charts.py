"""Chart helpers in one namespace: layout boxes, nice ticks, number formatting and plot marks."""

from sekai.rendering.box import Box as Box
from sekai.rendering.plot import LegendItem as LegendItem
from sekai.rendering.plot import Marker as Marker
from sekai.rendering.plot import Plot as Plot
from sekai.rendering.plot import Swatch as Swatch
from sekai.rendering.plot import legend as legend
from sekai.rendering.plot import legend_width as legend_width
from sekai.rendering.plot import shade_steps as shade_steps
from sekai.rendering.plot import triangle as triangle
from sekai.rendering.ticks import MINUS as MINUS
from sekai.rendering.ticks import Ticks as Ticks
from sekai.rendering.ticks import decimals_for as decimals_for
from sekai.rendering.ticks import format_number as format_number
from sekai.rendering.ticks import nice_step as nice_step
from sekai.rendering.ticks import nice_ticks as nice_ticks
from sekai.rendering.ticks import tick_count as tick_count
from sekai.rendering.ticks import tick_labels as tick_labels
from sekai.rendering.ticks import value_range as value_range

__all__ = [
    "MINUS",
    "Marker",
    "Swatch",
    "Box",
    "nice_step",
    "nice_ticks",
    "decimals_for",
    "format_number",
    "tick_labels",
    "value_range",
    "tick_count",
    "Plot",
    "legend",
    "legend_width",
    "triangle",
    "shade_steps",
]

"""Dashboards: a header of stats over chart panels that follow an env through its episode.

A ``Dashboard`` records what its panels ask for (``Panel.sources``) at every render, keeps one
history per env, and draws each panel into its box of the layout (``Row`` and ``Column``
split the area by weight). Panels read their data through a ``View``.

Kept paths: ``shade_steps`` (in ``plot``) and ``tick_count`` (in ``ticks``) also import from here.
"""

from __future__ import annotations

import math
import numbers
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from sekai.rendering.box import Box
from sekai.rendering.canvas import Canvas
from sekai.rendering.history import View as View
from sekai.rendering.history import _History
from sekai.rendering.layout import Column as Column
from sekai.rendering.layout import Panel as Panel
from sekai.rendering.layout import Row as Row
from sekai.rendering.layout import place
from sekai.rendering.panels import BarChart as BarChart
from sekai.rendering.panels import LineChart as LineChart
from sekai.rendering.panels import Series as Series
from sekai.rendering.panels import StackedArea as StackedArea
from sekai.rendering.plot import shade_steps as shade_steps
from sekai.rendering.plot import triangle
from sekai.rendering.renderer import BaseRenderer
from sekai.rendering.sources import ColorSpec as ColorSpec
from sekai.rendering.sources import Source as Source
from sekai.rendering.sources import finite_number, is_source, positive_number
from sekai.rendering.sources import read as read
from sekai.rendering.sources import resolve_color as resolve_color
from sekai.rendering.text import text_width
from sekai.rendering.theme import Theme, get_theme
from sekai.rendering.ticks import MINUS, format_number
from sekai.rendering.ticks import tick_count as tick_count
from sekai.utils.validation import check_int

__all__ = [
    "Source",
    "read",
    "ColorSpec",
    "resolve_color",
    "Series",
    "Stat",
    "Panel",
    "Row",
    "Column",
    "View",
    "LineChart",
    "BarChart",
    "StackedArea",
    "Dashboard",
]

_DASH = "\u2014"

# Layout in pixels at scale 1 (a 720 x 450 frame).
_BASE_WIDTH, _BASE_HEIGHT = 720, 450
_MIN_WIDTH, _MIN_HEIGHT = 160, 120
_MARGIN = 16.0
_HEADER = 64.0
_PANEL_GAP = 16.0
_GUTTER = 58.0
_STAT_GAP = 24.0
# Header baselines, measured down from the top edge.
_TITLE_BASELINE, _SUBTITLE_BASELINE = 30.0, 48.0
_LABEL_BASELINE, _VALUE_BASELINE = 24.0, 46.0


def _snapshot(value: Any) -> Any:
    """A copy of a mutable array or list, so later changes in the env do not rewrite history."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, list):
        return list(value)
    return value


@dataclass(frozen=True)
class Stat:
    """A header figure: its label, value source, format and optional change since the episode
    started (``delta="relative"`` as a percentage, ``"absolute"`` in the value's format)."""

    label: str
    source: Source
    format: str | Callable[[Any], Any] = "{:,.2f}"
    delta: Literal["relative", "absolute"] | None = None
    higher_is_better: bool = True

    def __post_init__(self) -> None:
        if self.delta not in (None, "relative", "absolute"):
            raise ValueError(f"delta must be None, 'relative' or 'absolute', got {self.delta!r}.")

    def text(self, value: Any) -> str:
        """``value`` formatted; ``—`` for None or a non-finite float; a leading hyphen's text
        gets true minus signs."""
        if value is None or (isinstance(value, float | np.floating) and not math.isfinite(value)):
            return _DASH
        out = str(self.format(value)) if callable(self.format) else self.format.format(value)
        return out.replace("-", MINUS) if out.startswith("-") else out


def _size(value: Any, least: int, name: str) -> int:
    return check_int(value, f"Dashboard {name}", low=least)


def _count(value: Any) -> bool:
    """Whether ``value`` is a positive int (not a bool)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) > 0


class Dashboard(BaseRenderer):
    """A renderer drawing a header (title, subtitle, stats, progress) over a layout of panels.

    Each env (keyed by ``env.unwrapped``) gets its own history of what the panels record.
    The ``step`` source is the episode clock: 0, or less than the last recorded value, starts
    a new history; the same value replaces the last sample. ``horizon`` is where the time axis
    ends at least: ``"auto"`` (a positive int ``episode_length`` or ``n_steps`` of the base env,
    else ``spec.max_episode_steps``), a number, a source or None. With ``window`` only the
    last ``window`` steps are kept and shown.

    A history that starts after the episode did (a first frame at the end of an episode)
    begins with the steps before that ``_earlier`` reads from the env; where it reads none,
    the frame says so on each time series and the stats show no change since the start.
    ``_episode`` tells episodes apart where the clock cannot.
    """

    def __init__(
        self,
        *items: Any,
        title: str | Callable[[Any], Any] | None = None,
        subtitle: str | Callable[[Any], Any] | None = None,
        stats: Sequence[Stat] = (),
        heights: Sequence[float] | None = None,
        width: int = 720,
        height: int = 450,
        theme: str | Theme = "light",
        step: Source = "elapsed_steps",
        horizon: float | Source | None = "auto",
        window: int | None = None,
    ) -> None:
        self.width = _size(width, _MIN_WIDTH, "width")
        self.height = _size(height, _MIN_HEIGHT, "height")
        self.window = None if window is None else _size(window, 1, "window")
        self.scale = min(self.width / _BASE_WIDTH, self.height / _BASE_HEIGHT)
        self.theme = get_theme(theme)
        for name, text in (("title", title), ("subtitle", subtitle)):
            if text is not None and not is_source(text):
                raise TypeError(f"Dashboard {name} must be a str or a callable, got {text!r}.")
        self.title = title
        self.subtitle = subtitle
        self.stats = tuple(stats)
        for stat in self.stats:
            if not isinstance(stat, Stat):
                raise TypeError(f"Dashboard stats must be Stat objects, got {stat!r}.")
        if not is_source(step):
            raise TypeError(f"Dashboard step must be a source, got {step!r}.")
        self.step = step
        if horizon is not None and not is_source(horizon):
            if isinstance(horizon, bool):
                raise TypeError(f"Dashboard horizon cannot be a bool, got {horizon!r}.")
            positive_number(horizon, "Dashboard horizon")
        self.horizon = horizon
        self._histories: weakref.WeakKeyDictionary[Any, _History] = weakref.WeakKeyDictionary()
        # Envs that cannot be weakly referenced, by id; the env is kept so its id stays unique.
        self._by_id: dict[int, tuple[Any, _History]] = {}
        self.set_layout(*items, heights=heights)

    # layout -----------------------------------------------------------------------------------
    def set_layout(self, *items: Any, heights: Sequence[float] | None = None) -> None:
        """Replace the layout (items stacked top first) and forget every history."""
        self.root = Column(*items, heights=heights)
        s = self.scale
        body = Box(_MARGIN * s, _MARGIN * s, self.width - _MARGIN * s, self.height - _HEADER * s)
        placed = list(place(self.root, body, _PANEL_GAP * s))
        self.panels = [panel for panel, _ in placed]
        self._boxes = [box for _, box in placed]
        # Time series stacked with equal widths share one time axis, labelled on the lowest.
        series_boxes = [box for panel, box in placed if panel.timeseries]
        self._show_x = [
            panel.timeseries and not any(_shares_axis(other, box) for other in series_boxes)
            for panel, box in placed
        ]
        self.reset()

    def check(self, env: Any) -> None:
        """Raise if this dashboard cannot draw ``env`` (a hook; accepts anything here)."""

    def reset(self, env: Any = None) -> None:
        """Forget the history of ``env``, or of every env."""
        if env is None:
            self._histories.clear()
            self._by_id.clear()
            return
        base = getattr(env, "unwrapped", env)
        try:
            self._histories.pop(base, None)
        except TypeError:
            self._by_id.pop(id(base), None)

    # recording ----------------------------------------------------------------------------
    def _history(self, env: Any) -> _History | None:
        base = getattr(env, "unwrapped", env)
        try:
            return self._histories.get(base)
        except TypeError:
            entry = self._by_id.get(id(base))
            return None if entry is None else entry[1]

    def _keep(self, env: Any, history: _History) -> None:
        base = getattr(env, "unwrapped", env)
        try:
            self._histories[base] = history
        except TypeError:
            self._by_id[id(base)] = (base, history)

    def _clock(self, env: Any) -> float | None:
        """The episode clock, or None when the ``step`` source does not exist."""
        try:
            value = read(env, self.step)
        except AttributeError:
            return None
        return None if value is None else float(value)

    def _earlier(self, env: Any, step: float) -> list[tuple[float, Any]]:
        """Stand-ins for ``env`` at its steps before ``step``, oldest first, as ``(step,
        stand-in)``: objects the panels' and stats' sources read as they would have read
        ``env`` then. None here; dashboards of envs that keep their episode give them."""
        return []

    def _episode(self, env: Any) -> Any:
        """Which episode ``env`` is in, where the env counts them (a change starts a new
        history); None here."""
        return None

    def _samples(self, env: Any) -> dict[str, Any]:
        """What the panels and stats read of ``env`` now, by history key."""
        samples = {
            f"{index}:{key}": _snapshot(read(env, source))
            for index, panel in enumerate(self.panels)
            for key, source in panel.sources().items()
        }
        for index, stat in enumerate(self.stats):
            samples[f"stat:{index}"] = _snapshot(read(env, stat.source))
        return samples

    def _record(self, env: Any) -> _History:
        """Record the panels' and stats' sources for ``env``'s current step; the history."""
        history = self._history(env)
        last = history.steps[-1] if history is not None and history.steps else None
        clock = self._clock(env)
        episode = self._episode(env)
        if clock is None:
            step = 0.0 if last is None else last + 1.0
            fresh = last is None
        else:
            step = clock
            fresh = last is None or clock == 0 or clock < last
        if history is None or fresh or history.episode != episode:
            fresh = True
            history = _History(episode)
            earlier = self._earlier(env, step) if step > 0 else []
            first = earlier[0][1] if earlier else env
            for index, panel in enumerate(self.panels):
                for key, source in panel.context().items():
                    history.context[f"{index}:{key}"] = _snapshot(read(first, source))
            for when, stand_in in earlier:
                history.record(when, self._samples(stand_in), replace=False)
            self._keep(env, history)
        history.record(step, self._samples(env), replace=not fresh and step == last)
        if self.window is not None:
            history.trim(self.window + 1)
        return history

    def _horizon(self, env: Any) -> float | None:
        """Where the episode ends on the clock, if known."""
        horizon = self.horizon
        if horizon is None:
            return None
        if horizon == "auto":
            base = getattr(env, "unwrapped", env)
            spec = getattr(env, "spec", None)
            candidates = (
                getattr(base, "episode_length", None),
                getattr(base, "n_steps", None),
                getattr(spec, "max_episode_steps", None),
            )
            return next((float(v) for v in candidates if v is not None and _count(v)), None)
        number = finite_number(read(env, horizon) if is_source(horizon) else horizon)
        return number if number is not None and number > 0 else None

    # drawing --------------------------------------------------------------------------------
    def render(self, env: Any) -> NDArray[np.uint8]:
        """The ``(height, width, 3)`` uint8 frame for ``env``'s current state."""
        self.check(env)
        history = self._record(env)
        horizon = self._horizon(env)
        canvas = Canvas(self.width, self.height, self.theme.background, antialias=True)
        self._draw_header(canvas, env, history, horizon)
        gutter = _GUTTER * self.scale
        views = [
            View(env, history, f"{i}:", self.theme, self.scale, (0.0, 1.0), show_x, gutter)
            for i, show_x in enumerate(self._show_x)
        ]
        domain = self._x_domain(history, horizon, views)
        for panel, box, view in zip(self.panels, self._boxes, views, strict=True):
            if box.width >= 1 and box.height >= 1:
                view.x_domain = domain
                panel.draw(canvas, box, view)
                if panel.timeseries and history.began:
                    self._draw_late(canvas, box, history.began)
        return canvas.pixels

    def _draw_late(self, canvas: Canvas, box: Box, began: float) -> None:
        """Say in ``box`` that the history starts at step ``began``, after the episode did."""
        canvas.text(
            (box.left + box.right) / 2,
            box.top - box.height / 4,  # above the middle, where a lone sample is drawn
            f"No history before step {began:g}",
            self.theme.text_muted,
            size=11 * self.scale,
            align="center",
            valign="middle",
        )

    def _x_domain(
        self, history: _History, horizon: float | None, views: Sequence[View]
    ) -> tuple[float, float]:
        first, last = float(history.steps[0]), float(history.steps[-1])
        starts = [
            panel.x_start(view)
            for panel, view in zip(self.panels, views, strict=True)
            if panel.timeseries
        ]
        low = min([first, *(float(s) for s in starts if s is not None)])
        end = last if horizon is None else max(horizon, last)
        if self.window is None:
            return low, end
        high = min(end, max(last, low + self.window))
        return max(low, high - self.window), high

    def _draw_header(
        self, canvas: Canvas, env: Any, history: _History, horizon: float | None
    ) -> None:
        theme, s, width, height = self.theme, self.scale, self.width, self.height
        left, right = _MARGIN * s, width - _MARGIN * s
        stats_left = self._draw_stats(canvas, history, right, height)
        with canvas.clip(0, height - _HEADER * s, stats_left - _STAT_GAP * s, height):
            title, subtitle = self._title(env), self._subtitle(env)
            top = height - _TITLE_BASELINE * s
            canvas.text(left, top, title, theme.text, size=17 * s, bold=True)
            if subtitle:
                below = height - _SUBTITLE_BASELINE * s
                canvas.text(left, below, subtitle, theme.text_muted, size=11 * s)
        rule = height - (_HEADER - 6) * s
        canvas.rect(left, rule - 1, right, rule, theme.grid)
        step = float(history.steps[-1])
        if horizon is not None:
            done = min(max(step / horizon, 0.0), 1.0)
            canvas.rect(left, rule - 2 * s, left + done * (right - left), rule, theme.accent)

    def _draw_stats(self, canvas: Canvas, history: _History, right: float, height: int) -> float:
        """Draw the stats right-aligned at ``right``; the left edge of the block."""
        theme, s = self.theme, self.scale
        label_size, value_size, delta_size = 10 * s, 16 * s, 10 * s
        x = right + _STAT_GAP * s
        for index in reversed(range(len(self.stats))):
            stat = self.stats[index]
            key = f"stat:{index}"
            value = history.values[key][-1]
            text = stat.text(value)
            delta = None if history.began else _delta(stat, value, history.first_finite(key))
            value_width = text_width(text, value_size, bold=True)
            mark = 0.0
            if delta is not None:
                mark = 14 * s + text_width(delta[0], delta_size)
            block = max(text_width(stat.label, label_size), value_width + mark)
            x -= _STAT_GAP * s + block
            canvas.text(
                x, height - _LABEL_BASELINE * s, stat.label, theme.text_muted, size=label_size
            )
            baseline = height - _VALUE_BASELINE * s
            canvas.text(x, baseline, text, theme.text, size=value_size, bold=True)
            if delta is not None:
                change, amount = delta
                good = (amount > 0) == stat.higher_is_better
                color = theme.text_muted if amount == 0 else theme.up if good else theme.down
                pen = x + value_width + 6 * s
                if amount != 0:
                    triangle(canvas, pen + 3.5 * s, baseline + 3.5 * s, 4 * s, color, amount > 0)
                canvas.text(pen + 8 * s, baseline, change, color, size=delta_size)
        return x

    def _title(self, env: Any) -> str:
        if isinstance(self.title, str):
            return self.title
        if self.title is not None:
            return str(read(env, self.title))
        spec_id = getattr(getattr(env, "spec", None), "id", None)
        return str(spec_id) if spec_id else type(getattr(env, "unwrapped", env)).__name__

    def _subtitle(self, env: Any) -> str:
        if self.subtitle is None or isinstance(self.subtitle, str):
            return self.subtitle or ""
        value = read(env, self.subtitle)
        return "" if value is None else str(value)


def _shares_axis(lower: Box, upper: Box) -> bool:
    """Whether ``lower`` lies under ``upper`` with the same left and right edges."""
    return (
        lower.top <= upper.bottom
        and abs(lower.left - upper.left) < 1
        and abs(lower.right - upper.right) < 1
    )


def _delta(stat: Stat, value: Any, start: float) -> tuple[str, float] | None:
    """The change text since the episode started and its amount, when the stat has one."""
    now = finite_number(value)
    if stat.delta is None or now is None or not math.isfinite(start):
        return None
    if stat.delta == "relative":
        if start == 0:
            return None
        amount = (now - start) / abs(start)
        return format_number(amount, 2, sign=True, percent=True), amount
    amount = now - start
    # An integer stat keeps an integer delta, so formats such as "{:d}" apply to both.
    text = stat.text(int(amount) if isinstance(value, numbers.Integral) else amount)
    return ("+" + text if amount > 0 and not text.startswith("+") else text), amount

"""Draw the learning curves of ``benchmarks/learning.py`` runs into one PNG.

Each ``DIR`` holds a run's ``curve.json`` (one id, any seeds). The chart shows each run's gap
to the optimum, ``(optimum - policy) / (optimum - random)``, against the training steps on a
log scale (a gap at or below the lowest decade is drawn on it), one line per run, with the
gaps of the other reference policies and of random as dashed rules. Drawn with sekai's own
charts (``sekai.rendering``), saved with Pillow.

Usage: ``python benchmarks/learning_plots.py DIR [DIR ...] --out FILE.png [--width 880]
[--height 440] [--theme light|dark]``
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.rendering import Canvas, get_theme
from sekai.rendering.charts import Box, LegendItem, Plot, legend, nice_ticks, tick_labels
from sekai.rendering.recorder import save_png
from sekai.rendering.theme import Theme

__all__ = ["decades", "draw", "load", "main"]

#: The lowest decade the chart goes down to (a gap of 10**-LOWEST percent).
LOWEST = 4
_DASH = (5.0, 4.0)


def load(directories: Sequence[Path]) -> list[dict[str, Any]]:
    """The ``curve.json`` of each directory; ``ValueError`` unless they share one id."""
    curves = [json.loads((Path(d) / "curve.json").read_text()) for d in directories]
    ids = sorted({curve["env_id"] for curve in curves})
    if len(ids) != 1:
        raise ValueError(f"the runs must share one env id, got {', '.join(ids)}.")
    return curves


def decades(percents: NDArray[np.float64]) -> tuple[int, int]:
    """The lowest and highest powers of ten (of gaps in percent) that hold the positive ones.

    At most ``LOWEST`` decades below 1 %, and at least up to 100 % (random).
    """
    positive = percents[percents > 0]
    low = math.floor(math.log10(positive.min())) if positive.size else 0
    high = math.ceil(math.log10(positive.max())) if positive.size else 2
    return max(low, -LOWEST), max(high, 2)


def _percent_label(exponent: int) -> str:
    return f"{10.0**exponent:.{max(-exponent, 0)}f} %"


def draw(curves: Sequence[dict[str, Any]], width: int, height: int, theme: Theme) -> Canvas:
    """The chart of ``curves`` (from ``load``) on a new canvas."""
    first = curves[0]
    optimum = first["optimum"]
    best = first["references"][optimum]

    def gap_of(mean: float) -> float:
        return 100 * (best - mean) / (best - first["random"])

    others = {name: gap_of(mean) for name, mean in first["references"].items() if name != optimum}
    others["random"] = 100.0
    runs = [
        (
            f"seed {curve['seed']}",
            np.array([p["steps"] for p in curve["points"]], dtype=np.float64),
            np.array([100 * p["gap"] for p in curve["points"]], dtype=np.float64),
        )
        for curve in curves
    ]
    percents = np.concatenate([gaps for _, _, gaps in runs] + [np.array(list(others.values()))])
    low, high = decades(percents)

    canvas = Canvas(width, height, theme.background, antialias=True)
    area = Box(0, 0, width, height).inset(20, 44, 84, 20)
    seeds = ", ".join(str(curve["seed"]) for curve in curves)
    canvas.text(
        area.left,
        area.top,
        f"{first['env_id']}: {first['algo'].upper()}, seeds {seeds}",
        theme.text,
        size=15,
        bold=True,
        valign="top",
    )
    canvas.text(
        area.left,
        area.top - 22,
        f"gap to {optimum} on {first['episodes']} held-out episodes (log scale)",
        theme.text_secondary,
        size=11,
        valign="top",
    )
    items: list[LegendItem] = [
        (label, theme.color(i), "line") for i, (label, _, _) in enumerate(runs)
    ]
    items.append(("reference policies", theme.neutral, "dash"))
    legend(canvas, area.right, area.top - 8, items, theme, size=11)
    plot_box = Box(area.left, area.bottom, area.right, area.top - 56).snapped()
    steps = max(float(xs.max()) for _, xs, _ in runs)
    plot = Plot(canvas, plot_box, (0.0, steps), (low, high), theme)

    exponents = list(range(low, high + 1))
    plot.grid(exponents, [_percent_label(e) for e in exponents], size=10)
    x_ticks = nice_ticks(0.0, steps, 6)
    for x in x_ticks:
        plot.vline(x, theme.grid)
    plot.x_ticks(x_ticks, tick_labels(x_ticks, compact=True), size=10)
    canvas.rect(plot_box.left, plot_box.bottom, plot_box.right, plot_box.bottom + 1, theme.axis)
    canvas.text(
        plot_box.right,
        area.bottom - 20,
        "training steps",
        theme.text_muted,
        size=10,
        align="right",
        valign="top",
    )

    def level(percent: NDArray[np.float64]) -> NDArray[np.float64]:
        clipped = np.maximum(percent, 10.0**low)
        return np.log10(clipped)

    for name, percent in others.items():
        y = float(level(np.array([percent]))[0])
        plot.hline(y, theme.neutral, width=1.5, dash=_DASH)
        canvas.text(
            plot_box.left + 6,
            plot.y(y) - 4,
            f"{name} {percent:.3g} %",
            theme.text_muted,
            size=10,
            valign="top",
        )
    for i, (_, xs, gaps) in reversed(list(enumerate(runs))):
        plot.line(xs, level(gaps), theme.color(i), width=2.0)
    return canvas


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("runs", nargs="+", type=Path, help="directories holding curve.json")
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    parser.add_argument("--width", type=int, default=880)
    parser.add_argument("--height", type=int, default=440)
    parser.add_argument("--theme", choices=("light", "dark"), default="light")
    args = parser.parse_args(argv)
    try:
        curves = load(args.runs)
    except ValueError as exc:
        print(f"error: {exc}")
        return 2
    canvas = draw(curves, args.width, args.height, get_theme(args.theme))
    save_png(canvas.to_array(), args.out)
    print(f"{len(curves)} curves of {curves[0]['env_id']} drawn in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

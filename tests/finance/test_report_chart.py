"""Tests for sekai.finance.charts.report: the backtest and walk-forward reports, and save_png."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from PIL import Image

from sekai.finance import charts
from sekai.finance.charts import backtest_report, walk_forward_report
from sekai.finance.charts.report import _grouped
from sekai.rendering.recorder import save_png
from sekai.rendering.theme import DARK, LIGHT

N = 120
TIMES = np.arange("2021-01-04", "2021-05-05", dtype="datetime64[D]")[: N + 1]
RNG = np.random.default_rng(7)
EQUITY = 1e5 * np.exp(np.cumsum(np.r_[0.0, RNG.normal(3e-4, 0.01, N)]))
BENCH = 1e5 * np.exp(np.cumsum(np.r_[0.0, RNG.normal(1e-4, 0.008, N)]))
WEIGHTS = RNG.dirichlet(np.ones(4), N) * 0.9
SUMMARY = [("total return", "+12.0%"), ("Sharpe ratio", "1.10"), ("max drawdown", "−8.2%")]  # noqa: RUF001
FOLDS = [(TIMES[i * 40], TIMES[i * 40 + 40], f"fold {i + 1}") for i in range(3)]
ROWS = [("fold 1", "+4.0%", "1.2"), ("fold 2", "−1.0%", "−0.3"), ("fold 3", "+2.5%", "0.8")]  # noqa: RUF001


def report(**changes: Any) -> NDArray[np.uint8]:
    kwargs: dict[str, Any] = {
        "benchmark": BENCH,
        "positions": WEIGHTS,
        "position_labels": ["AAA", "BBB", "CCC", "DDD"],
        "summary": SUMMARY,
    }
    kwargs.update(changes)
    timestamps = kwargs.pop("timestamps", TIMES)
    return backtest_report(timestamps, kwargs.pop("equity", EQUITY), **kwargs)


def walk(**changes: Any) -> NDArray[np.uint8]:
    kwargs: dict[str, Any] = {"folds": FOLDS, "summary": ROWS, "columns": ("fold", "ret", "SR")}
    kwargs.update(changes)
    return walk_forward_report(kwargs.pop("timestamps", TIMES), EQUITY, **kwargs)


def changed_rows(a: NDArray[np.uint8], b: NDArray[np.uint8]) -> NDArray[np.intp]:
    """The rows (from the top) where two frames differ."""
    return np.flatnonzero(np.any(a != b, axis=(1, 2)))


def bands(rows: NDArray[np.intp]) -> list[tuple[int, int]]:
    """The runs of ``rows`` (first, last), splitting where more than 4 rows are skipped."""
    runs: list[tuple[int, int]] = []
    for row in rows.tolist():
        if runs and row - runs[-1][1] <= 5:
            runs[-1] = (runs[-1][0], row)
        else:
            runs.append((row, row))
    return runs


def test_exported_from_the_charts_package() -> None:
    assert {"backtest_report", "walk_forward_report"} <= set(charts.__all__)


def test_frames_are_rgb_uint8_of_the_given_size() -> None:
    for frame in (report(), walk()):
        assert frame.shape == (720, 960, 3) and frame.dtype == np.uint8
    assert report(width=800, height=600).shape == (600, 800, 3)
    assert walk(width=640, height=480).shape == (480, 640, 3)
    assert backtest_report(TIMES, EQUITY).shape == (720, 960, 3)


def test_same_inputs_draw_identical_frames() -> None:
    np.testing.assert_array_equal(report(), report())
    np.testing.assert_array_equal(walk(), walk())


def test_the_theme_sets_the_background() -> None:
    assert tuple(report()[0, 0]) == LIGHT.background
    assert tuple(report(theme="dark")[0, 0]) == DARK.background
    assert tuple(walk(theme=DARK)[0, 0]) == DARK.background


def test_the_benchmark_is_named_in_the_legend() -> None:
    named, renamed = report(), report(benchmark_label="SPY")
    # Only the legends of the equity and drawdown panels change: two title bands.
    runs = bands(changed_rows(named, renamed))
    assert len(runs) == 2 and all(last - first < 22 for first, last in runs)
    assert runs[0][0] >= 62
    without = report(benchmark=None)
    assert changed_rows(named, without).size > 200


def test_every_asset_is_named_in_the_positions_legend() -> None:
    base = report()
    for i in range(4):
        labels = ["AAA", "BBB", "CCC", "DDD"]
        labels[i] = "QQQ"
        # The title band of the lowest panel, under the drawdown panel.
        runs = bands(changed_rows(base, report(position_labels=labels)))
        assert len(runs) == 1 and runs[0][1] - runs[0][0] < 22 and runs[0][0] > 720 // 2


def test_many_assets_show_the_largest_and_group_the_rest_as_others() -> None:
    held = np.tile(np.linspace(1.0, 0.1, 12), (N, 1)) / 10
    columns, names = _grouped(held, [f"A{i}" for i in range(12)], 8)
    assert names == [*(f"A{i}" for i in range(7)), "others"]
    np.testing.assert_allclose(columns[:, -1], held[:, 7:].sum(axis=1))
    order = held[:, ::-1]
    columns, names = _grouped(order, [f"A{i}" for i in range(12)][::-1], 8)
    assert names[:2] == ["A0", "A1"] and names[-1] == "others"
    eight = held[:, :8]
    kept, same = _grouped(eight, [f"A{i}" for i in range(8)], 8)
    assert kept is eight and same == [f"A{i}" for i in range(8)]
    labels = [f"A{i}" for i in range(12)]
    frame = report(positions=held, position_labels=labels)
    small = [*labels[:7], *(f"Z{i}" for i in range(5))]
    # The labels of the grouped assets are not drawn; a shown one is.
    np.testing.assert_array_equal(frame, report(positions=held, position_labels=small))
    assert changed_rows(frame, report(positions=held, position_labels=["Q", *labels[1:]])).size


def test_positions_in_units_and_default_labels() -> None:
    units = np.round(WEIGHTS * 100)
    frame = report(positions=units, position_kind="position", position_labels=())
    assert frame.shape == (720, 960, 3)
    assert changed_rows(frame, report(positions=units, position_labels=())).size


def test_date_labels_on_datetime_axes_and_numbers_on_numeric_ones() -> None:
    dated, numbered = report(), report(timestamps=np.arange(N + 1))
    rows = changed_rows(dated, numbered)
    # The subtitle, the vertical gridlines and the time labels under the lowest plot differ.
    assert rows.min() < 62 and rows.max() > 720 - 16 - 18
    hours = np.datetime64("2021-03-01T09:00") + np.arange(N + 1).astype("timedelta64[h]")
    assert changed_rows(report(timestamps=hours), dated).max() > 720 - 16 - 18


def test_walk_forward_folds_are_labelled() -> None:
    base = walk()
    relabelled = [(a, b, label.upper()) for a, b, label in FOLDS]
    # The fold labels sit at the top of the equity plot; the table holds ROWS, not labels.
    runs = bands(changed_rows(base, walk(folds=relabelled)))
    assert len(runs) == 1 and runs[0][1] - runs[0][0] < 16 and runs[0][0] > 62 + 22
    assert changed_rows(base, walk(folds=FOLDS[:2])).size
    numeric = [(0, 40, "a"), (40, 80, "b"), (80.0, 120, "c")]
    assert walk(timestamps=np.arange(N + 1), folds=numeric).shape == (720, 960, 3)
    as_text = [(str(a), str(b), label) for a, b, label in FOLDS]
    np.testing.assert_array_equal(walk(folds=as_text), base)


@pytest.mark.parametrize(
    ("changes", "error", "match"),
    [
        ({"timestamps": ["2021-01-01", "2021-01-02"]}, TypeError, "timestamps"),
        ({"timestamps": TIMES[::-1]}, ValueError, "increasing"),
        ({"timestamps": TIMES[:1], "equity": EQUITY[:1]}, ValueError, "timestamps"),
        ({"equity": EQUITY[:-1]}, ValueError, r"equity must have shape \(121,\)"),
        ({"equity": np.r_[EQUITY[:-1], -1.0]}, ValueError, "equity must be finite and > 0"),
        ({"equity": np.r_[EQUITY[:-1], np.nan]}, ValueError, "equity"),
        ({"equity": EQUITY.astype(str)}, TypeError, "equity must be numbers"),
        ({"benchmark": BENCH[:-2]}, ValueError, "benchmark must have shape"),
        ({"positions": WEIGHTS[:-1]}, ValueError, r"positions must have shape \(120, k\)"),
        ({"positions": WEIGHTS[:, 0]}, ValueError, "positions must have shape"),
        ({"positions": WEIGHTS > 0}, TypeError, "positions must be numbers"),
        ({"position_labels": ["A", "B"]}, ValueError, "position_labels must have 4 labels"),
        ({"position_labels": [1, 2, 3, 4]}, TypeError, r"position_labels\[0\] must be a str"),
        ({"position_labels": "ABCD"}, TypeError, "position_labels"),
        ({"positions": None}, ValueError, "position_labels were given without positions"),
        ({"position_kind": "units"}, ValueError, "position_kind"),
        ({"position_kind": 1}, TypeError, "position_kind"),
        ({"summary": [("a", "b", "c")]}, ValueError, r"summary\[0\] must have 2 cells"),
        ({"summary": [("a", 1.0)]}, TypeError, r"summary\[0\]\[1\] must be a str"),
        ({"summary": "rows"}, TypeError, "summary"),
        ({"title": None}, TypeError, "title"),
        ({"benchmark_label": 3}, TypeError, "benchmark_label"),
        ({"width": 100}, ValueError, "width must be at least 640"),
        ({"height": 480.5}, TypeError, "height must be an int, got float 480.5"),
        ({"height": 100.0}, ValueError, "height must be at least"),
        ({"theme": "sepia"}, ValueError, "theme"),
    ],
)
def test_backtest_report_checks_its_inputs(changes: Any, error: Any, match: str) -> None:
    with pytest.raises(error, match=match):
        report(**changes)


@pytest.mark.parametrize(
    ("changes", "error", "match"),
    [
        ({"folds": []}, ValueError, "folds must hold one or more"),
        ({"folds": "folds"}, TypeError, "folds must be a sequence"),
        (
            {"folds": [(TIMES[0], TIMES[5])]},
            ValueError,
            r"folds\[0\] must be \(start, end, label\)",
        ),
        ({"folds": [5]}, TypeError, r"folds\[0\]"),
        ({"folds": [(TIMES[5], TIMES[0], "x")]}, ValueError, "start before it ends"),
        ({"folds": [(0, 5, "x")]}, TypeError, r"folds\[0\] start must be a date"),
        ({"folds": [("soon", TIMES[5], "x")]}, ValueError, r"folds\[0\] start must be a date"),
        ({"folds": [(TIMES[0], TIMES[5], 1)]}, TypeError, r"folds\[0\] label must be a str"),
        ({"folds": [FOLDS[1], FOLDS[0]]}, ValueError, "must not overlap"),
        (
            {"folds": [(np.datetime64("2030-01-01"), np.datetime64("2030-02-01"), "x")]},
            ValueError,
            "outside the timestamps",
        ),
        ({"timestamps": np.arange(N + 1)}, TypeError, "must be a number like timestamps"),
        ({"columns": ("a", "b")}, ValueError, r"summary\[0\] must have 2 cells"),
        ({"columns": "abc"}, TypeError, "columns"),
        ({"summary": [("a", "b"), ("c",)], "columns": ()}, ValueError, r"summary\[1\]"),
        ({"width": 5000.5}, TypeError, "width"),
    ],
)
def test_walk_forward_report_checks_its_inputs(changes: Any, error: Any, match: str) -> None:
    with pytest.raises(error, match=match):
        walk(**changes)


def test_a_long_summary_ends_in_a_more_row() -> None:
    rows = [(f"row {i}", f"{i}") for i in range(80)]
    assert report(summary=rows, height=480, width=640).shape == (480, 640, 3)
    assert changed_rows(report(summary=rows), report(summary=rows[:-1])).size


# -- save_png ---------------------------------------------------------------------------------


def test_save_png_writes_the_frame(tmp_path: Path) -> None:
    frame = walk(width=640, height=480)
    path = save_png(frame, tmp_path / "walk.png")
    assert path == tmp_path / "walk.png"
    with Image.open(path) as image:
        assert image.format == "PNG"
        np.testing.assert_array_equal(np.asarray(image.convert("RGB")), frame)
    gray = np.arange(12, dtype=np.int64).reshape(3, 4)
    with Image.open(save_png(gray, str(tmp_path / "gray.png"))) as image:
        np.testing.assert_array_equal(np.asarray(image), gray)


@pytest.mark.parametrize(
    ("frame", "error", "match"),
    [
        ("frame.png", TypeError, "str"),
        (np.zeros((4, 4, 2), dtype=np.uint8), ValueError, "shape"),
        (np.zeros((4, 4, 3)), ValueError, "dtype float64"),
        (np.full((4, 4), 300), ValueError, r"outside \[0, 255\]"),
        (np.array([["a"]]), TypeError, "non-numeric"),
    ],
)
def test_save_png_checks_the_frame(tmp_path: Path, frame: Any, error: Any, match: str) -> None:
    with pytest.raises(error, match=match):
        save_png(frame, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_save_png_names_the_missing_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match=r"save_png needs pillow.*\.\[render\]"):
        save_png(np.zeros((2, 2, 3), dtype=np.uint8), tmp_path / "x.png")

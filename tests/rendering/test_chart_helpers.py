"""Tests for the pure helpers of sekai.rendering.charts."""

from __future__ import annotations

import dataclasses
import itertools
import math
import typing

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sekai.rendering import charts
from sekai.rendering.charts import (
    MINUS,
    Box,
    Marker,
    Swatch,
    decimals_for,
    format_number,
    nice_step,
    nice_ticks,
    tick_count,
    tick_labels,
    value_range,
)

finite = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False)
counts = st.integers(min_value=1, max_value=12)


def nice_values(integer: bool = False) -> list[float]:
    mantissas = (1, 2, 5) if integer else (1, 2, 2.5, 5)
    return sorted(m * 10.0**e for e in range(0 if integer else -12, 14) for m in mantissas)


def is_nice(step: float, integer: bool = False) -> bool:
    return any(math.isclose(step, v, rel_tol=1e-9) for v in nice_values(integer))


# -- module surface -------------------------------------------------------------------------


def test_names():
    assert MINUS == "\u2212"
    assert typing.get_args(Marker) == ("circle", "up", "down", "diamond")
    assert typing.get_args(Swatch) == ("line", "dash", "area", "dot", "square", "up", "down")
    assert set(charts.__all__) == {
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
    }


# -- Box ------------------------------------------------------------------------------------


def test_box_spec_example():
    upper, lower = Box(0, 0, 200, 100).rows([3, 1], gap=10)
    assert (upper.height, lower.height) == (67.5, 22.5)
    assert upper == Box(0, 32.5, 200, 100)
    assert lower == Box(0, 0, 200, 22.5)


def test_box_basics():
    box = Box(10, 20, 110, 70)
    assert (box.width, box.height) == (100, 50)
    assert box.inset(1, 2, 3, 4) == Box(11, 22, 107, 66)
    assert box.inset(top=10) == Box(10, 20, 110, 60)
    assert box.inset(-5, -5, -5, -5) == Box(5, 15, 115, 75)
    with pytest.raises(dataclasses.FrozenInstanceError):
        box.left = 0  # type: ignore[misc]


def test_box_columns_go_left_first():
    left, middle, right = Box(0, 0, 100, 10).columns([1, 2, 1], gap=4)
    assert (left.left, left.right) == (0, 23)
    assert (middle.left, middle.right) == (27, 73)
    assert (right.left, right.right) == (77, 100)
    assert all((b.bottom, b.top) == (0, 10) for b in (left, middle, right))


def test_box_single_part_is_the_box():
    box = Box(1.5, 2.5, 30.25, 40.75)
    assert box.rows([7]) == [box]
    assert box.columns([0.1]) == [box]


def test_box_snapped():
    assert Box(0.4, 0.5, 10.49, 10.5).snapped() == Box(0.0, 1.0, 10.0, 11.0)
    assert Box(-0.5, -1.6, 2, 3).snapped() == Box(0.0, -2.0, 2.0, 3.0)


@pytest.mark.parametrize("weights", [[], [1, 0], [1, -1], [1, math.nan], [math.inf]])
def test_box_bad_weights(weights):
    with pytest.raises(ValueError, match="weights"):
        Box(0, 0, 10, 10).rows(weights)
    with pytest.raises(ValueError, match="weights"):
        Box(0, 0, 10, 10).columns(weights)


@pytest.mark.parametrize("gap", [-1.0, math.nan, math.inf])
def test_box_bad_gap(gap):
    with pytest.raises(ValueError, match="gap"):
        Box(0, 0, 10, 10).rows([1, 1], gap=gap)


@given(
    st.lists(st.floats(min_value=0.01, max_value=100), min_size=1, max_size=8),
    st.floats(min_value=0, max_value=5),
    st.floats(min_value=-500, max_value=500),
    st.floats(min_value=50, max_value=1000),
)
@settings(max_examples=100, deadline=None)
def test_box_splits_share_the_length_less_gaps(weights, gap, start, length):
    box = Box(start, start, start + length, start + length)
    available = length - gap * (len(weights) - 1)
    total = sum(weights)
    for parts, size in ((box.rows(weights, gap), "height"), (box.columns(weights, gap), "width")):
        sizes = [getattr(part, size) for part in parts]
        assert math.fsum(sizes) == pytest.approx(available, abs=1e-9 * length)
        for part, weight in zip(sizes, weights, strict=True):
            assert part == pytest.approx(available * weight / total, abs=1e-9 * length)
    rows = box.rows(weights, gap)
    assert rows[0].top == box.top and rows[-1].bottom == box.bottom
    for above, below in itertools.pairwise(rows):
        assert above.bottom - below.top == pytest.approx(gap, abs=1e-9 * length)
    columns = box.columns(weights, gap)
    assert columns[0].left == box.left and columns[-1].right == box.right


# -- nice_step / nice_ticks ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "step"),
    [
        ((10,), {}, 2.5),
        ((1,), {}, 0.25),
        ((0.9, 1), {}, 1.0),
        ((0.3, 1), {}, 0.5),
        ((1000, 1), {}, 1000.0),
        ((1001, 1), {}, 2000.0),
        ((3e-7, 1), {}, 5e-7),
        ((0.8, 4), {}, 0.2),
        ((7, 4), {"integer": True}, 2.0),
        ((10, 4), {"integer": True}, 5.0),
        ((1, 1), {}, 1.0),
        ((4, 4), {"integer": True}, 1.0),
        ((3, 4), {"integer": True}, 1.0),
        ((0,), {}, 1.0),
        ((-5,), {}, 1.0),
        ((math.nan,), {}, 1.0),
        ((math.inf,), {}, 1.0),
    ],
)
def test_nice_step_examples(args, kwargs, step):
    assert nice_step(*args, **kwargs) == step


@given(st.floats(min_value=1e-9, max_value=1e12), counts, st.booleans())
@settings(max_examples=200, deadline=None)
def test_nice_step_is_the_smallest_nice_value_covering_the_span(span, count, integer):
    step = nice_step(span, count, integer=integer)
    raw = span / count
    if integer and raw <= 1:
        assert step == 1.0
        return
    smallest = min(v for v in nice_values(integer) if v >= raw * (1 - 1e-9))
    assert step == pytest.approx(smallest, rel=1e-12)
    if integer:
        assert step == int(step)


@pytest.mark.parametrize("count", [0, -1])
def test_count_must_be_positive(count):
    with pytest.raises(ValueError, match="count"):
        nice_step(10, count)
    with pytest.raises(ValueError, match="count"):
        nice_ticks(0, 10, count)


def test_nice_ticks_examples():
    assert nice_ticks(0, 1).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert nice_ticks(0.1, 0.35).tolist() == [0.1, 0.2, 0.3]
    assert nice_ticks(0.9, 1.1).tolist() == [0.9, 0.95, 1.0, 1.05, 1.1]
    assert nice_ticks(-3.3, 7.1).tolist() == [0.0, 5.0]
    assert nice_ticks(0, 10, integer=True).tolist() == [0.0, 5.0, 10.0]
    assert nice_ticks(0, 1e6).tolist() == [0.0, 250_000.0, 500_000.0, 750_000.0, 1_000_000.0]


def test_nice_ticks_refine_until_two():
    # count 1 gives step 1 and a single tick; count 2 gives step 0.5.
    assert nice_ticks(0.5, 1.4, count=1).tolist() == [0.5, 1.0]
    assert nice_ticks(0.5, 1.5, count=1, integer=True).tolist() == [1.0]
    assert nice_ticks(0.2, 0.8, integer=True).tolist() == []


def test_nice_ticks_degenerate():
    assert nice_ticks(3, 3).tolist() == [3.0]
    assert nice_ticks(5, 1).tolist() == [5.0]
    assert nice_ticks(math.nan, 1).tolist() == []
    assert nice_ticks(0, math.inf).tolist() == []
    assert nice_ticks(-math.inf, 0).tolist() == []
    assert nice_ticks(-1e308, 1e308).tolist() == []
    assert nice_ticks(1.0, math.nextafter(1.0, 2.0)).tolist() == [1.0, math.nextafter(1.0, 2.0)]


def test_nice_steps_near_the_float_limits():
    assert nice_step(1.7e308, 1) == math.inf
    assert nice_step(5e-324, 1) > 0
    assert nice_ticks(0, 1.7e308).tolist() == [0.0, 5e307, 1e308, 1.5e308]


@given(finite, finite, counts, st.booleans())
@settings(max_examples=300, deadline=None)
def test_nice_ticks_properties(a, b, count, integer):
    low, high = min(a, b), max(a, b)
    assume(high - low > 1e-6 * max(1.0, abs(low), abs(high)))
    ticks = nice_ticks(low, high, count, integer=integer)
    assert ticks.dtype == np.float64
    assert all(low <= t <= high for t in ticks)
    assert ticks.tolist() == sorted(set(ticks.tolist()))
    if not integer or high - low >= 2:
        assert len(ticks) >= 2
    if len(ticks) >= 2:
        gaps = np.diff(ticks)
        assert np.allclose(gaps, gaps[0], rtol=1e-9, atol=1e-9 * max(abs(low), abs(high)))
        assert is_nice(float(np.median(gaps)), integer)
    if integer:
        assert all(t == int(t) for t in ticks)


# -- decimals_for ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("step", "decimals"),
    [
        (1, 0),
        (1000, 0),
        (2.5, 1),
        (0.1, 1),
        (0.25, 2),
        (0.5, 1),
        (1.0 - 0.9, 1),
        (0.05, 2),
        (1e-5, 5),
        (-0.2, 1),
        (0, 0),
        (1 / 3, 8),
        (1e-12, 8),
        (math.nan, 0),
    ],
)
def test_decimals_for(step, decimals):
    assert decimals_for(step) == decimals


# -- format_number --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "text"),
    [
        ((-1234.5, 1), {}, "−1,234.5"),  # noqa: RUF001
        ((0.0432,), {"sign": True, "percent": True}, "+4.32%"),
        ((2.5e6,), {"compact": True}, "2.50M"),
        ((1234567.891,), {}, "1,234,567.89"),
        ((12.0, 0), {}, "12"),
        ((-0.5,), {"percent": True}, "−50.00%"),  # noqa: RUF001
        ((3.0,), {"sign": True}, "+3.00"),
        ((-3.0,), {"sign": True}, "−3.00"),  # noqa: RUF001
        ((0.0,), {"sign": True}, "0.00"),
        ((-0.0,), {}, "0.00"),
        ((-0.001,), {}, "0.00"),
        ((0.001,), {"sign": True}, "0.00"),
        ((-0.00004,), {"percent": True, "sign": True}, "0.00%"),
        ((None,), {}, "—"),
        ((math.nan,), {"sign": True}, "—"),
        ((math.inf,), {"sign": True}, "+∞"),
        ((-math.inf,), {}, "−∞"),  # noqa: RUF001
        ((999.4,), {"compact": True}, "999.40"),
        ((1000,), {"compact": True}, "1.00K"),
        ((-12_345,), {"compact": True}, "−12.3K"),  # noqa: RUF001
        ((123_456,), {"compact": True}, "123K"),
        ((9_996,), {"compact": True}, "10.0K"),
        ((99_960,), {"compact": True}, "100K"),
        ((999_600,), {"compact": True}, "1.00M"),
        ((4.2e9,), {"compact": True}, "4.20B"),
        ((1.5e15,), {"compact": True}, "1,500T"),
        ((25,), {"compact": True, "percent": True}, "2.50K%"),
    ],
)
def test_format_number_examples(args, kwargs, text):
    assert format_number(*args, **kwargs) == text


def test_format_number_bad_decimals():
    with pytest.raises(ValueError, match="decimals"):
        format_number(1.0, -1)


@given(
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(0, 4),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
@settings(max_examples=300, deadline=None)
def test_format_number_never_signs_zero(value, decimals, sign, percent, compact):
    text = format_number(value, decimals, sign=sign, percent=percent, compact=compact)
    digits = [ch for ch in text if ch.isdigit()]
    if set(digits) == {"0"}:
        assert text[0] == "0"
    elif value < 0:
        assert text.startswith(MINUS)
    elif sign:
        assert text.startswith("+")
    assert "-" not in text


# -- tick_labels ----------------------------------------------------------------------------


def test_tick_labels_spec_examples():
    assert tick_labels([0.9, 1.0, 1.1]) == ["0.9", "1.0", "1.1"]
    assert tick_labels([0, 0.5, 1], percent=True) == ["0%", "50%", "100%"]
    assert tick_labels([0, 5e5, 1e6]) == ["0", "500K", "1.00M"]


def test_tick_labels_share_decimals():
    assert tick_labels([0, 0.25, 0.5]) == ["0.00", "0.25", "0.50"]
    assert tick_labels([-2, 0, 2]) == ["−2", "0", "2"]  # noqa: RUF001
    assert tick_labels(nice_ticks(0.9, 1.1)) == ["0.90", "0.95", "1.00", "1.05", "1.10"]
    assert tick_labels([0, 0.001, 0.002], percent=True) == ["0.0%", "0.1%", "0.2%"]


def test_tick_labels_compact():
    # Compact labels are format_number(v, compact=True): values under 1000 keep the shared
    # decimals, larger ones take their own unit and 3 significant digits.
    assert tick_labels([0, 5000, 10_000]) == ["0", "5.00K", "10.0K"]
    assert tick_labels([0, 5000]) == ["0", "5,000"]
    assert tick_labels([0, 5e5, 1e6], compact=False) == ["0", "500,000", "1,000,000"]
    assert tick_labels([0, 500, 1000], compact=True) == ["0", "500", "1.00K"]
    assert tick_labels([0, 500], compact=True) == ["0", "500"]
    assert tick_labels([0, 0.5, 20_000]) == ["0.0", "0.5", "20.0K"]
    assert tick_labels([0, 0.5e5, 1e5], percent=True)[-1] == "10,000,000%"
    assert tick_labels([0, 0.5e5, 1e5], percent=True, compact=True) == ["0%", "5.00M%", "10.0M%"]


@pytest.mark.parametrize(
    ("ticks", "labels"),
    [
        ([0, 50_000, 100_000, 150_000], ["0", "50.0K", "100K", "150K"]),
        ([0, 25_000, 50_000, 75_000, 100_000], ["0", "25.0K", "50.0K", "75.0K", "100K"]),
        ([0, 2500, 5000, 7500, 10_000], ["0", "2.50K", "5.00K", "7.50K", "10.0K"]),
        ([80_000, 90_000, 100_000, 110_000], ["80.0K", "90.0K", "100K", "110K"]),
        ([-20_000, 0, 20_000], ["−20.0K", "0", "20.0K"]),  # noqa: RUF001
        ([0, 2.5e5, 5e5, 7.5e5, 1e6], ["0", "250K", "500K", "750K", "1.00M"]),
        ([1e6, 1.5e6, 2e6], ["1.00M", "1.50M", "2.00M"]),
        ([0, 2e9, 4e9], ["0", "2.00B", "4.00B"]),
        ([0, math.nan, 5e4, 1e5], ["0", "—", "50.0K", "100K"]),
    ],
)
def test_compact_tick_labels_write_each_value_compactly(ticks, labels):
    assert tick_labels(ticks) == labels
    assert labels == [format_number(t, 0, compact=True) for t in ticks]


def test_compact_tick_labels_that_would_read_the_same_are_plain():
    assert tick_labels([1e6, 1.0001e6]) == ["1,000,000", "1,000,100"]
    assert tick_labels([10_000, 10_010, 10_020]) == ["10,000", "10,010", "10,020"]


def test_tick_labels_abandon_colliding_compact_labels():
    assert tick_labels([10_000, 10_001, 10_002]) == ["10,000", "10,001", "10,002"]
    assert tick_labels([10_000, 10_001], compact=True) == ["10,000", "10,001"]


def test_tick_labels_edge_cases():
    assert tick_labels([]) == []
    assert tick_labels([5]) == ["5"]
    assert tick_labels([0.125]) == ["0.12"]
    assert tick_labels([1, math.nan, 2]) == ["1", "—", "2"]
    assert tick_labels(np.array([1.5, 2.0])) == ["1.5", "2.0"]


_UNITS = {"": 1.0, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}


def _read(label: str) -> tuple[float, int, str]:
    """The value a tick label shows (percent undone), its decimal count and its unit."""
    number = label.lstrip(MINUS)
    end = number.endswith("%")
    number = number.removesuffix("%")
    unit = number[-1] if number[-1:] in "KMBT" else ""
    number = number.removesuffix(unit)
    whole, _, decimals = number.partition(".")
    assert whole.replace(",", "").isdigit() and (decimals == "" or decimals.isdigit()), label
    value = float(number.replace(",", "")) * _UNITS[unit] / (100 if end else 1)
    return (-value if label.startswith(MINUS) else value), len(decimals), unit


@given(finite, finite, counts, st.booleans())
@settings(max_examples=300, deadline=None)
def test_tick_labels_of_nice_ticks_are_distinct_and_read_back(a, b, count, percent):
    low, high = min(a, b), max(a, b)
    assume(high - low > 1e-6 * max(1.0, abs(low), abs(high)))
    ticks = nice_ticks(low, high, count)
    labels = tick_labels(ticks, percent=percent)
    assert len(labels) == len(ticks)
    assert len(set(labels)) == len(labels)
    read = [_read(label) for label in labels]
    # Labels without a unit share the decimals of the smallest step.
    assert len({decimals for _, decimals, unit in read if not unit}) <= 1, labels
    factor = 100 if percent else 1
    compact = any(unit for *_, unit in read)
    for tick, (value, decimals, unit) in zip(ticks, read, strict=True):
        # Each label is its tick rounded to the last digit shown; compact ones from 1000 up.
        half = 0.5 * 10.0**-decimals * _UNITS[unit] / factor
        assert abs(value - tick) <= half * (1 + 1e-9) + 1e-9 * abs(tick), (tick, labels)
        assert bool(unit) == (compact and abs(tick) * factor >= 1000), (tick, labels)


# -- value_range ----------------------------------------------------------------------------


def test_value_range_examples():
    assert value_range([1, 2, 3]) == pytest.approx((0.84, 3.16))
    assert value_range([1, 2], [3, 4], pad=0) == (1.0, 4.0)
    assert value_range([2, 3], include=(0,), pad=0) == (0.0, 3.0)
    assert value_range([5, 5]) == pytest.approx((4.95, 5.05))
    assert value_range([0.0]) == (-1e-6, 1e-6)
    assert value_range() == (0.0, 1.0)
    assert value_range([], [math.nan, math.inf]) == (0.0, 1.0)
    assert value_range([[1, math.inf], [math.nan, -2]], pad=0) == (-2.0, 1.0)
    assert value_range(np.array([1.0, np.nan, 3.0]), pad=0.5) == (0.0, 4.0)
    low, high = value_range([1, 2])
    assert isinstance(low, float) and isinstance(high, float)


@pytest.mark.parametrize("pad", [-0.1, math.nan, math.inf])
def test_value_range_bad_pad(pad):
    with pytest.raises(ValueError, match="pad"):
        value_range([1, 2], pad=pad)


@given(
    st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), max_size=20),
    st.lists(finite, max_size=3),
    st.floats(min_value=0, max_value=1),
)
@settings(max_examples=200, deadline=None)
def test_value_range_contains_the_data(values, include, pad):
    low, high = value_range(np.array(values, dtype=np.float64), include=include, pad=pad)
    data = [v for v in [*values, *include] if math.isfinite(v)]
    assert low < high
    if data:
        assert low <= min(data) and max(data) <= high
    else:
        assert (low, high) == (0.0, 1.0)


# -- tick_count -----------------------------------------------------------------------------


def test_tick_count():
    assert tick_count(450, 1.0) == 16
    assert tick_count(56, 1.0) == 3
    assert tick_count(0, 1.0) == 3
    assert tick_count(280, 1.0) == 10
    assert tick_count(280, 2.0) == 5
    assert tick_count(279.9, 1.0) == 9


@pytest.mark.parametrize(("height", "scale"), [(100, 0), (100, -1), (math.nan, 1), (100, math.inf)])
def test_tick_count_errors(height, scale):
    with pytest.raises(ValueError, match="scale"):
        tick_count(height, scale)

"""``assert_trees_equal`` / ``tree_difference``: exact, dtype-checked, NaN-aware comparison."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sekai.testing import assert_trees_equal, tree_difference


def _tree(price: float = 1.5) -> dict[str, Any]:
    return {
        "obs": np.array([[1.0, np.nan], [3.0, 4.0]], np.float32),
        "info": ({"price": price, "flags": [True, False]}, None),
        "when": np.array(["2024-01-02", "NaT"], dtype="datetime64[D]"),
        "names": np.array(["a", "b"]),
        "stack": np.array([{"x": np.nan}, (1, 2)], dtype=object),
    }


def test_equal_trees_pass_with_nan_and_nat_matching_themselves() -> None:
    assert tree_difference(_tree(), _tree()) is None
    assert_trees_equal(_tree(), _tree())
    assert_trees_equal(float("nan"), float("nan"))
    assert_trees_equal(np.float64("nan"), np.float64("nan"))
    assert_trees_equal(np.datetime64("NaT", "s"), np.datetime64("NaT", "s"))
    assert_trees_equal(np.float32(2.0), np.array(2.0, np.float32))  # a 0-d array's element


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        (_tree(), _tree(2.5), "['info'][0]['price']: 1.5 vs 2.5"),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, "the root: keys ['a', 'b'] vs ['b', 'a']"),
        ((1, 2), [1, 2], "the root: tuple vs list"),
        ([1, 2], [1, 2, 3], "the root: length 2 vs 3"),
        (np.zeros(2, np.float32), np.zeros(2), "the root: dtype float32 vs float64"),
        (np.zeros(2), np.zeros(3), "the root: shape (2,) vs (3,)"),
        (np.array([[1, 2], [3, 4]]), np.array([[1, 2], [3, 5]]), "[1, 1]: "),
        (np.zeros(1), [0.0], "the root: ndarray vs list"),
        (1.0, np.float64(1.0), "the root: float vs float64"),
        (np.float32(1.0), np.array(1.0), "the root: dtype float32 vs float64"),
        (1, True, "the root: int vs bool"),
        ({"x": {"y": np.nan}}, {"x": {"y": 0.0}}, "['x']['y']: nan vs 0.0"),
        (np.array([{"x": 1}], dtype=object), np.array([{"x": 2}], dtype=object), "[0]['x']: "),
        ("a", "b", "the root: 'a' vs 'b'"),
    ],
)
def test_the_first_difference_is_named(a: Any, b: Any, message: str) -> None:
    found = tree_difference(a, b)
    assert found is not None and found.startswith(message), found
    with pytest.raises(AssertionError, match="trees differ at"):
        assert_trees_equal(a, b)


def test_name_prefixes_the_location() -> None:
    assert tree_difference([1], [2], name="rewards") == "rewards[0]: 1 vs 2"
    assert tree_difference(1, 2, name="rewards") == "rewards: 1 vs 2"


def test_tolerances_apply_to_floats_only() -> None:
    a, b = np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-12])
    assert tree_difference(a, b) is not None
    assert tree_difference(a, b, rtol=1e-9) is None
    assert tree_difference(1.0, 1.0 + 1e-12, atol=1e-9) is None
    assert tree_difference(np.array([1]), np.array([2]), atol=5.0) is not None
    assert tree_difference(np.inf, np.inf) is None
    assert tree_difference(np.inf, -np.inf, atol=1.0) is not None

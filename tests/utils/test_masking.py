"""Action-mask utilities: support detection, lookup through wrappers, flat layouts."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult, Wrapper
from sekai.spaces import Box, Dict, Discrete, MultiBinary, MultiDiscrete, Space, Tuple
from sekai.utils.masking import (
    action_mask_space,
    flatten_action_mask,
    get_action_mask,
    supports_action_mask,
)


class PlainEnv(Env[int, int]):
    def __init__(self) -> None:
        self.observation_space = Discrete(2)
        self.action_space = Discrete(3)

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        return ResetResult(0, {})

    def step(self, action: Any) -> Any:
        return StepResult(0, 0.0, False, False, {})


class MaskedEnv(PlainEnv):
    def action_mask(self) -> Any:
        return np.array([1, 0, 1], dtype=np.int8)


class Passthrough(Wrapper[Any, Any, Any, Any]):
    pass


def test_supports_action_mask() -> None:
    assert not supports_action_mask(PlainEnv())
    assert supports_action_mask(MaskedEnv())
    assert supports_action_mask(Passthrough(Passthrough(MaskedEnv())))
    assert not supports_action_mask(Passthrough(PlainEnv()))


def test_supports_action_mask_without_has_attr() -> None:
    class Duck:
        action_mask = None

    assert supports_action_mask(Duck())
    assert not supports_action_mask(object())


def test_get_action_mask_calls_the_method_through_wrappers() -> None:
    assert get_action_mask(PlainEnv()) is None
    np.testing.assert_array_equal(get_action_mask(MaskedEnv()), [1, 0, 1])
    np.testing.assert_array_equal(get_action_mask(Passthrough(MaskedEnv())), [1, 0, 1])


def test_get_action_mask_attribute_and_none() -> None:
    class AttributeEnv(PlainEnv):
        action_mask = (1, 1, 0)

    class NoneEnv(PlainEnv):
        def action_mask(self) -> Any:
            return None

    class Duck:
        def action_mask(self) -> list[int]:
            return [0, 1]

    assert get_action_mask(AttributeEnv()) == (1, 1, 0)
    assert get_action_mask(Passthrough(AttributeEnv())) == (1, 1, 0)
    assert get_action_mask(NoneEnv()) is None
    assert get_action_mask(Duck()) == [0, 1]


@pytest.mark.parametrize(
    ("space", "expected"),
    [
        (Discrete(5), MultiBinary(5)),
        (Discrete(3, start=-1), MultiBinary(3)),
        (MultiDiscrete([2, 3]), MultiBinary(5)),
        (MultiDiscrete([[2, 3], [4, 1]]), MultiBinary(10)),
        (Box(-1.0, 1.0, (2, 3)), MultiBinary(6)),
        (Box(-1.0, 1.0, ()), MultiBinary(1)),
    ],
)
def test_action_mask_space(space: Any, expected: MultiBinary) -> None:
    result = action_mask_space(space)
    assert isinstance(result, MultiBinary)
    assert result == expected


@pytest.mark.parametrize("space", [MultiBinary(3), Dict(a=Discrete(2)), Tuple([Discrete(2)])])
def test_unsupported_spaces_raise_type_error(space: Any) -> None:
    with pytest.raises(TypeError, match="Discrete, MultiDiscrete and Box"):
        action_mask_space(space)
    with pytest.raises(TypeError, match="Discrete, MultiDiscrete and Box"):
        flatten_action_mask(space, np.ones(3))


def _check(flat: Any, expected: list[bool]) -> None:
    assert flat.dtype == np.bool_
    assert flat.ndim == 1
    assert flat.tolist() == expected


def test_flatten_discrete() -> None:
    space = Discrete(3)
    _check(flatten_action_mask(space, [1, 0, 1]), [True, False, True])
    _check(flatten_action_mask(space, np.array([0, 1, 1], np.int8)), [False, True, True])
    _check(flatten_action_mask(space, np.array([[1, 1, 0]])), [True, True, False])
    # Only flags equal to 1 allow an action, as in Discrete.sample(mask=...).
    _check(flatten_action_mask(space, [2, 1, 0]), [False, True, False])


@pytest.mark.parametrize("mask", [[1, 0], [1, 0, 1, 1], np.ones((2, 3))])
def test_flatten_discrete_wrong_shape(mask: Any) -> None:
    with pytest.raises(ValueError, match=r"mask\.shape .*must have shape \(3,\)"):
        flatten_action_mask(Discrete(3), mask)


def test_flatten_multidiscrete_tuple_and_padded() -> None:
    space = MultiDiscrete([2, 3])
    expected = [False, True, True, False, True]
    _check(flatten_action_mask(space, (np.array([0, 1]), np.array([1, 0, 1]))), expected)
    padded = np.array([[0, 1, 1], [1, 0, 1]], dtype=np.int8)  # extra column of entry 0 ignored
    _check(flatten_action_mask(space, padded), expected)


def test_flatten_multidiscrete_2d() -> None:
    space = MultiDiscrete([[2, 1], [1, 2]])
    mask = ((np.array([1, 0]), np.array([1])), (np.array([1]), np.array([0, 1])))
    _check(flatten_action_mask(space, mask), [True, False, True, True, False, True])


@pytest.mark.parametrize(
    "mask",
    [
        (np.array([0, 1]), np.array([1, 0])),  # short entry
        (np.array([0, 1]),),  # missing entry
        np.ones((2, 2)),  # padded array of the wrong shape
        (np.array([0, 0]), np.array([1, 0, 1])),  # an entry with nothing allowed
    ],
)
def test_flatten_multidiscrete_errors(mask: Any) -> None:
    with pytest.raises(ValueError):
        flatten_action_mask(MultiDiscrete([2, 3]), mask)


def test_flatten_box_broadcasts() -> None:
    space = Box(-1.0, 1.0, (2, 3))
    _check(flatten_action_mask(space, 1), [True] * 6)
    _check(flatten_action_mask(space, [1, 0, 1]), [True, False, True] * 2)
    _check(flatten_action_mask(space, [[True], [False]]), [True] * 3 + [False] * 3)
    _check(flatten_action_mask(space, np.eye(2, 3)), [True, False, False, False, True, False])


def test_flatten_box_wrong_shape() -> None:
    with pytest.raises(ValueError, match=r"mask\.shape is \(2,\), which does not broadcast"):
        flatten_action_mask(Box(-1.0, 1.0, (2, 3)), [1, 0])


def test_flattened_masks_are_in_action_mask_space() -> None:
    cases: list[tuple[Space[Any], Any]] = [
        (Discrete(3), [1, 0, 1]),
        (MultiDiscrete([2, 3]), (np.array([0, 1]), np.array([1, 0, 1]))),
        (Box(-1.0, 1.0, (2, 2)), [1, 0]),
    ]
    for space, mask in cases:
        assert flatten_action_mask(space, mask).astype(np.int8) in action_mask_space(space)


def test_exported_lazily_from_sekai_utils() -> None:
    import sekai.utils
    from sekai.utils import masking

    for name in masking.__all__:
        assert name in sekai.utils.__all__
        assert getattr(sekai.utils, name) is getattr(masking, name)
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = sekai.utils.no_such_name

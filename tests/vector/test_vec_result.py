"""VecStepResult, VecResetResult and stack_infos."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sekai.vector import VecResetResult, VecStepResult, stack_infos


def test_step_result_dones_is_terminated_or_truncated() -> None:
    result = VecStepResult(
        np.zeros((3, 1)),
        np.array([1.0, 2.0, 3.0]),
        np.array([True, False, False]),
        np.array([False, False, True]),
        [{}, {}, {}],
    )
    assert result.dones.tolist() == [True, False, True]


def test_reset_result_dones_all_false() -> None:
    result = VecResetResult(np.zeros((2, 1)), [{}, {}])
    assert result.dones.dtype == np.bool_
    assert result.dones.tolist() == [False, False]


def test_results_are_frozen_with_slots() -> None:
    result = VecResetResult(np.zeros((1, 1)), [{}])
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.infos = []  # type: ignore[misc]
    assert not hasattr(result, "__dict__")


def test_stack_infos_keeps_keys_present_in_every_dict() -> None:
    infos = [{"a": 1, "b": 2.0}, {"b": 3.0, "a": 4, "c": "x"}]
    stacked = stack_infos(infos)
    assert list(stacked) == ["a", "b"]
    assert stacked["a"].tolist() == [1, 4]
    assert stacked["b"].tolist() == [2.0, 3.0]


def test_stack_infos_stacks_arrays_and_handles_empty() -> None:
    stacked = stack_infos([{"v": np.array([1, 2])}, {"v": np.array([3, 4])}])
    assert stacked["v"].shape == (2, 2)
    assert stack_infos([]) == {}
    assert stack_infos([{}, {"a": 1}]) == {}

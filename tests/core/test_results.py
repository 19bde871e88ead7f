"""StepResult, ResetResult and the multi-agent results."""

from __future__ import annotations

import dataclasses

import pytest

from sekai.core import MAResetResult, MAStepResult, ResetResult, StepResult


def test_step_result_fields_done_and_repr() -> None:
    result = StepResult(1, 0.0, False, False, {})
    assert repr(result) == (
        "StepResult(observation=1, reward=0.0, terminated=False, truncated=False, info={})"
    )
    assert not result.done
    assert StepResult(1, 0.0, True, False, {}).done
    assert StepResult(1, 0.0, False, True, {}).done
    assert result == StepResult(1, 0.0, False, False, {})


def test_results_are_frozen_and_slotted() -> None:
    result = StepResult(1, 1.0, True, False, {})
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'reward'"):
        result.reward = 0.0  # type: ignore[misc]
    assert not hasattr(result, "__dict__")
    zeroed = dataclasses.replace(result, reward=0.0)
    assert (result.reward, zeroed.reward) == (1.0, 0.0)
    reset = ResetResult("obs", {"a": 1})
    assert reset.done is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        reset.info = {}  # type: ignore[misc]


def test_no_coercion() -> None:
    result = StepResult([1], 1, 0, 1, {})
    assert result.reward == 1 and type(result.reward) is int
    assert result.done is True


def test_ma_step_result_done_by_agent_id() -> None:
    r = MAStepResult({}, {}, {"a": True, "b": False}, {"b": True}, {})
    assert r.all_done and r.any_done
    r = MAStepResult({}, {}, {"a": False}, {"b": True}, {})
    assert not r.all_done and r.any_done
    r = MAStepResult({}, {}, {}, {}, {})
    assert not r.all_done and not r.any_done
    r = MAStepResult({}, {}, {"a": False}, {}, {})
    assert not r.all_done and not r.any_done


def test_ma_reset_result_never_done() -> None:
    r = MAResetResult({"a": 0}, {})
    assert r.all_done is False and r.any_done is False

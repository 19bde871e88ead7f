"""Audit of ``sekai.vector`` against the API spec (core.md §7): regressions for the fixes."""

from __future__ import annotations

import pickle
import sys
from typing import Any

import cloudpickle
import numpy as np
import proc_toy_envs as toys
import pytest
from drift_envs import Drift, DriftVecEnv, FrozenAwareDrift

import sekai
from sekai.vector import SyncVecEnv
from sekai.vector.proc_vec_env import ProcVecEnv

cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _outcome(fn: Any) -> type[BaseException] | None:
    try:
        fn()
    except Exception as e:
        return type(e)
    return None


# -- NativeVecEnv seeding: "Accepts exactly the same seed inputs as SyncVecEnv" ---------------


@pytest.mark.parametrize("entry", [1.5, 2.0, "abc", "7", True, -1, (1, 2), np.float64(3.0)])
def test_native_seed_list_entries_are_accepted_or_rejected_like_sync(entry: Any) -> None:
    sync = SyncVecEnv([Drift, Drift])
    native = DriftVecEnv(2)
    expected = _outcome(lambda: sync.reset(seed=[5, entry]))
    assert _outcome(lambda: native.reset(seed=[5, entry])) is expected


def test_native_bad_seed_list_leaves_the_stream_untouched() -> None:
    a, b = DriftVecEnv(3), DriftVecEnv(3)
    a.reset(seed=3)
    b.reset(seed=3)
    with pytest.raises((TypeError, ValueError)):
        a.reset(seed=[None, None, "abc"])  # type: ignore[list-item]  # no draw before the error
    with pytest.raises(ValueError):
        a.reset(seed=[None, 1, -1])
    assert np.array_equal(a.reset().observations, b.reset().observations)


def test_native_seed_list_rule_is_exact() -> None:
    vec = DriftVecEnv(3)
    vec.reset(seed=9)
    twin = np.random.default_rng(9)
    twin.normal(size=3)  # the draws of reset(seed=9)
    gen = np.random.default_rng(42)
    gen_twin = np.random.default_rng(42)
    expected = np.random.default_rng(
        [int(twin.integers(2**63)), 4, int(gen_twin.integers(2**63))]
    ).normal(size=3)
    result = vec.reset(seed=[None, np.int64(4), gen])
    assert np.allclose(result.observations[:, 0], expected.astype(np.float32))


# -- NativeVecEnv.reset: VecResetResult(_observe(), split_infos(_reset_infos(all))) ------------


class _OrderedHooks(FrozenAwareDrift):
    def __init__(self, num_envs: int) -> None:
        super().__init__(num_envs)
        self.calls: list[str] = []

    def _reset_envs(self, indices: Any, options: Any) -> None:
        self.calls.append("reset_envs")
        super()._reset_envs(indices, options)

    def _observe(self) -> Any:
        self.calls.append("observe")
        return super()._observe()

    def _reset_infos(self, indices: Any) -> Any:
        self.calls.append("reset_infos")
        return super()._reset_infos(indices)


def test_native_reset_calls_the_hooks_in_the_spec_order() -> None:
    vec = _OrderedHooks(2)
    vec.reset(seed=0)
    assert vec.calls == ["reset_envs", "observe", "reset_infos"]


# -- NativeVecEnv: frozen actions of numeric arrays ---------------------------------------------


class _ComplexActions(FrozenAwareDrift):
    def _step(self, actions: Any) -> Any:
        self.received = np.array(actions)
        return super()._step(np.real(actions))


def test_native_frozen_actions_are_held_for_every_numeric_dtype() -> None:
    vec = _ComplexActions(2, autoreset=False)
    vec.reset(seed=0, options=[{"x": 4.9}, {"x": 0.0}])
    vec.step(np.array([1 + 0j, 0 + 0j]))  # sub-env 0 passes 5 and freezes
    assert vec.frozen.tolist() == [True, False]
    vec.step(np.array([0 + 0j, 1 + 0j]))
    assert vec.received.tolist() == [1 + 0j, 1 + 0j]


# -- ProcVecEnv: every pickling failure is a TypeError, nothing is sent ------------------------


class _ReduceRaises:
    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    def __reduce__(self) -> Any:
        raise self.exc


@pytest.mark.parametrize("exc", [pickle.PicklingError("nope"), RuntimeError("no pickling")])
def test_proc_unpicklable_set_attr_value_is_a_type_error(exc: Exception) -> None:
    vec = ProcVecEnv([toys.ToyEnv] * 2)
    try:
        with pytest.raises(TypeError, match="pickle"):
            vec.set_attr("length", [7, _ReduceRaises(exc)])
        assert vec.get_attr("length") == [5, 5]  # nothing was sent
    finally:
        vec.close()
    toys.assert_no_leftovers()


@pytest.mark.parametrize("exc", [pickle.PicklingError("nope"), RuntimeError("no pickling")])
def test_proc_unpicklable_factory_is_a_type_error(exc: Exception) -> None:
    bad = _ReduceRaises(exc)
    with pytest.raises(TypeError, match="pickle"):
        ProcVecEnv([toys.ToyEnv, lambda: (bad, toys.ToyEnv())[1]])
    toys.assert_no_leftovers()


def test_sekai_vector_all_matches_the_spec() -> None:
    assert sekai.vector.__all__ == [
        "VecStepResult",
        "VecResetResult",
        "stack_infos",
        "VecEnv",
        "SyncVecEnv",
        "AsyncVecEnv",
        "ProcVecEnv",
        "NativeVecEnv",
        "shared",
        "VecWrapper",
        "VecObservationWrapper",
        "VecRewardWrapper",
        "VecActionWrapper",
        "VecRecordEpisodeStatistics",
        "VecNormalizeObservation",
        "VecNormalizeReward",
        "VecTransformObservation",
        "VecTransformReward",
    ]
